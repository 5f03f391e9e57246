/**
 * Local time in one IANA time zone, for what people count in local days and months (energy per
 * day, CSV times). Built on Intl (Node's full ICU): no time zone data of our own. A local day is
 * not always 24 hours: the day clocks go forward has 23, the day they go back 25.
 */

export interface LocalParts {
  year: number;
  /** 1..12 */
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
}

const HOUR = 3_600_000;
const QUARTER = 900_000;

/** Whether `name` is a time zone Intl knows (`Europe/Berlin`, `UTC`). */
export function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name });
    return true;
  } catch {
    return false;
  }
}

/** The host's own time zone (the default when none is configured). */
export function hostTimeZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

export class Zone {
  private readonly format: Intl.DateTimeFormat;
  /** Offsets by quarter hour: a zone changes its offset only on a quarter hour of UTC. */
  private readonly offsets = new Map<number, number>();

  /** Throws a RangeError for a name Intl does not know. */
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

  /** The wall clock at instant `t` (epoch ms). */
  parts(t: number): LocalParts {
    const out: Record<string, number> = {};
    for (const p of this.format.formatToParts(t)) if (p.type !== 'literal') out[p.type] = Number(p.value);
    return {
      year: out.year as number,
      month: out.month as number,
      day: out.day as number,
      hour: (out.hour as number) % 24,
      minute: out.minute as number,
      second: out.second as number,
    };
  }

  /** Local time minus UTC at instant `t`, in ms (+3,600,000 for Berlin in winter). */
  offset(t: number): number {
    const q = Math.floor(t / QUARTER);
    let o = this.offsets.get(q);
    if (o === undefined) {
      const p = this.parts(q * QUARTER);
      o = Date.UTC(p.year, p.month - 1, p.day, p.hour, p.minute, p.second) - q * QUARTER;
      if (this.offsets.size > 50_000) this.offsets.clear();
      this.offsets.set(q, o);
    }
    return o;
  }

  /** The first instant of the local day `year-month-day` (month 1..12; out-of-range days and months roll over). */
  dayStart(year: number, month: number, day: number): number {
    const wall = Date.UTC(year, month - 1, day);
    let t = wall - this.offset(wall);
    t = wall - this.offset(t);
    // Exact unless the day starts at a change of offset (a midnight that does not exist, or one
    // that happens twice): then search the quarter hours around it for the day's first instant.
    if (this.offset(t) + t === wall && this.offset(t - QUARTER) + t - QUARTER < wall) return t;
    const target = new Date(wall);
    const key = (x: number) => {
      const d = new Date(x + this.offset(x));
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
    };
    const want = Date.UTC(target.getUTCFullYear(), target.getUTCMonth(), target.getUTCDate());
    let lo = Math.floor((wall - 16 * HOUR) / QUARTER);
    let hi = Math.ceil((wall + 16 * HOUR) / QUARTER);
    while (lo < hi) {
      const mid = Math.floor((lo + hi) / 2);
      if (key(mid * QUARTER) >= want) hi = mid;
      else lo = mid + 1;
    }
    return lo * QUARTER;
  }

  /** The first instant of the local day holding `t`. */
  startOfDay(t: number): number {
    const w = new Date(t + this.offset(t));
    return this.dayStart(w.getUTCFullYear(), w.getUTCMonth() + 1, w.getUTCDate());
  }

  /** The first instant of the local day `days` after the one starting at `dayStart`. */
  addDays(dayStart: number, days: number): number {
    const w = new Date(dayStart + this.offset(dayStart));
    return this.dayStart(w.getUTCFullYear(), w.getUTCMonth() + 1, w.getUTCDate() + days);
  }

  /** The first instant of the local month holding `t`. */
  startOfMonth(t: number): number {
    const w = new Date(t + this.offset(t));
    return this.dayStart(w.getUTCFullYear(), w.getUTCMonth() + 1, 1);
  }

  /** The first instant of the local month `months` after the one starting at `monthStart`. */
  addMonths(monthStart: number, months: number): number {
    const w = new Date(monthStart + this.offset(monthStart));
    return this.dayStart(w.getUTCFullYear(), w.getUTCMonth() + 1 + months, 1);
  }

  /** ISO 8601 with this zone's offset: `2025-03-30T03:00:00+02:00`. */
  iso(t: number): string {
    const o = this.offset(t);
    const w = new Date(t + o).toISOString().slice(0, 19);
    if (o === 0 && this.name === 'UTC') return `${w}Z`;
    const a = Math.abs(o) / 60_000;
    const hh = String(Math.floor(a / 60)).padStart(2, '0');
    const mm = String(a % 60).padStart(2, '0');
    return `${w}${o < 0 ? '-' : '+'}${hh}:${mm}`;
  }
}
