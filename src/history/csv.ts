/**
 * CSV exports (RFC 4180: comma-separated, CRLF, fields quoted when they hold a comma, a quote or a
 * line break) of a series, the logbook and energy, as lines produced one at a time so that a
 * route can stream a long export. Times are local, ISO 8601 with the zone's offset. A text that a
 * spreadsheet would run as a formula (`=`, `+`, `-`, `@` first) is written with a `'` before it:
 * device names come from anyone who can name a device.
 */
import type { EnergyAnswer } from './energy.ts';
import type { LogbookArgs, LogbookPage } from './logbook.ts';
import type { SeriesAnswer } from './series-query.ts';
import type { Calendar } from './zone.ts';

/** One CSV field. */
export function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = typeof v === 'string' ? v : typeof v === 'boolean' ? String(v) : JSON.stringify(v);
  if (typeof v === 'string' && /^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

const line = (fields: unknown[]) => `${fields.map(csvField).join(',')}\r\n`;

/** A series answer as CSV lines (a header first). */
export function* seriesCsv(a: SeriesAnswer, zone: Calendar): Generator<string> {
  if (a.value) {
    yield line(['time', a.field]);
    for (let i = 0; i < a.t.length; i++) yield line([zone.iso(a.t[i] as number), a.value[i]]);
    return;
  }
  if (a.min && a.mean && a.max && a.n) {
    yield line(['time', 'min', 'mean', 'max', 'reports']);
    for (let i = 0; i < a.t.length; i++)
      yield line([zone.iso(a.t[i] as number), a.min[i], a.mean[i], a.max[i], a.n[i]]);
    return;
  }
  const columns = a.share ?? a.count ?? {};
  const keys = Object.keys(columns).sort();
  yield line(['time', a.share ? 'changes' : 'presses', ...keys.map((k) => (a.share ? `share ${k}` : k))]);
  for (let i = 0; i < a.t.length; i++)
    yield line([zone.iso(a.t[i] as number), a.n?.[i], ...keys.map((k) => columns[k]?.[i])]);
}

/** The whole logbook the arguments select (every page) as CSV lines. */
export function* logbookCsv(read: (a: LogbookArgs) => LogbookPage, args: LogbookArgs): Generator<string> {
  yield line(['time', 'kind', 'serial_number', 'device', 'capability', 'name', 'field', 'value']);
  let page = read({ ...args, limit: 1000 });
  for (;;) {
    for (const e of page.entries)
      yield line([e.time, e.kind, e.serial_number, e.device_name, e.capability, e.name, e.field, e.value]);
    if (page.next === null) return;
    page = read({ ...args, limit: 1000, before: page.next });
  }
}

/** An energy answer as CSV lines. */
export function* energyCsv(a: EnergyAnswer): Generator<string> {
  yield line(['start', 'end', 'kwh']);
  for (const b of a.buckets) yield line([b.start, b.end, b.kwh]);
}
