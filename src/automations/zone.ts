/**
 * The automations' words for local time (weekdays, times of day, dates in traces), over the one
 * Zone of src/lib/zone.ts (which the history uses too).
 */
import type { LocalDate, Zone } from '../lib/zone.ts';

export { addDays, type LocalDate, machineZone, type Resolution, type Wall, Zone } from '../lib/zone.ts';

/** Weekday names as definitions spell them, Sunday first as Date.getUTCDay counts. */
export const WEEKDAYS = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

/** The weekday of a local date. */
export function weekdayOf(d: LocalDate): Weekday {
  return WEEKDAYS[new Date(Date.UTC(d.year, d.month - 1, d.day)).getUTCDay()] as Weekday;
}

/** `YYYY-MM-DD` of a local date, for traces. */
export function dateText(d: LocalDate): string {
  return `${d.year}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`;
}

/** Parses `HH:MM` or `HH:MM:SS` (24 h) to seconds since midnight; undefined when malformed. */
export function parseTimeOfDay(text: string): number | undefined {
  const m = /^([01]\d|2[0-3]):([0-5]\d)(?::([0-5]\d))?$/.exec(text);
  if (!m) return undefined;
  return Number(m[1]) * 3600 + Number(m[2]) * 60 + Number(m[3] ?? 0);
}

/** ISO 8601 of an instant on a zone's wall, with its offset: `2025-03-30T03:00:00+02:00`. */
export function localIso(zone: Zone, t: number): string {
  const w = zone.wall(t);
  const two = (n: number) => String(n).padStart(2, '0');
  const off = Math.round(zone.offset(t) / 60_000);
  const sign = off < 0 ? '-' : '+';
  const abs = Math.abs(off);
  return `${dateText(w)}T${two(w.hour)}:${two(w.minute)}:${two(w.second)}${sign}${two(Math.floor(abs / 60))}:${two(abs % 60)}`;
}
