/**
 * The logbook: what happened, newest first, a page at a time, filtered by device, kind, capability
 * and time. Entries not written yet (the batch under way) are in it too: a door that just opened
 * is in the logbook at once. The `next` of a page is the cursor of the following (older) one.
 */
import type { Result } from '../catalog/index.ts';
import { fmt } from '../lib/format.ts';
import type { ReadContext } from './read.ts';
import { EVENT_SEQ, type EventRow } from './store.ts';

export interface LogbookArgs {
  from?: string;
  to?: string;
  serial_number?: string[];
  kind?: string[];
  capability?: string;
  before?: string;
  limit?: number;
}

export interface LogEntry {
  /** Its cursor (give it as `before` to read on from there). */
  id: string;
  /** Epoch ms. */
  t: number;
  /** Local time in the configured zone, ISO 8601 with its offset. */
  time: string;
  /** `state`, `press`, `online`, `added`, `renamed`, `removed`, `security`, `alarm`, `automation`, `notify`, or another kind a part records. */
  kind: string;
  serial_number: string | null;
  device_name: string | null;
  capability: string | null;
  name: string | null;
  field: string | null;
  value: unknown;
}

export interface LogbookPage {
  entries: LogEntry[];
  next: string | null;
}

interface Filter {
  devices?: number[];
  kinds?: string[];
  series?: number[];
}

export class Logbook {
  private readonly statements = new Map<string, { all(...args: unknown[]): EventRow[] }>();

  constructor(private readonly ctx: ReadContext) {}

  private statement(f: Filter) {
    const key = `${f.devices ? 'd' : ''}${f.kinds ? 'k' : ''}${f.series ? 's' : ''}`;
    let st = this.statements.get(key);
    if (!st) {
      const where = ['id >= ?', 'id < ?'];
      if (f.devices) where.push('device IN (SELECT value FROM json_each(?))');
      if (f.kinds) where.push('kind IN (SELECT value FROM json_each(?))');
      if (f.series) where.push('series IN (SELECT value FROM json_each(?))');
      st = this.ctx.store.db.prepare(
        `SELECT id, kind, device, series, value FROM history_events WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`,
      ) as unknown as { all(...args: unknown[]): EventRow[] };
      this.statements.set(key, st);
    }
    return st;
  }

  /** Answers a checked logbook query. */
  page(a: LogbookArgs): Result<LogbookPage> {
    const from = a.from === undefined ? undefined : Date.parse(a.from);
    const to = a.to === undefined ? undefined : Date.parse(a.to);
    if (from !== undefined && to !== undefined && to <= from)
      return { ok: false, errors: [`to: ${fmt(a.to)} is not after from ${fmt(a.from)}`] };
    const limit = a.limit ?? 100;
    const fromId = from === undefined ? 0 : Math.max(0, from * EVENT_SEQ);
    let toId = to === undefined ? Number.MAX_SAFE_INTEGER : Math.max(0, to * EVENT_SEQ);
    if (a.before !== undefined) toId = Math.min(toId, Number(a.before));
    const f: Filter = {};
    if (a.serial_number)
      f.devices = a.serial_number.map((s) => this.ctx.index.device(s)?.id).filter((x): x is number => x !== undefined);
    if (a.kind) f.kinds = a.kind;
    if (a.capability !== undefined) {
      const scope = f.devices ? f.devices.map((id) => this.ctx.index.deviceById(id)) : this.ctx.index.devices();
      f.series = scope
        .flatMap((d) => (d ? [...d.series.values()] : []))
        .filter((s) => s.capability === a.capability)
        .map((s) => s.id);
    }
    if ((f.devices && f.devices.length === 0) || (f.series && f.series.length === 0))
      return { ok: true, value: { entries: [], next: null } };
    const matches = (e: EventRow) =>
      e.id >= fromId &&
      e.id < toId &&
      (!f.devices || (e.device !== null && f.devices.includes(e.device))) &&
      (!f.kinds || f.kinds.includes(e.kind)) &&
      (!f.series || (e.series !== null && f.series.includes(e.series)));
    const rows = this.ctx.recorder.pendingEvents().filter(matches).reverse().slice(0, limit);
    if (rows.length < limit) {
      const args: unknown[] = [fromId, rows.length > 0 ? Math.min(toId, (rows.at(-1) as EventRow).id) : toId];
      if (f.devices) args.push(JSON.stringify(f.devices));
      if (f.kinds) args.push(JSON.stringify(f.kinds));
      if (f.series) args.push(JSON.stringify(f.series));
      args.push(limit - rows.length);
      rows.push(...this.statement(f).all(...args));
    }
    // Entries of a device being forgotten (deleted in steps) are out of sight already.
    const entries = rows
      .filter((e) => e.device === null || this.ctx.index.deviceById(e.device))
      .map((e) => this.entry(e));
    return { ok: true, value: { entries, next: rows.length === limit ? String((rows.at(-1) as EventRow).id) : null } };
  }

  /** An entry as served. */
  entry(e: EventRow): LogEntry {
    const t = Math.floor(e.id / EVENT_SEQ);
    const d = e.device === null ? undefined : this.ctx.index.deviceById(e.device);
    const s = e.series === null ? undefined : this.ctx.index.seriesById(e.series);
    let value: unknown = null;
    if (e.value !== null) {
      try {
        value = JSON.parse(e.value);
      } catch {
        value = e.value;
      }
    }
    return {
      id: String(e.id),
      t,
      time: this.ctx.zone.iso(t),
      kind: e.kind,
      serial_number: d?.serial ?? null,
      device_name: d?.name ?? null,
      capability: s?.capability ?? null,
      name: s ? s.name || null : null,
      field: s?.field ?? null,
      value,
    };
  }
}
