/**
 * Wall-clock time in an IANA time zone, from Intl alone (no time zone database of our own), for
 * the automations' schedules and the history's days and months: what local date and time an
 * instant is, and which instant a local date and time is, with the rule of docs/automations.md for
 * the days clocks change:
 *
 * - a wall time that does not exist (inside a spring-forward gap, e.g. 02:30 on the last Sunday
 *   of March in Berlin) happens at the transition, the first instant after the gap (03:00 new
 *   time), as cron does; never skipped to the next day;
 * - a wall time that exists twice (inside a fall-back overlap) happens once, at the first of the
 *   two (the earlier instant, still on summer time).
 *
 * Every instant is a UTC epoch in milliseconds; a local date is `{ year, month, day }`.
 */

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

/** The machine's own time zone (the TZ variable, else the system's), as Intl resolves it. */
export function machineZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone;
}

/** A local date `n` days after `d` (negative: before). */
export function addDays(d: LocalDate, n: number): LocalDate {
  const t = new Date(Date.UTC(d.year, d.month - 1, d.day) + n * DAY_MS);
  return { year: t.getUTCFullYear(), month: t.getUTCMonth() + 1, day: t.getUTCDate() };
}

/** How a local time became an instant: it existed once, fell in a gap, or existed twice. */
export type Resolution = 'exact' | 'gap' | 'overlap';

export class Zone {
  private readonly format: Intl.DateTimeFormat;

  /** Throws a RangeError for a name Intl does not know (the setting is checked before this). */
  constructor(readonly name: string) {
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
