/**
 * The arithmetic of roll-ups. A numeric series is a step signal: each reported value stands
 * until the next one (the registry passes on changes only: a heater drawing a steady 1 kW is
 * reported once), and a gap (NaN: the device went offline, was removed or left out, or the
 * gateway stopped) ends it. A slot's
 * min and max are those of the signal over the slot (a value carried in from before counts); its
 * mean is weighted by time; `n` counts the reports made in it. Energy comes from the same signal:
 * power integrated over time, or the rises of a meter's counter.
 */
import type { Bucket, Samples } from './codec.ts';

export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

/** The last sample before a window (v NaN: a gap). */
export interface Carry {
  t: number;
  v: number;
}

interface Acc {
  n: number;
  cov: number;
  sum: number;
  sampleSum: number;
  min: number;
  max: number;
}

/**
 * Roll-ups of the signal of `s` (with `carry` before it) over `slots` slots of `width` ms from
 * `start`; the signal is known up to `until` (now, for a window still open).
 */
export function rollUp(
  s: Samples,
  carry: Carry | undefined,
  start: number,
  width: number,
  slots: number,
  until = start + width * slots,
): (Bucket | undefined)[] {
  const end = Math.min(start + width * slots, until);
  const acc: (Acc | undefined)[] = new Array(slots);
  const slot = (i: number): Acc => {
    let a = acc[i];
    if (!a) {
      a = { n: 0, cov: 0, sum: 0, sampleSum: 0, min: Number.POSITIVE_INFINITY, max: Number.NEGATIVE_INFINITY };
      acc[i] = a;
    }
    return a;
  };
  const segment = (from: number, to: number, v: number) => {
    let a = Math.max(from, start);
    const b = Math.min(to, end);
    while (a < b) {
      const i = Math.floor((a - start) / width);
      const e = Math.min(b, start + (i + 1) * width);
      const x = slot(i);
      x.cov += e - a;
      x.sum += v * (e - a);
      if (v < x.min) x.min = v;
      if (v > x.max) x.max = v;
      a = e;
    }
  };
  let prevT = carry?.t ?? Number.NaN;
  let prevV = carry?.v ?? Number.NaN;
  for (let k = 0; k < s.t.length; k++) {
    const t = s.t[k] as number;
    const v = s.v[k] as number;
    if (!Number.isNaN(prevV)) segment(prevT, t, prevV);
    if (t >= start && t < end && !Number.isNaN(v)) {
      const x = slot(Math.floor((t - start) / width));
      x.n++;
      x.sampleSum += v;
      if (v < x.min) x.min = v;
      if (v > x.max) x.max = v;
    }
    prevT = t;
    prevV = v;
  }
  if (!Number.isNaN(prevV)) segment(prevT, end, prevV);
  return acc.map((a) =>
    a ? { n: a.n, cov: a.cov, min: a.min, max: a.max, mean: a.cov > 0 ? a.sum / a.cov : a.sampleSum / a.n } : undefined,
  );
}

/** One bucket from several (a coarser resolution): covered times add up, the mean is weighted by them. */
export function mergeBuckets(list: readonly (Bucket | undefined)[]): Bucket | undefined {
  let n = 0;
  let cov = 0;
  let sum = 0;
  let plain = 0;
  let count = 0;
  let min = Number.POSITIVE_INFINITY;
  let max = Number.NEGATIVE_INFINITY;
  for (const b of list) {
    if (!b) continue;
    count++;
    n += b.n;
    cov += b.cov;
    sum += b.mean * b.cov;
    plain += b.mean;
    if (b.min < min) min = b.min;
    if (b.max > max) max = b.max;
  }
  if (count === 0) return undefined;
  return { n, cov, min, max, mean: cov > 0 ? sum / cov : plain / count };
}

/** Energy (Wh) per slot from a power signal: the mean times the covered time; `toWatts` converts the series' unit. */
export function powerAmounts(
  s: Samples,
  carry: Carry | undefined,
  start: number,
  width: number,
  slots: number,
  toWatts: number,
  until?: number,
): (number | undefined)[] {
  return rollUp(s, carry, start, width, slots, until).map((b) => (b ? (b.mean * b.cov * toWatts) / HOUR : undefined));
}

/**
 * Energy (Wh) from a meter's counter, per quarter hour (epoch ms of its start -> Wh): each rise
 * from one reading to the next is spread evenly over the time between them, wherever that falls
 * (a meter silent for an hour has its rise spread over that hour, not lumped where it reported
 * again). A counter that goes down was reset: the new reading is what was used since. Gaps do not
 * break the counter: it goes on where it was. The quarter of a first reading is known to be 0.
 */
export function counterRises(
  s: Samples,
  carry: Carry | undefined,
  toWh: number,
  width = 15 * MINUTE,
): Map<number, number> {
  const out = new Map<number, number>();
  const add = (q: number, wh: number) => out.set(q, (out.get(q) ?? 0) + wh);
  let prevT = carry && !Number.isNaN(carry.v) ? carry.t : Number.NaN;
  let prevV = carry && !Number.isNaN(carry.v) ? carry.v : Number.NaN;
  for (let k = 0; k < s.t.length; k++) {
    const t = s.t[k] as number;
    const v = s.v[k] as number;
    if (Number.isNaN(v)) continue;
    if (Number.isNaN(prevV)) add(Math.floor(t / width) * width, 0);
    else {
      const used = (v >= prevV ? v - prevV : v) * toWh;
      if (t <= prevT) add(Math.floor(t / width) * width, used);
      for (let a = prevT; a < t; ) {
        const q = Math.floor(a / width) * width;
        const e = Math.min(t, q + width);
        add(q, (used * (e - a)) / (t - prevT));
        a = e;
      }
    }
    prevT = t;
    prevV = v;
  }
  return out;
}
