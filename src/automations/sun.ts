/**
 * Sunrise and sunset computed on the gateway, with no network: the solar position formulas of
 * Jean Meeus, "Astronomical Algorithms" (2nd ed., chapters 25 and 28), as the U.S. NOAA solar
 * calculator publishes them. Sunrise and sunset are when the sun's upper edge meets a flat
 * horizon under standard refraction (the centre 0.833 degrees below it), as almanacs print them;
 * within a minute or so of the almanac between the polar circles (test/automations/sun.test.ts
 * checks published times). Above the polar circles a day may have no sunrise or no sunset: the
 * answer is then null.
 */
import { addDays, type LocalDate, WEEKDAYS, weekdayOf, type Zone } from './zone.ts';

export type SunEvent = 'sunrise' | 'sunset';

export interface Location {
  latitude: number;
  longitude: number;
}

const RAD = Math.PI / 180;
const sin = (deg: number) => Math.sin(deg * RAD);
const cos = (deg: number) => Math.cos(deg * RAD);
const tan = (deg: number) => Math.tan(deg * RAD);
const DAY_MS = 86_400_000;
/** Julian date of the Unix epoch. */
const JD_UNIX = 2440587.5;

/** The sun's declination (degrees) and the equation of time (minutes) at an instant. */
function solar(t: number): { declination: number; eqTime: number } {
  const jd = t / DAY_MS + JD_UNIX;
  const T = (jd - 2451545) / 36525;
  const L0 = (((280.46646 + T * (36000.76983 + T * 0.0003032)) % 360) + 360) % 360;
  const M = 357.52911 + T * (35999.05029 - 0.0001537 * T);
  const e = 0.016708634 - T * (0.000042037 + 0.0000001267 * T);
  const C =
    sin(M) * (1.914602 - T * (0.004817 + 0.000014 * T)) +
    sin(2 * M) * (0.019993 - 0.000101 * T) +
    sin(3 * M) * 0.000289;
  const omega = 125.04 - 1934.136 * T;
  const lambda = L0 + C - 0.00569 - 0.00478 * sin(omega);
  const eps0 = 23 + (26 + (21.448 - T * (46.815 + T * (0.00059 - T * 0.001813))) / 60) / 60;
  const eps = eps0 + 0.00256 * cos(omega);
  const declination = Math.asin(sin(eps) * sin(lambda)) / RAD;
  const y = tan(eps / 2) ** 2;
  const eqTime =
    (4 / RAD) *
    (y * sin(2 * L0) -
      2 * e * sin(M) +
      4 * e * y * sin(M) * cos(2 * L0) -
      0.5 * y * y * sin(4 * L0) -
      1.25 * e * e * sin(2 * M));
  return { declination, eqTime };
}

/**
 * The instant of sunrise or sunset on a local date at a place: the one nearest the place's solar
 * noon of that date. Null when the sun does not rise or set that day (polar day or night).
 */
export function sunTime(event: SunEvent, date: LocalDate, at: Location): number | null {
  const midnight = Date.UTC(date.year, date.month - 1, date.day);
  // Start from solar noon, then refine twice with the sun's position at the estimate.
  let t = midnight + (720 - 4 * at.longitude) * 60_000;
  for (let i = 0; i < 3; i++) {
    const { declination, eqTime } = solar(t);
    const cosH = (cos(90.833) - sin(at.latitude) * sin(declination)) / (cos(at.latitude) * cos(declination));
    if (cosH < -1 || cosH > 1) return null;
    const H = Math.acos(cosH) / RAD;
    const minutes = 720 - 4 * (at.longitude + (event === 'sunrise' ? H : -H)) - eqTime;
    t = midnight + minutes * 60_000;
  }
  return Math.round(t / 1000) * 1000;
}

/** Sun rule of a trigger or a condition bound: an event and an offset in minutes (negative: before). */
export interface SunRule {
  event: SunEvent;
  offsetMinutes: number;
}

/** The instant of a sun rule on a local date (null: no such event that day). */
export function sunRuleTime(rule: SunRule, date: LocalDate, at: Location): number | null {
  const t = sunTime(rule.event, date, at);
  return t === null ? null : t + rule.offsetMinutes * 60_000;
}

/**
 * The first instant of the rule strictly after `after`, on one of `weekdays` (the weekday of the
 * local date whose sunrise or sunset it is); null when none falls within `maxDays` days (a polar
 * night or day).
 */
export function nextSunTime(
  rule: SunRule,
  after: number,
  zone: Zone,
  at: Location,
  weekdays: ReadonlySet<string> = new Set(WEEKDAYS),
  maxDays = 400,
): { at: number; date: LocalDate } | null {
  // An offset of up to 12 h can move an event into the previous or next local date: start early.
  const start = zone.date(after);
  for (let i = -2; i <= maxDays; i++) {
    const d = addDays(start, i);
    if (!weekdays.has(weekdayOf(d))) continue;
    const t = sunRuleTime(rule, d, at);
    if (t !== null && t > after) return { at: t, date: d };
  }
  return null;
}

/** The last instant of the rule at or before `atOrBefore` (null: none within `maxDays`). */
export function previousSunTime(
  rule: SunRule,
  atOrBefore: number,
  zone: Zone,
  at: Location,
  maxDays = 400,
): number | null {
  const start = zone.date(atOrBefore);
  for (let i = 2; i >= -maxDays; i--) {
    const t = sunRuleTime(rule, addDays(start, i), at);
    if (t !== null && t <= atOrBefore) return t;
  }
  return null;
}

/** Parses the `location` setting (`latitude,longitude`); null when it is empty. */
export function parseLocation(text: string): Location | null {
  if (text.trim() === '') return null;
  const [lat, lon] = text.split(',').map((x) => Number(x.trim()));
  return { latitude: lat as number, longitude: lon as number };
}
