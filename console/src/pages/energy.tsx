/**
 * The Energy page: kWh of every plug and meter per hour of a day, per day of a month, or per month
 * of a year (in the gateway's time zone), as bars, with each device's share and the total; earlier
 * and later periods with the arrows; the same figures as CSV.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import uPlot from 'uplot';
import { api, wordsOf } from '../api.ts';

interface Energy {
  time_zone: string;
  period: 'hour' | 'day' | 'month';
  buckets: { t: number; start: string; end: string; kwh: number | null }[];
  total_kwh: number;
  devices: { serial_number: string; name: string; source: 'meter' | 'power'; kwh: number }[];
}

type View = 'day' | 'month' | 'year';
const VIEWS: readonly [View, string, Energy['period']][] = [
  ['day', 'Day', 'hour'],
  ['month', 'Month', 'day'],
  ['year', 'Year', 'month'],
];

/** The start and end of the view's period `offset` periods back from the current one (browser's calendar). */
function bounds(view: View, offset: number): [Date, Date] {
  const now = new Date();
  if (view === 'day') {
    const a = new Date(now.getFullYear(), now.getMonth(), now.getDate() + offset);
    return [a, new Date(a.getFullYear(), a.getMonth(), a.getDate() + 1)];
  }
  if (view === 'month') {
    const a = new Date(now.getFullYear(), now.getMonth() + offset, 1);
    return [a, new Date(a.getFullYear(), a.getMonth() + 1, 1)];
  }
  const a = new Date(now.getFullYear() + offset, 0, 1);
  return [a, new Date(a.getFullYear() + 1, 0, 1)];
}

function title(view: View, from: Date): string {
  if (view === 'day') return from.toLocaleDateString(undefined, { dateStyle: 'full' });
  if (view === 'month') return from.toLocaleDateString(undefined, { month: 'long', year: 'numeric' });
  return String(from.getFullYear());
}

const kwh = (x: number) => `${x.toLocaleString(undefined, { maximumFractionDigits: x < 10 ? 2 : 1 })} kWh`;

export function EnergyPage() {
  const [view, setView] = useState<View>('day');
  const [offset, setOffset] = useState(0);
  const [data, setData] = useState<Energy | null>(null);
  const [error, setError] = useState('');
  const [from, to] = bounds(view, offset);
  const period = (VIEWS.find((v) => v[0] === view) as (typeof VIEWS)[number])[2];
  const q = new URLSearchParams({ from: from.toISOString(), to: to.toISOString(), period });

  useEffect(() => {
    let alive = true;
    api<Energy>('GET', `/history/energy?${q}`)
      .then((r) => {
        if (!alive) return;
        setData(r);
        setError('');
      })
      .catch((err) => alive && setError(wordsOf(err)));
    return () => {
      alive = false;
    };
  }, [view, offset]);

  return (
    <main class="energy-page">
      <h1>Energy</h1>
      <div class="history-tools">
        <fieldset class="segmented" aria-label="Period">
          {VIEWS.map(([v, words]) => (
            <button
              key={v}
              type="button"
              class={view === v ? 'chosen' : ''}
              aria-pressed={view === v}
              onClick={() => {
                setView(v);
                setOffset(0);
              }}
            >
              {words}
            </button>
          ))}
        </fieldset>
        <fieldset class="segmented" aria-label="Earlier or later">
          <button type="button" aria-label="Earlier" onClick={() => setOffset(offset - 1)}>
            ◀
          </button>
          <button type="button" aria-label="Later" disabled={offset >= 0} onClick={() => setOffset(offset + 1)}>
            ▶
          </button>
        </fieldset>
        <a class="button" href={`/console/api/history/energy/csv?${q}`} download>
          CSV
        </a>
      </div>
      <h2 class="period">{title(view, from)}</h2>
      {error && <p class="error">{error}</p>}
      {data && (
        <>
          <p class="total">
            <strong>{kwh(data.total_kwh)}</strong> <span class="muted">in all</span>
          </p>
          {data.devices.length === 0 ? (
            <p class="empty">No plug or meter reported power or energy in this period.</p>
          ) : (
            <>
              <Bars data={data} />
              <table class="values energy-devices">
                <thead>
                  <tr>
                    <th>Device</th>
                    <th>Used</th>
                    <th>Share</th>
                  </tr>
                </thead>
                <tbody>
                  {data.devices
                    .slice()
                    .sort((a, b) => b.kwh - a.kwh)
                    .map((d) => (
                      <tr key={d.serial_number}>
                        <th>
                          <a href={`#/devices/${encodeURIComponent(d.serial_number)}`}>{d.name}</a>
                          <span class="muted"> {d.source === 'meter' ? '(meter)' : '(from its power)'}</span>
                        </th>
                        <td>{kwh(d.kwh)}</td>
                        <td>{data.total_kwh > 0 ? `${Math.round((d.kwh / data.total_kwh) * 100)}%` : '–'}</td>
                      </tr>
                    ))}
                </tbody>
              </table>
            </>
          )}
          <p class="muted">Days and months in the gateway's time zone ({data.time_zone}).</p>
        </>
      )}
    </main>
  );
}

/** The buckets as bars. */
function Bars({ data }: { data: Energy }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    let plot: uPlot | null = null;
    const draw = () => {
      plot?.destroy();
      el.textContent = '';
      const t = data.buckets.map((b) => b.t);
      const v = data.buckets.map((b) => b.kwh);
      const step = t.length > 1 ? (t[1] as number) - (t[0] as number) : 3_600_000;
      const last = data.buckets.at(-1);
      plot = new uPlot(
        {
          width: Math.floor(el.clientWidth),
          height: 220,
          ms: 1,
          legend: { show: false },
          cursor: { drag: { x: false, y: false }, points: { show: false } },
          scales: {
            x: { time: true, range: () => [(t[0] ?? 0) - step / 2, (last ? Date.parse(last.end) : 0) - step / 2] },
            y: { range: (_u, _min, max) => [0, Math.max(0.1, max * 1.1)] },
          },
          axes: [
            { stroke: '#5d6575', grid: { show: false } },
            { stroke: '#5d6575', grid: { stroke: '#eceef2' }, size: 70, values: (_u, s) => s.map((x) => `${x} kWh`) },
          ],
          series: [
            {},
            {
              label: 'kWh',
              stroke: '#1a64d6',
              fill: 'rgba(26, 100, 214, 0.55)',
              paths: uPlot.paths.bars?.({ size: [0.8, 60] }),
              points: { show: false },
            },
          ],
        },
        [t, v] as uPlot.AlignedData,
        el,
      );
    };
    draw();
    const ro = new ResizeObserver(() => {
      if (plot && Math.abs(plot.width - el.clientWidth) > 4) draw();
    });
    ro.observe(el);
    return () => {
      ro.disconnect();
      plot?.destroy();
    };
  }, [data]);
  return <div ref={box} class="plot energy-bars" data-period={data.period} />;
}
