/**
 * Energy: kWh per hour, day or month in the configured time zone, for the plugs and meters that
 * report energy or power. A device with a meter (a counter of energy) is counted by its meter; a
 * device that reports only its power, by its power over time (history.md says how). Days and
 * months are local: the day clocks go forward has 23 hours, the day they go back 25, and each
 * hour is its own bucket. Values are kept per quarter hour, so local hours line up in every zone.
 */
import type { Result } from '../catalog/index.ts';
import { fmt } from '../lib/format.ts';
import { range } from './arguments.ts';
import { quarterAmounts, type ReadContext } from './read.ts';
import { HOUR } from './rollup.ts';
import type { DeviceInfo, SeriesInfo } from './series.ts';

export interface EnergyArgs {
  serial_number?: string[];
  from: string;
  to?: string;
  period: 'hour' | 'day' | 'month';
}

export interface EnergyBucket {
  /** Epoch ms of the bucket's start, and its start and end in local time (ISO 8601 with the offset). */
  t: number;
  start: string;
  end: string;
  /** null: none of the devices reported anything in it. */
  kwh: number | null;
}

export interface EnergyAnswer {
  unit: 'kWh';
  time_zone: string;
  period: EnergyArgs['period'];
  buckets: EnergyBucket[];
  total_kwh: number;
  devices: { serial_number: string; name: string; source: 'meter' | 'power'; kwh: number }[];
}

/** Most buckets one answer holds (a year of hours is 8,784 at most). */
export const MAX_BUCKETS = 10_000;

const round3 = (x: number) => Math.round(x * 1000) / 1000;

/** The series a device is counted by: its meters when it has any, else its power. */
export function energySeries(d: DeviceInfo): { source: 'meter' | 'power'; series: SeriesInfo[] } | undefined {
  const all = [...d.series.values()];
  const meters = all.filter((s) => s.energy?.role === 'counter');
  if (meters.length > 0) return { source: 'meter', series: meters };
  const power = all.filter((s) => s.energy?.role === 'power');
  return power.length > 0 ? { source: 'power', series: power } : undefined;
}

/** Bucket starts covering [from, to), plus the end of the last; undefined when there would be too many. */
function starts(ctx: ReadContext, from: number, to: number, period: EnergyArgs['period']): number[] | undefined {
  const z = ctx.zone;
  const out: number[] = [];
  let t: number;
  let next: (x: number) => number;
  if (period === 'hour') {
    // The local hour holding `from` (zones half an hour off UTC start their hours on the half hour).
    t = from - ((((from + z.offset(from)) % HOUR) + HOUR) % HOUR);
    next = (x) => x + HOUR;
  } else if (period === 'day') {
    t = z.startOfDay(from);
    next = (x) => z.addDays(x, 1);
  } else {
    t = z.startOfMonth(from);
    next = (x) => z.addMonths(x, 1);
  }
  for (; t < to; t = next(t)) {
    out.push(t);
    if (out.length > MAX_BUCKETS) return undefined;
  }
  out.push(t);
  return out;
}

/** Answers a checked energy query. */
export function queryEnergy(ctx: ReadContext, a: EnergyArgs): Result<EnergyAnswer> {
  const r = range(a.from, a.to, ctx.clock.now());
  if (!r.ok) return r;
  const { from, to } = r.value;
  const devices: DeviceInfo[] = [];
  if (a.serial_number) {
    const errors: string[] = [];
    a.serial_number.forEach((serial, i) => {
      const d = ctx.index.device(serial);
      if (d) devices.push(d);
      else errors.push(`serial_number.${i}: ${fmt(serial)} has no history`);
    });
    if (errors.length > 0) return { ok: false, errors };
  } else devices.push(...ctx.index.devices());
  const edges = starts(ctx, from, to, a.period);
  if (!edges) return { ok: false, errors: [`period: more than ${MAX_BUCKETS} ${a.period}s from from to to`] };
  const sums: (number | null)[] = new Array(edges.length - 1).fill(null);
  const perDevice: EnergyAnswer['devices'] = [];
  const first = edges[0] as number;
  const last = edges[edges.length - 1] as number;
  for (const d of devices) {
    const plan = energySeries(d);
    if (!plan) continue;
    let total = 0;
    for (const s of plan.series) {
      const q = quarterAmounts(ctx, s, first, last);
      let k = 0;
      for (let i = 0; i < q.t.length; i++) {
        const t = q.t[i] as number;
        while (k + 1 < edges.length - 1 && (edges[k + 1] as number) <= t) k++;
        sums[k] = (sums[k] ?? 0) + (q.wh[i] as number);
        total += q.wh[i] as number;
      }
    }
    perDevice.push({ serial_number: d.serial, name: d.name, source: plan.source, kwh: round3(total / 1000) });
  }
  const buckets = sums.map((wh, i) => ({
    t: edges[i] as number,
    start: ctx.zone.iso(edges[i] as number),
    end: ctx.zone.iso(edges[i + 1] as number),
    kwh: wh === null ? null : round3(wh / 1000),
  }));
  const total = sums.reduce<number>((acc, wh) => acc + (wh ?? 0), 0);
  return {
    ok: true,
    value: {
      unit: 'kWh',
      time_zone: ctx.zone.name,
      period: a.period,
      buckets,
      total_kwh: round3(total / 1000),
      devices: perDevice,
    },
  };
}
