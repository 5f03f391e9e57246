/**
 * Local days and months, and local times as text, in one IANA time zone: what people count energy
 * in and read in a CSV. Built on the Zone of src/lib/zone.ts (the system's zone database, else
 * Intl, with its rule for the days clocks change: a day whose midnight falls in a gap starts at the
 * transition). A local day is not always 24 hours: the day clocks go forward has 23, the day they
 * go back 25.
 */
import { addDays, type LocalDate, machineZone, Zone } from '../lib/zone.ts';

export { isTimeZone } from '../lib/zone.ts';

const QUARTER = 900_000;

/** The host's own time zone (the default when none is configured). */
export const hostTimeZone = machineZone;

export class Calendar {
  private readonly zone: Zone;
  /** Offsets by quarter hour: a zone changes its offset only on a quarter hour of UTC. */
  private readonly offsets = new Map<number, number>();

  /** Throws a RangeError for a name neither the zone database nor Intl knows. */
  constructor(readonly name: string) {
    this.zone = new Zone(name);
  }

  /** Local time minus UTC at instant `t`, in ms (+3,600,000 for Berlin in winter). */
  offset(t: number): number {
    const q = Math.floor(t / QUARTER);
    let o = this.offsets.get(q);
    if (o === undefined) {
      o = this.zone.offset(q * QUARTER);
      if (this.offsets.size > 50_000) this.offsets.clear();
      this.offsets.set(q, o);
    }
    return o;
  }

  /** The local date of an instant (from the cached offsets). */
  private date(t: number): LocalDate {
    const w = new Date(t + this.offset(t));
    return { year: w.getUTCFullYear(), month: w.getUTCMonth() + 1, day: w.getUTCDate() };
  }

  /**
   * The first instant of a local date. From the cached offsets when its midnight exists once (a
   * year of days costs a few Intl calls, not thousands); else by the Zone's rule.
   */
  private start(d: LocalDate): number {
    const wall = Date.UTC(d.year, d.month - 1, d.day);
    let t = wall - this.offset(wall);
    t = wall - this.offset(t);
    if (t + this.offset(t) === wall && t - 1 + this.offset(t - 1) < wall) return t;
    return this.zone.instant(d, 0).at;
  }

  /** The first instant of the local day holding `t`. */
  startOfDay(t: number): number {
    return this.start(this.date(t));
  }

  /** The first instant of the local day `days` after the one holding `dayStart`. */
  addDays(dayStart: number, days: number): number {
    return this.start(addDays(this.date(dayStart), days));
  }

  /** The first instant of the local month holding `t`. */
  startOfMonth(t: number): number {
    const d = this.date(t);
    return this.start({ year: d.year, month: d.month, day: 1 });
  }

  /** The first instant of the local month `months` after the one holding `monthStart`. */
  addMonths(monthStart: number, months: number): number {
    const d = this.date(monthStart);
    const m = d.month - 1 + months;
    return this.start({ year: d.year + Math.floor(m / 12), month: (((m % 12) + 12) % 12) + 1, day: 1 });
  }

  /** ISO 8601 with this zone's offset: `2025-03-30T03:00:00+02:00` (`Z` in UTC). */
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
