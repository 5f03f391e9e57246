/**
 * The history's tables (migration 8, src/store/migrations.ts): prepared statements and the key
 * scheme. Rows of packed values are keyed `period * 2^20 + series` (the hour or day since the
 * epoch), logbook entries `time in ms * 1024 + sequence`: both grow with time, so writes append and
 * pruning deletes from the start, without indexes on time.
 */
import type { Db } from '../store/db.ts';

/** Series ids fit in 20 bits of a row key. */
export const SERIES_SPACE = 2 ** 20;
export const MAX_SERIES = SERIES_SPACE - 1;
/** Logbook entries one millisecond can hold before the next ones move to the next millisecond. */
export const EVENT_SEQ = 1024;

export const rowKey = (period: number, series: number): number => period * SERIES_SPACE + series;

export type Tier = 'raw' | '5min' | 'hourly' | 'energy';
export const TIERS: readonly Tier[] = ['raw', '5min', 'hourly', 'energy'];
const TABLE: Readonly<Record<Tier, string>> = {
  raw: 'history_raw',
  '5min': 'history_5min',
  hourly: 'history_hourly',
  energy: 'history_energy',
};

export interface DeviceRow {
  id: number;
  serial_number: string;
  name: string;
  removed_at: number | null;
}

export interface SeriesRow {
  id: number;
  device: number;
  capability: string;
  name: string;
  field: string;
  kind: string;
  unit: string | null;
}

export interface EventRow {
  id: number;
  kind: string;
  device: number | null;
  series: number | null;
  value: string | null;
}

export interface BatchRow {
  id: number;
  first: number;
  last: number;
  data: Buffer;
}

export class HistoryStore {
  private readonly s;
  private readonly chunkGet: Record<Tier, { get(key: number): { data: Buffer } | undefined }>;
  private readonly chunkPut: Record<Tier, { run(key: number, data: Buffer): unknown }>;
  private readonly chunkNth: Record<Tier, { get(before: number, offset: number): { id: number } | undefined }>;
  private readonly chunkDeleteTo: Record<Tier, { run(upTo: number): { changes: number } }>;
  private readonly chunkIds: Record<Tier, { all(from: number, to: number): { id: number }[] }>;
  private readonly chunkDelete: Record<Tier, { run(key: number): { changes: number } }>;
  private readonly chunkEdge: Record<
    Tier,
    { first: { get(): { id: number } | undefined }; last: { get(): { id: number } | undefined } }
  >;

  constructor(readonly db: Db) {
    this.s = {
      meta: db.prepare<[string], { value: number }>('SELECT value FROM history_meta WHERE key = ?'),
      setMeta: db.prepare<[string, number]>(
        'INSERT INTO history_meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      ),
      devices: db.prepare<[], DeviceRow>('SELECT id, serial_number, name, removed_at FROM history_devices'),
      putDevice: db.prepare<[number, string, string, number | null]>(
        `INSERT INTO history_devices (id, serial_number, name, removed_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET name = excluded.name, removed_at = excluded.removed_at`,
      ),
      deleteDevice: db.prepare<[number]>('DELETE FROM history_devices WHERE id = ?'),
      series: db.prepare<[], SeriesRow>('SELECT id, device, capability, name, field, kind, unit FROM history_series'),
      putSeries: db.prepare<[number, number, string, string, string, string, string | null]>(
        'INSERT OR IGNORE INTO history_series (id, device, capability, name, field, kind, unit) VALUES (?, ?, ?, ?, ?, ?, ?)',
      ),
      exclusions: db.prepare<[], { serial_number: string; capability: string }>(
        'SELECT serial_number, capability FROM history_exclusions ORDER BY serial_number, capability',
      ),
      exclude: db.prepare<[string, string]>(
        'INSERT OR IGNORE INTO history_exclusions (serial_number, capability) VALUES (?, ?)',
      ),
      include: db.prepare<[string, string]>(
        'DELETE FROM history_exclusions WHERE serial_number = ? AND capability = ?',
      ),
      includeAll: db.prepare<[string]>('DELETE FROM history_exclusions WHERE serial_number = ?'),
      putBatch: db.prepare<[number, number, Buffer]>(
        'INSERT INTO history_batches (first, last, data) VALUES (?, ?, ?)',
      ),
      batches: db.prepare<[], BatchRow>('SELECT id, first, last, data FROM history_batches ORDER BY id'),
      deleteBatches: db.prepare<[number]>('DELETE FROM history_batches WHERE last < ?'),
      putEvent: db.prepare<[number, string, number | null, number | null, string | null]>(
        'INSERT INTO history_events (id, kind, device, series, value) VALUES (?, ?, ?, ?, ?)',
      ),
      lastEvent: db.prepare<[], { id: number }>('SELECT id FROM history_events ORDER BY id DESC LIMIT 1'),
      eventNth: db.prepare<[number, number], { id: number }>(
        'SELECT id FROM history_events WHERE id < ? ORDER BY id LIMIT 1 OFFSET ?',
      ),
      deleteEventsTo: db.prepare<[number]>('DELETE FROM history_events WHERE id <= ?'),
      deviceEventNth: db.prepare<[number, number], { id: number }>(
        'SELECT id FROM history_events WHERE device = ? ORDER BY id LIMIT 1 OFFSET ?',
      ),
      deleteDeviceEventsTo: db.prepare<[number, number]>('DELETE FROM history_events WHERE device = ? AND id <= ?'),
      deviceSeriesEvents: db.prepare<[number, number, number, number], { id: number; value: string | null }>(
        'SELECT id, value FROM history_events WHERE device = ? AND id >= ? AND id < ? AND series = ? ORDER BY id',
      ),
      seriesEventBefore: db.prepare<[number, number, number], { id: number; value: string | null }>(
        'SELECT id, value FROM history_events WHERE device = ? AND id < ? AND series = ? ORDER BY id DESC LIMIT 1',
      ),
      seriesEventCount: db.prepare<[number, number, number, number], { n: number }>(
        'SELECT count(*) AS n FROM history_events WHERE device = ? AND id >= ? AND id < ? AND series = ?',
      ),
      deleteSeriesOf: db.prepare<[number]>('DELETE FROM history_series WHERE device = ?'),
      deleteLastOf: db.prepare<[number]>(
        'DELETE FROM history_last WHERE series IN (SELECT id FROM history_series WHERE device = ?)',
      ),
      lasts: db.prepare<[], { series: number; t: number; v: number | null }>('SELECT series, t, v FROM history_last'),
      putLast: db.prepare<[number, number, number | null]>(
        'INSERT INTO history_last (series, t, v) VALUES (?, ?, ?) ON CONFLICT(series) DO UPDATE SET t = excluded.t, v = excluded.v',
      ),
    };
    const each = <T>(fn: (table: string) => T) =>
      Object.fromEntries(TIERS.map((t) => [t, fn(TABLE[t])])) as Record<Tier, T>;
    this.chunkGet = each((t) => db.prepare<[number], { data: Buffer }>(`SELECT data FROM ${t} WHERE id = ?`));
    this.chunkPut = each((t) => db.prepare<[number, Buffer]>(`INSERT OR REPLACE INTO ${t} (id, data) VALUES (?, ?)`));
    this.chunkNth = each((t) =>
      db.prepare<[number, number], { id: number }>(`SELECT id FROM ${t} WHERE id < ? ORDER BY id LIMIT 1 OFFSET ?`),
    );
    this.chunkDeleteTo = each((t) => db.prepare<[number]>(`DELETE FROM ${t} WHERE id <= ?`));
    this.chunkEdge = each((t) => ({
      first: db.prepare<[], { id: number }>(`SELECT id FROM ${t} ORDER BY id LIMIT 1`),
      last: db.prepare<[], { id: number }>(`SELECT id FROM ${t} ORDER BY id DESC LIMIT 1`),
    }));
    this.chunkDelete = each((t) => db.prepare<[number]>(`DELETE FROM ${t} WHERE id = ?`));
    this.chunkIds = each((t) =>
      db.prepare<[number, number], { id: number }>(`SELECT id FROM ${t} WHERE id >= ? AND id < ? ORDER BY id`),
    );
  }

  /** Deletes every device, series, last value, exclusion and batch (the history is being cleared). */
  clearIndex(): void {
    this.db.exec(
      'DELETE FROM history_last; DELETE FROM history_series; DELETE FROM history_devices; DELETE FROM history_exclusions; DELETE FROM history_batches',
    );
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  meta(key: string): number | undefined {
    return this.s.meta.get(key)?.value;
  }

  setMeta(key: string, value: number): void {
    this.s.setMeta.run(key, value);
  }

  devices(): DeviceRow[] {
    return this.s.devices.all();
  }

  /** Inserts or updates a device (its name, whether it was removed). */
  putDevice(d: DeviceRow): void {
    this.s.putDevice.run(d.id, d.serial_number, d.name, d.removed_at);
  }

  /** Deletes a device and its series (not their values: those are deleted first, in steps). */
  deleteDevice(id: number): void {
    this.s.deleteLastOf.run(id);
    this.s.deleteSeriesOf.run(id);
    this.s.deleteDevice.run(id);
  }

  series(): SeriesRow[] {
    return this.s.series.all();
  }

  putSeries(r: SeriesRow): void {
    this.s.putSeries.run(r.id, r.device, r.capability, r.name, r.field, r.kind, r.unit);
  }

  exclusions(): { serial_number: string; capability: string }[] {
    return this.s.exclusions.all();
  }

  exclude(serial: string, capability: string): void {
    this.s.exclude.run(serial, capability);
  }

  include(serial: string, capability: string | undefined): void {
    if (capability === undefined) this.s.includeAll.run(serial);
    else this.s.include.run(serial, capability);
  }

  /** Each series' last value of the hours rolled up (NaN: a gap). */
  lastValues(): { series: number; t: number; v: number }[] {
    return this.s.lasts.all().map((r) => ({ series: r.series, t: r.t, v: r.v ?? Number.NaN }));
  }

  putLast(series: number, t: number, v: number): void {
    this.s.putLast.run(series, t, Number.isNaN(v) ? null : v);
  }

  putBatch(first: number, last: number, data: Buffer): void {
    this.s.putBatch.run(first, last, data);
  }

  batches(): BatchRow[] {
    return this.s.batches.all();
  }

  /** Deletes the batches whose every value is older than `t` (they are rolled up). */
  deleteBatchesBefore(t: number): void {
    this.s.deleteBatches.run(t);
  }

  putEvent(e: EventRow): void {
    this.s.putEvent.run(e.id, e.kind, e.device, e.series, e.value);
  }

  lastEventId(): number {
    return this.s.lastEvent.get()?.id ?? 0;
  }

  /** Events of one state series of a device in [fromId, toId). */
  seriesEvents(device: number, series: number, fromId: number, toId: number): { id: number; value: string | null }[] {
    return this.s.deviceSeriesEvents.all(device, fromId, toId, series);
  }

  seriesEventCount(device: number, series: number, fromId: number, toId: number): number {
    return this.s.seriesEventCount.get(device, fromId, toId, series)?.n ?? 0;
  }

  /** The last event of a state series before `beforeId`. */
  seriesEventBefore(
    device: number,
    series: number,
    beforeId: number,
  ): { id: number; value: string | null } | undefined {
    return this.s.seriesEventBefore.get(device, beforeId, series);
  }

  getChunk(tier: Tier, key: number): Buffer | undefined {
    return this.chunkGet[tier].get(key)?.data;
  }

  putChunk(tier: Tier, key: number, data: Buffer): void {
    this.chunkPut[tier].run(key, data);
  }

  /** Row keys of a tier in [from, to). */
  chunkKeys(tier: Tier, from: number, to: number): number[] {
    return this.chunkIds[tier].all(from, to).map((r) => r.id);
  }

  /** The first or last row key of a tier. */
  edgeKey(tier: Tier, which: 'first' | 'last'): number | undefined {
    return this.chunkEdge[tier][which].get()?.id;
  }

  /** Deletes at most `limit` rows of a tier keyed below `before`; returns how many. */
  pruneChunks(tier: Tier, before: number, limit: number): number {
    const nth = this.chunkNth[tier].get(before, limit - 1);
    return this.chunkDeleteTo[tier].run(nth ? nth.id : before - 1).changes;
  }

  /** Deletes the given row keys of a tier. */
  deleteChunks(tier: Tier, keys: readonly number[]): number {
    let n = 0;
    for (const k of keys) n += this.chunkDelete[tier].run(k).changes;
    return n;
  }

  /** Deletes at most `limit` logbook entries older than `beforeId`; returns how many. */
  pruneEvents(beforeId: number, limit: number): number {
    const nth = this.s.eventNth.get(beforeId, limit - 1);
    return this.s.deleteEventsTo.run(nth ? nth.id : beforeId - 1).changes;
  }

  /** Deletes at most `limit` logbook entries of a device; returns how many. */
  deleteDeviceEvents(device: number, limit: number): number {
    const nth = this.s.deviceEventNth.get(device, limit - 1);
    if (nth) return this.s.deleteDeviceEventsTo.run(device, nth.id).changes;
    return this.s.deleteDeviceEventsTo.run(device, Number.MAX_SAFE_INTEGER).changes;
  }
}
