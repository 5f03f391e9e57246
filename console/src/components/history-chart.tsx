/**
 * A device's history as charts (uPlot): a line for each numeric reading (the mean of each bucket
 * with its min and max as a band when the gateway answers buckets), bars for on/off and
 * open/closed over time, ticks for presses and motion. 24 h / 7 d / 30 d / 1 y; pan with the
 * arrows, zoom by dragging across a chart (or with the buttons on a phone); every chart of the
 * device shows the same window, and each asks the gateway for about as many points as it is
 * wide, so a year is as quick as a day.
 */

import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import type { SeriesAnswer } from '../../../src/history/series-query.ts';
import { api, wordsOf } from '../api.ts';
import { humanize } from '../format.ts';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
export const RANGES: readonly [string, number][] = [
  ['24 h', DAY],
  ['7 d', 7 * DAY],
  ['30 d', 30 * DAY],
  ['1 y', 365 * DAY],
];

/** A series the gateway records of a device (GET /history/devices). */
export interface SeriesInfo {
  capability: string;
  name: string | null;
  field: string;
  kind: string;
  unit: string | null;
}

export interface HistoryDevice {
  serial_number: string;
  name: string;
  removed_at: number | null;
  series: SeriesInfo[];
}

/** The words of a series: its capability, and its channel or field when the device has several. */
export function seriesLabel(
  s: SeriesInfo,
  all: readonly SeriesInfo[],
  labels: Readonly<Record<string, string>> = {},
): string {
  const same = all.filter((o) => o.capability === s.capability && o.name === s.name);
  // The device page's own words for the capability and its channel ("Target temperature (manual
  // mode)", "Link quality"), so a chart is named as the control or reading above it is.
  const known = labels[`${s.capability}/${s.name ?? ''}`];
  const parts = known ? [known] : [humanize(s.capability), ...(s.name ? [s.name] : [])];
  if (same.length > 1 && s.field !== s.capability) parts.push(humanize(s.field));
  return parts.join(' · ');
}

/** Numbers first (the readings people look at), then states, then presses. */
const ORDER: Record<string, number> = { number: 0, state: 1, press: 2 };

/** Values that mean "nothing going on": the other value of a state is the one its bars show. */
const IDLE = new Set(['false', 'off', 'closed', 'close', 'clear', 'no', 'idle', 'normal', 'stopped', '0']);

const ACCENT = '#1a64d6';
const BAND = 'rgba(26, 100, 214, 0.14)';

/** A window of time: its end is now when `end` is null. */
interface Win {
  span: number;
  end: number | null;
}

/** The charts of one device's history, with the controls of their window. */
export function DeviceHistory({ serial, labels }: { serial: string; labels?: Readonly<Record<string, string>> }) {
  const [series, setSeries] = useState<SeriesInfo[] | null>(null);
  const [error, setError] = useState('');
  const [win, setWin] = useState<Win>({ span: DAY, end: null });
  useEffect(() => {
    let alive = true;
    api<{ devices: HistoryDevice[] }>('GET', '/history/devices')
      .then((r) => {
        if (!alive) return;
        const d = r.devices.find((x) => x.serial_number === serial);
        setSeries((d?.series ?? []).slice().sort((a, b) => (ORDER[a.kind] ?? 3) - (ORDER[b.kind] ?? 3)));
      })
      .catch((err) => alive && setError(wordsOf(err)));
    return () => {
      alive = false;
    };
  }, [serial]);

  if (error) return <p class="error">{error}</p>;
  if (!series) return <p class="muted">Loading the history…</p>;
  if (series.length === 0)
    return <p class="muted">Nothing recorded yet: values appear here once the device reports.</p>;
  const to = win.end ?? Date.now();
  const from = to - win.span;
  const pan = (dir: number) => {
    const end = Math.min(Date.now(), to + (dir * win.span) / 2);
    setWin({ span: win.span, end: end >= Date.now() - 1000 ? null : end });
  };
  const zoom = (factor: number) => {
    const mid = to - win.span / 2;
    const span = Math.max(10 * 60_000, Math.min(5 * 365 * DAY, win.span * factor));
    const end = Math.min(Date.now(), mid + span / 2);
    setWin({ span, end: win.end === null || end >= Date.now() - 1000 ? null : end });
  };
  return (
    <div class="history">
      <div class="history-tools">
        <fieldset class="segmented" aria-label="Time range">
          {RANGES.map(([label, span]) => (
            <button
              key={label}
              type="button"
              class={win.span === span && win.end === null ? 'chosen' : ''}
              aria-pressed={win.span === span && win.end === null}
              onClick={() => setWin({ span, end: null })}
            >
              {label}
            </button>
          ))}
        </fieldset>
        <fieldset class="segmented" aria-label="Pan and zoom">
          <button type="button" aria-label="Earlier" onClick={() => pan(-1)}>
            ◀
          </button>
          <button type="button" aria-label="Zoom in" onClick={() => zoom(0.5)}>
            +
          </button>
          <button type="button" aria-label="Zoom out" onClick={() => zoom(2)}>
            −
          </button>
          <button type="button" aria-label="Later" disabled={win.end === null} onClick={() => pan(1)}>
            ▶
          </button>
        </fieldset>
        <span class="muted window">{windowText(from, to)}</span>
      </div>
      {series.map((s) => (
        <Chart
          key={`${s.capability}/${s.name ?? ''}/${s.field}`}
          serial={serial}
          info={s}
          label={seriesLabel(s, series, labels)}
          from={from}
          to={to}
          onZoom={(a, b) => setWin({ span: Math.max(60_000, b - a), end: b >= Date.now() - 1000 ? null : b })}
        />
      ))}
    </div>
  );
}

/** `12 Mar 14:00 – 13 Mar 14:00` in the browser's words. */
function windowText(from: number, to: number): string {
  const f = (t: number) => new Date(t).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
  return `${f(from)} – ${f(to)}`;
}

interface ChartProps {
  serial: string;
  info: SeriesInfo;
  label: string;
  from: number;
  to: number;
  onZoom(from: number, to: number): void;
}

/** One series' chart: fetched for the window at about its width in points, redrawn when either changes. */
function Chart({ serial, info, label, from, to, onZoom }: ChartProps) {
  const box = useRef<HTMLDivElement>(null);
  const plot = useRef<uPlot | null>(null);
  const zoomRef = useRef(onZoom);
  zoomRef.current = onZoom;
  const [answer, setAnswer] = useState<SeriesAnswer | null>(null);
  const [error, setError] = useState('');
  const [width, setWidth] = useState(0);

  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const ro = new ResizeObserver(() => setWidth(Math.floor(el.clientWidth)));
    ro.observe(el);
    return () => ro.disconnect();
  }, []);

  // A window that ends now is fetched at the minute (charts that stay open keep close to now).
  const key = `${Math.round(from / 60_000)}:${Math.round(to / 60_000)}`;
  useEffect(() => {
    if (width === 0) return;
    let alive = true;
    const q = new URLSearchParams({
      serial_number: serial,
      capability: info.capability,
      field: info.field,
      from: new Date(from).toISOString(),
      to: new Date(to).toISOString(),
      points: String(Math.max(50, Math.min(1000, Math.round(width / 2)))),
    });
    if (info.name) q.set('name', info.name);
    api<SeriesAnswer>('GET', `/history/series?${q}`)
      .then((r) => {
        if (!alive) return;
        setAnswer(r);
        setError('');
      })
      .catch((err) => alive && setError(wordsOf(err)));
    return () => {
      alive = false;
    };
  }, [serial, info, key, width > 0 ? Math.round(width / 100) : 0]);

  useEffect(() => {
    const el = box.current;
    if (!el || !answer || width === 0) return;
    const made = build(answer, info, label, width);
    plot.current?.destroy();
    el.textContent = '';
    const hooks: uPlot.Hooks.Arrays = {
      setSelect: [
        (u) => {
          if (u.select.width < 8) return;
          const a = u.posToVal(u.select.left, 'x');
          const b = u.posToVal(u.select.left + u.select.width, 'x');
          u.setSelect({ left: 0, top: 0, width: 0, height: 0 }, false);
          zoomRef.current(a, b);
        },
      ],
    };
    plot.current = new uPlot({ ...made.opts, hooks }, made.data, el);
    return () => {
      plot.current?.destroy();
      plot.current = null;
    };
  }, [answer, width, info, label]);

  const empty = answer && answer.t.length === 0 && !answer.before;
  return (
    <figure class="chart" data-capability={info.capability} data-kind={info.kind}>
      <figcaption>
        <strong>{label}</strong>
        {shownUnit(info.unit).unit && <span class="muted"> ({shownUnit(info.unit).unit})</span>}
        {answer && <span class="muted resolution">{resolutionText(answer)}</span>}
      </figcaption>
      {error && <p class="error">{error}</p>}
      {empty && <p class="muted nothing">Nothing recorded in this window.</p>}
      <div ref={box} class="plot" />
    </figure>
  );
}

function resolutionText(a: SeriesAnswer): string {
  if (a.resolution === 'raw') return `${a.t.length} values`;
  if (a.resolution === 'changes') return a.t.length === 1 ? '1 change' : `${a.t.length} changes`;
  return `per ${a.resolution.replace(/m$/, ' min').replace(/h$/, ' h').replace(/d$/, ' d')}`;
}

/** A unit of hundredths (`0.01 W`, the catalog's) as people read it (`W`), with the factor of its values. */
export function shownUnit(unit: string | null): { unit: string | null; factor: number } {
  const m = unit ? /^0\.01 (.+)$/.exec(unit) : null;
  return m ? { unit: m[1] as string, factor: 0.01 } : { unit, factor: 1 };
}

/** An answer's numbers times `f` (hundredths of a watt as watts). */
function scaled(a: SeriesAnswer, f: number): SeriesAnswer {
  if (f === 1) return a;
  const m = (xs?: (number | null)[]) => xs?.map((x) => (x === null ? null : Math.round(x * f * 1000) / 1000));
  const v = <T,>(x: T): T | number => (typeof x === 'number' ? Math.round(x * f * 1000) / 1000 : x);
  return {
    ...a,
    before: a.before && { t: a.before.t, value: v(a.before.value) },
    value: a.value?.map(v),
    min: m(a.min),
    mean: m(a.mean),
    max: m(a.max),
  };
}

/** The uPlot options and data of an answer. */
function build(
  answer: SeriesAnswer,
  info: SeriesInfo,
  label: string,
  width: number,
): { opts: uPlot.Options; data: uPlot.AlignedData } {
  const a = answer.kind === 'number' ? scaled(answer, shownUnit(info.unit).factor) : answer;
  const base: uPlot.Options = {
    width,
    height: a.kind === 'number' ? 180 : 110,
    ms: 1,
    legend: { show: false },
    cursor: { drag: { x: true, y: false, setScale: false }, points: { show: a.kind === 'number' } },
    scales: { x: { time: true, range: () => [a.from, a.to] } },
    axes: [
      { stroke: '#5d6575', grid: { stroke: '#eceef2' }, ticks: { stroke: '#d9dde4' } },
      { stroke: '#5d6575', grid: { stroke: '#eceef2' }, ticks: { stroke: '#d9dde4' }, size: 60 },
    ],
    series: [{}],
  };
  const motion = /motion|occupancy|presence/.test(info.capability);
  if (a.kind === 'number')
    return numbers(
      a,
      label,
      base,
      /power|current/i.test(`${info.capability} ${info.field}`) && !/consumption/.test(info.capability),
    );
  if (a.kind === 'press' || motion) return ticks(a, label, base, motion);
  return states(a, label, base, info.capability);
}

/** Lines: the values as reported, or each bucket's mean with its min and max as a band. */
function numbers(a: SeriesAnswer, label: string, o: uPlot.Options, power: boolean) {
  if (a.mean) {
    o.series.push(
      { label, stroke: ACCENT, width: 2, spanGaps: false, points: { show: false } },
      { label: 'min', stroke: 'transparent', points: { show: false } },
      { label: 'max', stroke: 'transparent', points: { show: false } },
    );
    o.bands = [{ series: [3, 2], fill: BAND }];
    return { opts: o, data: [a.t, a.mean, a.min ?? [], a.max ?? []] as uPlot.AlignedData };
  }
  const t = [...a.t];
  const v = (a.value ?? []).map((x) => (typeof x === 'number' ? x : null));
  // The value standing at the start of the window, and the last one until its end.
  if (a.before && typeof a.before.value === 'number') {
    t.unshift(a.from);
    v.unshift(a.before.value);
  }
  if (v.length > 0 && v[v.length - 1] !== null && (t[t.length - 1] ?? 0) < a.to) {
    t.push(Math.min(a.to, Date.now()));
    v.push(v[v.length - 1] ?? null);
  }
  // Power stands until the next report (a heater on at 1 kW is reported once): steps, not slopes.
  const paths = power ? uPlot.paths.stepped?.({ align: 1 }) : undefined;
  o.series.push({
    label,
    stroke: ACCENT,
    width: 2,
    spanGaps: false,
    points: { show: v.length < 60 },
    ...(paths ? { paths } : {}),
  });
  return { opts: o, data: [t, v] as uPlot.AlignedData };
}

/** The active counterpart of an idle value, for a state seen only idle. */
const COUNTERPART: Record<string, string> = { false: 'true', off: 'on', closed: 'open', clear: 'detected' };

/** The value a state's bars show (on, open, detected...): the one that is not idle. */
function activeOf(values: readonly string[]): string {
  const first = values[0] ?? 'true';
  return values.find((v) => !IDLE.has(v.toLowerCase())) ?? COUNTERPART[first] ?? first;
}

/** Room for the words of a state axis. */
const axisSize = (words: readonly string[]) => Math.max(52, 14 + 7.5 * Math.max(...words.map((w) => w.length)));

/** A state's value in words: a contact's true is open (the catalog's meaning), another true is on. */
const yesWords = (v: string, capability = '') =>
  v === 'true'
    ? /contact/.test(capability)
      ? 'open'
      : 'on'
    : v === 'false'
      ? /contact/.test(capability)
        ? 'closed'
        : 'off'
      : v;

/** Bars: a state over time (filled while active), or each bucket's share of time in the active value. */
function states(a: SeriesAnswer, label: string, o: uPlot.Options, capability: string) {
  const bar = uPlot.paths.bars?.({ size: [0.9, 40], align: 1 });
  const step = uPlot.paths.stepped?.({ align: 1 });
  if (a.share) {
    const active = activeOf(Object.keys(a.share));
    const share = (a.share[active] ?? []).map((x) => Math.round(x * 1000) / 10);
    o.series.push({
      label: `${label}: ${yesWords(active, capability)}`,
      stroke: ACCENT,
      fill: BAND,
      paths: bar,
      points: { show: false },
    });
    o.scales = { ...o.scales, y: { range: [0, 100] } };
    (o.axes as uPlot.Axis[])[1] = { ...(o.axes as uPlot.Axis[])[1], values: (_u, s) => s.map((x) => `${x}%`) };
    return { opts: o, data: [a.t, share] as uPlot.AlignedData };
  }
  const raw = (a.value ?? []).map((x) => (x === null ? null : String(x)));
  const active = activeOf([...new Set(raw.filter((x): x is string => x !== null))]);
  const t = [...a.t];
  const v = raw.map((x) => (x === null ? null : x === active ? 1 : 0));
  if (a.before && a.before.value !== null) {
    t.unshift(a.from);
    v.unshift(String(a.before.value) === active ? 1 : 0);
  }
  if (v.length > 0 && v[v.length - 1] !== null) {
    t.push(Math.min(a.to, Date.now()));
    v.push(v[v.length - 1] ?? null);
  }
  o.series.push({ label, stroke: ACCENT, fill: 'rgba(26, 100, 214, 0.35)', paths: step, points: { show: false } });
  o.scales = { ...o.scales, y: { range: [0, 1.05] } };
  (o.axes as uPlot.Axis[])[1] = {
    ...(o.axes as uPlot.Axis[])[1],
    size: axisSize([yesWords(active, capability)]),
    splits: () => [0, 1],
    values: () => ['', yesWords(active, capability)],
  };
  return { opts: o, data: [t, v] as uPlot.AlignedData };
}

/** Ticks: a mark at each press (at the height of its kind) or each time motion was detected; counts per bucket as bars. */
function ticks(a: SeriesAnswer, label: string, o: uPlot.Options, motion: boolean) {
  if (a.count || a.share) {
    const per = a.count ?? {};
    const total = a.t.map((_, i) => Object.values(per).reduce((s, xs) => s + (xs[i] ?? 0), 0));
    const shares = a.share
      ? (a.share[activeOf(Object.keys(a.share))] ?? []).map((x) => Math.round(x * 1000) / 10)
      : total;
    o.series.push({
      label: motion && a.share ? `${label}: % of time detected` : `${label}: presses`,
      stroke: ACCENT,
      fill: BAND,
      paths: uPlot.paths.bars?.({ size: [0.9, 40], align: 1 }),
      points: { show: false },
    });
    return { opts: o, data: [a.t, shares] as uPlot.AlignedData };
  }
  const raw = (a.value ?? []).map((x) => (x === null ? null : String(x)));
  if (motion) {
    const active = activeOf([...new Set(raw.filter((x): x is string => x !== null))]);
    const v = raw.map((x) => (x === active ? 1 : null));
    o.series.push({ label, stroke: ACCENT, paths: () => null, points: { show: true, size: 9, fill: ACCENT } });
    o.scales = { ...o.scales, y: { range: [0, 2] } };
    (o.axes as uPlot.Axis[])[1] = { ...(o.axes as uPlot.Axis[])[1], splits: () => [1], values: () => ['motion'] };
    return { opts: o, data: [a.t, v] as uPlot.AlignedData };
  }
  const kinds = [...new Set(raw.filter((x): x is string => x !== null))].sort();
  const v = raw.map((x) => (x === null ? null : kinds.indexOf(x) + 1));
  o.series.push({ label, stroke: ACCENT, paths: () => null, points: { show: true, size: 9, fill: ACCENT } });
  o.scales = { ...o.scales, y: { range: [0, kinds.length + 1] } };
  (o.axes as uPlot.Axis[])[1] = {
    ...(o.axes as uPlot.Axis[])[1],
    size: axisSize(kinds.map((k) => humanize(k))),
    splits: () => kinds.map((_, i) => i + 1),
    values: () => kinds.map((k) => humanize(k)),
  };
  return { opts: o, data: [a.t, v] as uPlot.AlignedData };
}
