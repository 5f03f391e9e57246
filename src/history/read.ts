/**
 * Reading recorded values back: the raw values of a series over a range (packed hours, then the
 * hour in memory), and its roll-ups at a tier (packed rows before the last roll-up, computed from
 * memory after it). Every query goes through here.
 */
import type { Clock } from '../lib/clock.ts';
import { type Bucket, decodeAmounts, decodeBuckets, decodeSamples, type Samples, sampleCount } from './codec.ts';
import type { Recent } from './recent.ts';
import type { Recorder } from './recorder.ts';
import { type Carry, counterRises, DAY, HOUR, MINUTE, powerAmounts, rollUp } from './rollup.ts';
import type { SeriesIndex, SeriesInfo } from './series.ts';
import { type HistoryStore, rowKey } from './store.ts';
import type { Retention } from './upkeep.ts';
import type { Calendar } from './zone.ts';

export interface ReadContext {
  store: HistoryStore;
  index: SeriesIndex;
  recent: Recent;
  recorder: Recorder;
  zone: Calendar;
  clock: Clock;
  retention: Retention;
}

export const QUARTER = 15 * MINUTE;

/**
 * Raw values of a series in [from, to), with the value standing at `from` (the last one before
 * it); undefined when there are more than `limit` (counted from the packed rows' heads, before
 * anything is decoded).
 */
export function rawValues(
  ctx: ReadContext,
  s: SeriesInfo,
  from: number,
  to: number,
  limit = Number.POSITIVE_INFINITY,
): { samples: Samples; before?: Carry } | undefined {
  const cu = ctx.recent.compactedUntil;
  const all: Samples = { t: [], v: [] };
  // Two hours more before `from`: the value standing at `from` may have been reported then.
  const firstHour = Math.floor((from - 2 * HOUR) / HOUR);
  const lastHour = Math.min(Math.ceil(to / HOUR), cu / HOUR);
  const rows: [number, Buffer][] = [];
  let count = to > cu ? (ctx.recent.of(s.id)?.t.length ?? 0) : 0;
  for (let h = firstHour; h < lastHour; h++) {
    const data = ctx.store.getChunk('raw', rowKey(h, s.id));
    if (!data) continue;
    rows.push([h, data]);
    // The hours before `from` only give the value standing at it.
    if (h >= Math.floor(from / HOUR)) count += sampleCount(data);
    if (count > limit) return undefined;
  }
  let carry: Carry | undefined;
  for (const [h, data] of rows) decodeSamples(data, h * HOUR, all);
  if (all.t.length === 0) carry = ctx.recent.carry(s.id);
  if (to > cu) {
    const mem = ctx.recent.of(s.id);
    if (mem)
      for (let i = 0; i < mem.t.length; i++) {
        all.t.push(mem.t[i] as number);
        all.v.push(mem.v[i] as number);
      }
  }
  const samples: Samples = { t: [], v: [] };
  let before: Carry | undefined = carry && carry.t < from ? carry : undefined;
  for (let i = 0; i < all.t.length; i++) {
    const t = all.t[i] as number;
    if (t < from) before = { t, v: all.v[i] as number };
    else if (t < to) {
      samples.t.push(t);
      samples.v.push(all.v[i] as number);
    }
  }
  before ??= lastBefore(ctx, s, Math.min(firstHour * HOUR, cu));
  return { samples, before: before && !Number.isNaN(before.v) ? before : undefined };
}

/** How far back the value standing at the start of a range is looked for. */
const LOOKBACK_HOURS = 48;

/** The last raw value of a series before `t` (an hour start at or before the last roll-up), looking back LOOKBACK_HOURS. */
function lastBefore(ctx: ReadContext, s: SeriesInfo, t: number): Carry | undefined {
  const h = Math.floor(t / HOUR);
  for (let k = 1; k <= LOOKBACK_HOURS; k++) {
    const data = ctx.store.getChunk('raw', rowKey(h - k, s.id));
    if (!data) continue;
    const got = decodeSamples(data, (h - k) * HOUR);
    const n = got.t.length;
    if (n > 0) return { t: got.t[n - 1] as number, v: got.v[n - 1] as number };
  }
  return undefined;
}

/** The tier buckets of a series over [from, to): their start times and buckets, in order. */
export interface TierBuckets {
  t: number[];
  b: Bucket[];
}

/** 5-minute (`width` 5 min) or hourly (`width` 1 h) roll-ups of a series over [from, to). */
export function tierBuckets(ctx: ReadContext, s: SeriesInfo, from: number, to: number, width: number): TierBuckets {
  const out: TierBuckets = { t: [], b: [] };
  const cu = ctx.recent.compactedUntil;
  const push = (t: number, b: Bucket | undefined) => {
    if (b && t + width > from && t < to) {
      out.t.push(t);
      out.b.push(b);
    }
  };
  const packedTo = Math.min(to, cu);
  if (width === 5 * MINUTE) {
    for (let h = Math.floor(from / HOUR); h * HOUR < packedTo; h++) {
      const data = ctx.store.getChunk('5min', rowKey(h, s.id));
      if (!data) continue;
      decodeBuckets(data, 12).forEach((b, i) => {
        push(h * HOUR + i * width, b);
      });
    }
  } else {
    for (let d = Math.floor(from / DAY); d * DAY < packedTo; d++) {
      const data = ctx.store.getChunk('hourly', rowKey(d, s.id));
      if (!data) continue;
      // Slots at or after compacted_until belong to an hour being rolled up right now: memory has them.
      decodeBuckets(data, 24).forEach((b, i) => {
        if (d * DAY + i * HOUR < cu) push(d * DAY + i * HOUR, b);
      });
    }
  }
  if (to > cu) {
    // Up to now, a value reported this very millisecond included.
    const now = ctx.clock.now() + 1;
    const slots = Math.max(0, Math.ceil((Math.min(to, now) - cu) / width));
    const mem = ctx.recent.of(s.id) ?? { t: [], v: [] };
    rollUp(mem, ctx.recent.carry(s.id), cu, width, slots, now).forEach((b, i) => {
      push(cu + i * width, b);
    });
  }
  return out;
}

/** Energy (Wh) of a series per quarter hour over [from, to): start times and amounts. */
export function quarterAmounts(
  ctx: ReadContext,
  s: SeriesInfo,
  from: number,
  to: number,
): { t: number[]; wh: number[] } {
  const out = { t: [] as number[], wh: [] as number[] };
  const energy = s.energy;
  if (!energy) return out;
  const cu = ctx.recent.compactedUntil;
  const push = (t: number, a: number | undefined) => {
    if (a !== undefined && t >= from && t < to) {
      out.t.push(t);
      out.wh.push(a);
    }
  };
  for (let d = Math.floor(from / DAY); d * DAY < Math.min(to, cu); d++) {
    const data = ctx.store.getChunk('energy', rowKey(d, s.id));
    if (!data) continue;
    decodeAmounts(data, 96).forEach((a, i) => {
      if (d * DAY + i * QUARTER < cu) push(d * DAY + i * QUARTER, a);
    });
  }
  const mem = ctx.recent.of(s.id) ?? { t: [], v: [] };
  const carry = ctx.recent.carry(s.id);
  if (energy.role === 'counter') {
    // The rises of readings not rolled up yet, wherever they fall (before compacted_until too).
    const rises = [...counterRises(mem, carry, energy.toWh, QUARTER)].sort((a, b) => a[0] - b[0]);
    const merged = new Map<number, number>();
    for (let i = 0; i < out.t.length; i++) merged.set(out.t[i] as number, out.wh[i] as number);
    for (const [q, wh] of rises) if (q >= from && q < to) merged.set(q, (merged.get(q) ?? 0) + wh);
    const sorted = [...merged].sort((a, b) => a[0] - b[0]);
    return { t: sorted.map((x) => x[0]), wh: sorted.map((x) => x[1]) };
  }
  if (to > cu) {
    const now = ctx.clock.now() + 1;
    const slots = Math.max(0, Math.ceil((Math.min(to, now) - cu) / QUARTER));
    powerAmounts(mem, carry, cu, QUARTER, slots, energy.toWatts, now).forEach((a, i) => {
      push(cu + i * QUARTER, a);
    });
  }
  return out;
}

/** The first instant still held at each tier (values before it were pruned). */
export function horizons(ctx: ReadContext): { raw: number; fiveMinute: number; hourly: number } {
  const now = ctx.clock.now();
  const r = ctx.retention;
  const hourStart = (days: number) => Math.ceil((now - days * DAY) / HOUR) * HOUR;
  return {
    raw: hourStart(r.rawDays),
    fiveMinute: hourStart(r.fiveMinuteDays),
    hourly: r.hourlyDays > 0 ? Math.ceil((now - r.hourlyDays * DAY) / DAY) * DAY : Number.NEGATIVE_INFINITY,
  };
}
