/**
 * The values of the hour not yet rolled up, per series, in memory (an hour of 100 sensors
 * reporting every 10 s is 36,000 values, about 600 kB): queries read them as they are, the
 * roll-up packs them. Their durable copy is the batches table; a restart reads it back. The
 * carry of a series is its last value before that hour, which a roll-up needs (a value stands
 * until the next one).
 */
import type { Samples } from './codec.ts';
import type { Carry } from './rollup.ts';

export class Recent {
  private readonly samples = new Map<number, Samples>();
  private readonly carries = new Map<number, Carry>();

  /** @param compactedUntil every value before this instant is rolled up */
  constructor(public compactedUntil: number) {}

  /**
   * Adds a value; returns the time it was kept at: never before the series' last value or the
   * rolled-up hours (a clock set back does not reorder a series).
   */
  add(series: number, t: number, v: number): number {
    let s = this.samples.get(series);
    if (!s) {
      s = { t: [], v: [] };
      this.samples.set(series, s);
    }
    const last = s.t.length > 0 ? (s.t[s.t.length - 1] as number) : this.compactedUntil;
    const at = Math.max(t, last, this.compactedUntil);
    s.t.push(at);
    s.v.push(v);
    return at;
  }

  of(series: number): Samples | undefined {
    return this.samples.get(series);
  }

  carry(series: number): Carry | undefined {
    return this.carries.get(series);
  }

  setCarry(series: number, c: Carry | undefined): void {
    if (c) this.carries.set(series, c);
    else this.carries.delete(series);
  }

  hasCarry(series: number): boolean {
    return this.carries.has(series);
  }

  /** The series' latest value: the last of the hour, else the carry. */
  last(series: number): Carry | undefined {
    const s = this.samples.get(series);
    if (s && s.t.length > 0) return { t: s.t[s.t.length - 1] as number, v: s.v[s.v.length - 1] as number };
    return this.carries.get(series);
  }

  /** Series with values, or with a carry, before `end`. */
  seriesBefore(end: number): number[] {
    const out = new Set<number>();
    for (const [id, s] of this.samples) if (s.t.length > 0 && (s.t[0] as number) < end) out.add(id);
    for (const id of this.carries.keys()) out.add(id);
    return [...out];
  }

  /** The earliest value held, or undefined. */
  earliest(): number | undefined {
    let min: number | undefined;
    for (const s of this.samples.values())
      if (s.t.length > 0 && (min === undefined || (s.t[0] as number) < min)) min = s.t[0];
    return min;
  }

  /** The values of a series before `end` (a copy). */
  before(series: number, end: number): Samples {
    const s = this.samples.get(series);
    if (!s) return { t: [], v: [] };
    let n = 0;
    while (n < s.t.length && (s.t[n] as number) < end) n++;
    return { t: s.t.slice(0, n), v: s.v.slice(0, n) };
  }

  /** Everything before `end` is rolled up: drops it, keeping each series' last value as its carry. */
  rolledUp(end: number): void {
    this.compactedUntil = end;
    for (const [id, s] of this.samples) {
      let n = 0;
      while (n < s.t.length && (s.t[n] as number) < end) n++;
      if (n === 0) continue;
      this.carries.set(id, { t: s.t[n - 1] as number, v: s.v[n - 1] as number });
      s.t.splice(0, n);
      s.v.splice(0, n);
      if (s.t.length === 0) this.samples.delete(id);
    }
  }

  /** Forgets a series. */
  drop(series: number): void {
    this.samples.delete(series);
    this.carries.delete(series);
  }

  /** Values held (for stats). */
  get size(): number {
    let n = 0;
    for (const s of this.samples.values()) n += s.t.length;
    return n;
  }

  clear(): void {
    this.samples.clear();
    this.carries.clear();
  }
}
