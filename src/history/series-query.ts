/**
 * A device's values for one capability over a time range, at a resolution picked to fit the
 * points asked for: the raw values when they are few enough, else buckets of a round size
 * (1 minute to 7 days) read from the finest roll-up that still covers the whole range. Numbers
 * come as min/mean/max per bucket; states as the share of time in each value; presses as counts.
 * Columns, not rows: `t` (epoch ms) and one array per measure, as chart libraries take them.
 */
import type { Result } from '../catalog/index.ts';
import { fmt } from '../lib/format.ts';
import { range } from './arguments.ts';
import type { Bucket } from './codec.ts';
import type { SeriesKind } from './fields.ts';
import { horizons, type ReadContext, rawValues, tierBuckets } from './read.ts';
import { DAY, HOUR, MINUTE, mergeBuckets, rollUp } from './rollup.ts';
import type { SeriesInfo } from './series.ts';
import { EVENT_SEQ } from './store.ts';

export interface SeriesArgs {
  serial_number: string;
  capability: string;
  name?: string;
  field?: string;
  from: string;
  to?: string;
  points?: number;
}

type Scalar = number | string | boolean | null;

export interface SeriesAnswer {
  serial_number: string;
  device_name: string;
  capability: string;
  name: string | null;
  field: string;
  kind: SeriesKind;
  unit: string | null;
  from: number;
  to: number;
  /** `raw` (numbers), `changes` (states and presses), or the bucket size: `1m` .. `7d`. */
  resolution: string;
  bucket_ms: number | null;
  /** The value standing at `from`, for raw values and changes (null when none is known, and for buckets). */
  before: { t: number; value: Scalar } | null;
  t: number[];
  /** Raw values or changes; null where a device went offline. */
  value?: Scalar[];
  min?: (number | null)[];
  mean?: (number | null)[];
  max?: (number | null)[];
  /** Reports in each bucket. */
  n?: number[];
  /** States: the share (0..1) of each bucket spent in each value. */
  share?: Record<string, number[]>;
  /** Presses: how many of each kind in each bucket. */
  count?: Record<string, number[]>;
}

/** Bucket sizes, smallest first. */
export const RESOLUTIONS: readonly [string, number][] = [
  ['1m', MINUTE],
  ['5m', 5 * MINUTE],
  ['15m', 15 * MINUTE],
  ['30m', 30 * MINUTE],
  ['1h', HOUR],
  ['3h', 3 * HOUR],
  ['6h', 6 * HOUR],
  ['12h', 12 * HOUR],
  ['1d', DAY],
  ['7d', 7 * DAY],
];

const round6 = (x: number) => Math.round(x * 1e6) / 1e6;

/** The smallest round bucket size at least `ms`, and at least `floor`. */
function bucketSize(ms: number, floor = 0): [string, number] {
  return (
    RESOLUTIONS.find(([, w]) => w >= ms && w >= floor) ?? (RESOLUTIONS[RESOLUTIONS.length - 1] as [string, number])
  );
}

/** Bucket starts from `from` to `to`: multiples of the size, or local days (1d, 7d) in the zone. */
function bucketStarts(ctx: ReadContext, from: number, to: number, width: number): number[] {
  const out: number[] = [];
  if (width < DAY) {
    for (let t = Math.floor(from / width) * width; t < to; t += width) out.push(t);
    return out;
  }
  const days = width / DAY;
  for (let t = ctx.zone.startOfDay(from); t < to; t = ctx.zone.addDays(t, days)) out.push(t);
  return out;
}

/** The series the arguments name on a device, or the messages saying why there is none. */
export function resolveSeries(
  ctx: ReadContext,
  a: Pick<SeriesArgs, 'serial_number' | 'capability' | 'name' | 'field'>,
): Result<SeriesInfo> {
  const d = ctx.index.device(a.serial_number);
  if (!d) return { ok: false, errors: [`serial_number: ${fmt(a.serial_number)} has no history`] };
  let list = [...d.series.values()].filter((s) => s.capability === a.capability);
  if (list.length === 0)
    return { ok: false, errors: [`capability: ${fmt(a.capability)} has no history on this device`] };
  const names = [...new Set(list.map((s) => s.name))];
  if (a.name !== undefined) {
    if (names.length === 1 && names[0] === '')
      return { ok: false, errors: [`name: ${fmt(a.capability)} has no names`] };
    list = list.filter((s) => s.name === a.name);
    if (list.length === 0) return { ok: false, errors: [`name: ${fmt(a.name)} is not one of ${names.join(', ')}`] };
  } else if (names.length > 1) return { ok: false, errors: [`name: required (one of ${names.join(', ')})`] };
  const fields = list.map((s) => s.field);
  if (a.field !== undefined) {
    list = list.filter((s) => s.field === a.field);
    if (list.length === 0) return { ok: false, errors: [`field: ${fmt(a.field)} is not one of ${fields.join(', ')}`] };
  } else if (list.length > 1) return { ok: false, errors: [`field: required (one of ${fields.join(', ')})`] };
  return { ok: true, value: list[0] as SeriesInfo };
}

/** Answers a checked series query. */
export function querySeries(ctx: ReadContext, a: SeriesArgs, defaultPoints = 500): Result<SeriesAnswer> {
  const r = range(a.from, a.to, ctx.clock.now());
  if (!r.ok) return r;
  const s = resolveSeries(ctx, a);
  if (!s.ok) return s;
  const { from, to } = r.value;
  const points = a.points ?? defaultPoints;
  const series = s.value;
  const head = {
    serial_number: series.device.serial,
    device_name: series.device.name,
    capability: series.capability,
    name: series.name === '' ? null : series.name,
    field: series.field,
    kind: series.kind,
    unit: series.unit,
    from,
    to,
  };
  return {
    ok: true,
    value: {
      ...head,
      ...(series.kind === 'number' ? numbers(ctx, series, from, to, points) : states(ctx, series, from, to, points)),
    },
  };
}

type Body = Pick<
  SeriesAnswer,
  'resolution' | 'bucket_ms' | 'before' | 't' | 'value' | 'min' | 'mean' | 'max' | 'n' | 'share' | 'count'
>;

function numbers(ctx: ReadContext, s: SeriesInfo, from: number, to: number, points: number): Body {
  const hz = horizons(ctx);
  // Raw values when they are few enough (counted before decoding); all of them when buckets
  // under 5 minutes are wanted (those are made from raw values).
  const fine = (to - from) / points < 5 * MINUTE;
  const tryRaw = from >= hz.raw && (fine || reportsAtLeast(ctx, s, from, to) <= points);
  const raw = tryRaw ? rawValues(ctx, s, from, to, fine ? Number.POSITIVE_INFINITY : points) : undefined;
  if (raw && raw.samples.t.length <= points)
    return {
      resolution: 'raw',
      bucket_ms: null,
      before: raw.before && !Number.isNaN(raw.before.v) ? { t: raw.before.t, value: raw.before.v } : null,
      t: raw.samples.t,
      value: raw.samples.v.map((v) => (Number.isNaN(v) ? null : v)),
    };
  let [label, width] = bucketSize((to - from) / points);
  if (width < 5 * MINUTE && !raw) [label, width] = bucketSize(0, 5 * MINUTE);
  if (width < HOUR && width >= 5 * MINUTE && from < hz.fiveMinute) [label, width] = bucketSize(0, HOUR);
  const starts = bucketStarts(ctx, from, to, width);
  const lists: Bucket[][] = starts.map(() => []);
  if (width < 5 * MINUTE && raw) {
    const first = starts[0] ?? from;
    const buckets = rollUp(raw.samples, raw.before, first, width, starts.length, Math.min(to, ctx.clock.now() + 1));
    buckets.forEach((b, i) => {
      if (b) lists[i]?.push(b);
    });
  } else {
    const tier = tierBuckets(ctx, s, starts[0] ?? from, to, width < HOUR ? 5 * MINUTE : HOUR);
    let k = 0;
    for (let i = 0; i < tier.t.length; i++) {
      const t = tier.t[i] as number;
      while (k + 1 < starts.length && (starts[k + 1] as number) <= t) k++;
      if (t >= (starts[0] as number)) lists[k]?.push(tier.b[i] as Bucket);
    }
  }
  const out: Required<Pick<Body, 't' | 'min' | 'mean' | 'max' | 'n'>> = { t: [], min: [], mean: [], max: [], n: [] };
  lists.forEach((list, i) => {
    const b = mergeBuckets(list);
    if (!b) return;
    out.t.push(starts[i] as number);
    out.min.push(round6(b.min));
    out.mean.push(round6(b.mean));
    out.max.push(round6(b.max));
    out.n.push(b.n);
  });
  return { resolution: label, bucket_ms: width, before: null, ...out };
}

/**
 * At least how many reports a series has in [from, to), from the hourly roll-ups of the hours
 * wholly inside it (a row a day) and the values in memory: enough to know that the raw values
 * will not fit without reading them.
 */
function reportsAtLeast(ctx: ReadContext, s: SeriesInfo, from: number, to: number): number {
  const first = Math.ceil(from / HOUR) * HOUR;
  const last = Math.min(Math.floor(to / HOUR) * HOUR, ctx.recent.compactedUntil);
  let n = 0;
  if (last > first) {
    const hourly = tierBuckets(ctx, s, first, last, HOUR);
    for (const b of hourly.b) n += b.n;
  }
  const mem = ctx.recent.of(s.id);
  if (mem) for (const t of mem.t) if (t >= from && t < to) n++;
  return n;
}

function states(ctx: ReadContext, s: SeriesInfo, from: number, to: number, points: number): Body {
  const fromId = Number.isFinite(from) ? from * EVENT_SEQ : 0;
  const toId = to * EVENT_SEQ;
  const stored = ctx.store.seriesEvents(s.device.id, s.id, fromId, toId);
  const pending = ctx.recorder.pendingEvents().filter((e) => e.series === s.id);
  const changes = [...stored, ...pending.filter((e) => e.id >= fromId && e.id < toId)];
  const beforeRow =
    pending.filter((e) => e.id < fromId).at(-1) ?? ctx.store.seriesEventBefore(s.device.id, s.id, fromId);
  const parse = (v: string | null): Scalar => (v === null ? null : (JSON.parse(v) as Scalar));
  const before = beforeRow ? { t: Math.floor(beforeRow.id / EVENT_SEQ), value: parse(beforeRow.value) } : null;
  const t = changes.map((e) => Math.floor(e.id / EVENT_SEQ));
  const values = changes.map((e) => parse(e.value));
  if (changes.length <= points) return { resolution: 'changes', bucket_ms: null, before, t, value: values };
  const [label, width] = bucketSize((to - from) / points);
  const starts = bucketStarts(ctx, from, to, width);
  const ends = starts.map((x, i) => starts[i + 1] ?? Math.max(to, x + 1));
  const n = starts.map(() => 0);
  const per = new Map<string, number[]>();
  const column = (v: Scalar) => {
    const key = String(v);
    let c = per.get(key);
    if (!c) {
      c = starts.map(() => 0);
      per.set(key, c);
    }
    return c;
  };
  let k = 0;
  const slotOf = (x: number) => {
    while (k + 1 < starts.length && (starts[k + 1] as number) <= x) k++;
    return k;
  };
  if (s.kind === 'press') {
    t.forEach((x, i) => {
      const j = slotOf(x);
      (n[j] as number)++;
      (column(values[i] as Scalar)[j] as number)++;
    });
    return { resolution: label, bucket_ms: width, before, t: starts, n, count: Object.fromEntries(per) };
  }
  // States: each value stands until the next change (or now).
  const until = Math.min(to, ctx.clock.now() + 1);
  const spans: { a: number; b: number; v: Scalar }[] = [];
  let cur = before ? { a: starts[0] as number, v: before.value } : undefined;
  t.forEach((x, i) => {
    if (cur) spans.push({ a: cur.a, b: x, v: cur.v });
    cur = { a: x, v: values[i] as Scalar };
    (n[slotOf(x)] as number)++;
  });
  if (cur) spans.push({ a: cur.a, b: until, v: cur.v });
  k = 0;
  for (const span of spans) {
    for (let j = slotOf(span.a); j < starts.length && (starts[j] as number) < span.b; j++) {
      const a = Math.max(span.a, starts[j] as number);
      const b = Math.min(span.b, ends[j] as number);
      if (b > a) (column(span.v)[j] as number) += (b - a) / ((ends[j] as number) - (starts[j] as number));
    }
  }
  const share = Object.fromEntries([...per].map(([key, col]) => [key, col.map(round6)]));
  return { resolution: label, bucket_ms: width, before, t: starts, n, share };
}
