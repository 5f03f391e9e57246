/**
 * Wall-clock time in an IANA time zone, for the automations' schedules and the history's days and
 * months: what local date and time an instant is, and which instant a local date and time is, with
 * the rule of docs/automations.md for the days clocks change:
 *
 * - a wall time that does not exist (inside a spring-forward gap, e.g. 02:30 on the last Sunday
 *   of March in Berlin) happens at the transition, the first instant after the gap (03:00 new
 *   time), as cron does; never skipped to the next day;
 * - a wall time that exists twice (inside a fall-back overlap) happens once, at the first of the
 *   two (the earlier instant, still on summer time).
 *
 * Every instant is a UTC epoch in milliseconds; a local date is `{ year, month, day }`.
 *
 * The offsets come from the system's zone database (src/lib/tzif.ts) where it has the zone, else
 * from Intl (a box without tzdata, a name only ICU knows, a damaged file): Intl's time zones load
 * about 6 MB of ICU data into the process, which an idle gateway then keeps (docs/benchmarks.md).
 */
import { readFileSync, readlinkSync } from 'node:fs';
import { readZoneRules, ZONEINFO, type ZoneRules } from './tzif.ts';

export interface LocalDate {
  year: number;
  /** 1-12 */
  month: number;
  day: number;
}

export interface Wall extends LocalDate {
  hour: number;
  minute: number;
  second: number;
}

const DAY_MS = 86_400_000;

/** Names of UTC in the database, which Intl calls `UTC`. */
const UTC_NAMES = new Set([
  'UTC',
  'Etc/UTC',
  'Etc/UCT',
  'UCT',
  'Etc/Universal',
  'Universal',
  'Etc/Zulu',
  'Zulu',
  'Etc/GMT',
  'GMT',
  'Etc/GMT0',
  'Etc/GMT+0',
  'Etc/GMT-0',
  'GMT0',
  'GMT+0',
  'GMT-0',
  'Etc/Greenwich',
  'Greenwich',
]);

/**
 * The machine's own time zone: the TZ variable, else /etc/timezone, else the zone /etc/localtime
 * links to, when the database has it (names of UTC read `UTC`, as Intl says); else as Intl
 * resolves it. Read from files so that asking does not load ICU's zones.
 */
export function machineZone(zoneinfo: string = ZONEINFO, env: NodeJS.ProcessEnv = process.env): string {
  const candidates: (() => string | undefined)[] = [
    () => (env.TZ === undefined ? undefined : env.TZ.replace(/^:/, '').replace(/^.*\/zoneinfo\//, '')),
    () => readFileSync('/etc/timezone', 'utf8').trim(),
    () => /\/zoneinfo\/(.+)$/.exec(readlinkSync('/etc/localtime'))?.[1],
  ];
  for (const candidate of candidates) {
    let name: string | undefined;
    try {
      name = candidate();
    } catch {
      continue;
    }
    if (name === undefined) continue;
    // A TZ that is set but is not a zone the database has (a POSIX rule, a typo): Intl decides.
    if (name === '' || !zoneRulesOrUndefined(name, zoneinfo)) break;
    return UTC_NAMES.has(name) ? 'UTC' : name;
  }
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** The database's rules for `name`, or undefined where it has none or its file is damaged. */
function zoneRulesOrUndefined(name: string, zoneinfo: string): ZoneRules | undefined {
  try {
    return readZoneRules(name, zoneinfo);
  } catch {
    return undefined;
  }
}

/** Whether `name` is a time zone: one the database has, else one Intl knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string, zoneinfo: string = ZONEINFO): boolean {
  if (zoneRulesOrUndefined(name, zoneinfo)) return true;
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** A local date `n` days after `d` (negative: before). */
export function addDays(d: LocalDate, n: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day) + n * DAY_MS);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** How a local time became an instant: it existed once, fell in a gap, or existed twice. */
export type Resolution = 'exact' | 'gap' | 'overlap';

export class Zone {
  private readonly rules: ZoneRules | undefined;
  private readonly format: Intl.DateTimeFormat | undefined;

  /**
   * From the database in `zoneinfo` where it has `name`, else from Intl: then throws a RangeError
   * for a name Intl does not know either (the setting is checked before this).
   */
  constructor(
    readonly name: string,
    zoneinfo: string = ZONEINFO,
  ) {
    this.rules = zoneRulesOrUndefined(name, zoneinfo);
    if (this.rules) return;
    this.format = new Intl.DateTimeFormat('en-US', {
      timeZone: name,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
  }

  /** The local date and time of an instant (to the second). */
  wall(t: number): Wall {
    if (!this.format) {
      const d = new Date(t + this.offset(t));
      return {
        year: d.getUTCFullYear(),
        month: d.getUTCMonth() + 1,
        day: d.getUTCDate(),
        hour: d.getUTCHours(),
        minute: d.getUTCMinutes(),
        second: d.getUTCSeconds(),
      };
    }
    const out: Record<string, number> = {};
    for (const p of this.format.formatToParts(new Date(t))) if (p.type !== 'literal') out[p.type] = Number(p.value);
    return {
      year: out.year as number,
      month: out.month as number,
      day: out.day as number,
      hour: out.hour as number,
      minute: out.minute as number,
      second: out.second as number,
    };
  }

  /** The local date of an instant. */
  date(t: number): LocalDate {
    const w = this.wall(t);
    return { year: w.year, month: w.month, day: w.day };
  }

  /** Local time minus UTC at instant `t`, in ms. */
  offset(t: number): number {
    if (this.rules) return this.rules.offset(Math.floor(t / 1000)) * 1000;
    const whole = t - (((t % 1000) + 1000) % 1000);
    const w = this.wall(whole);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - whole;
  }

  /** Seconds since local midnight of instant `t` (as the wall clock shows it). */
  secondOfDay(t: number): number {
    const w = this.wall(t);
    return w.hour * 3600 + w.minute * 60 + w.second;
  }

  /**
   * The instant of a local date and time (`second` since midnight, 0..86399), by the DST rule
   * above: a time in a gap is the transition, a time in an overlap its first fold.
   */
  instant(date: LocalDate, second: number): { at: number; resolution: Resolution } {
    const wall = Date.UTC(date.year, date.month - 1, date.day) + second * 1000;
    const before = this.offset(wall - DAY_MS);
    const after = this.offset(wall + DAY_MS);
    const found = [...new Set([before, after])]
      .map((o) => wall - o)
      .filter((t) => this.offset(t) === wall - t)
      .sort((a, b) => a - b);
    if (found.length > 0) {
      const exact = found.length === 1 || found[0] === found[found.length - 1];
      return { at: found[0] as number, resolution: exact ? 'exact' : 'overlap' };
    }
    // A gap: the clocks jumped from `before` to `after` between wall-after and wall-before.
    // Binary search (to the second) for the first instant on the new offset.
    let lo = wall - after;
    let hi = wall - before;
    while (hi - lo > 1000) {
      const mid = lo + Math.floor((hi - lo) / 2000) * 1000;
      if (this.offset(mid) === before) lo = mid;
      else hi = mid;
    }
    return { at: hi, resolution: 'gap' };
  }
}
