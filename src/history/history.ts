/**
 * The history (issue 27): what happened, and when. It records every device's state changes and
 * the gateway's own events from the bus into the store (batched, rolled up, pruned: recorder.ts,
 * upkeep.ts), and answers queries: a device's values over a time range, the logbook, energy per
 * hour/day/month, CSV exports. Core-level: no HTTP; the routes and the console read it through the
 * methods below. docs/history.md says what is kept, how long, and what a kill -9 can lose.
 */
import { capabilityDef, type Result } from '../catalog/index.ts';
import { fmt } from '../lib/format.ts';
import { check, checkers } from './arguments.ts';
import { decodeBatch } from './codec.ts';
import { energyCsv, logbookCsv, seriesCsv } from './csv.ts';
import { type EnergyAnswer, type EnergyArgs, queryEnergy } from './energy.ts';
import { Logbook, type LogbookArgs, type LogbookPage } from './logbook.ts';
import type { HistoryOptions } from './ports.ts';
import type { ReadContext } from './read.ts';
import { Recent } from './recent.ts';
import { GATEWAY_EVENTS, Recorder } from './recorder.ts';
import { HOUR } from './rollup.ts';
import { SeriesIndex } from './series.ts';
import { querySeries, type SeriesAnswer, type SeriesArgs } from './series-query.ts';
import { EVENT_SEQ, HistoryStore } from './store.ts';
import { startTiming } from './timing.ts';
import { COMPACTED_UNTIL, Upkeep } from './upkeep.ts';
import { Calendar, hostTimeZone, isTimeZone } from './zone.ts';

/** A device whose history is kept, with what is recorded of it. */
export interface HistoryDeviceSummary {
  serial_number: string;
  name: string;
  /** When it was removed from the gateway, its history kept (epoch ms); null while it is there. */
  removed_at: number | null;
  series: { capability: string; name: string | null; field: string; kind: string; unit: string | null }[];
}

export interface Exclusion {
  serial_number: string;
  /** null: the whole device. */
  capability: string | null;
}

export interface HistoryStats {
  /** Values and logbook entries waiting for the next batch. */
  waiting: number;
  /** Values of the hour not rolled up yet (in memory). */
  recent: number;
  /** Values and entries dropped because the store kept refusing batches. */
  dropped: number;
  /** Every value before this instant (epoch ms) is rolled up. */
  compacted_until: number;
}

export class History {
  private readonly store: HistoryStore;
  private readonly index: SeriesIndex;
  private readonly recent: Recent;
  private readonly recorder: Recorder;
  private readonly upkeep: Upkeep;
  private readonly logbookReader: Logbook;
  private readonly ctx: ReadContext;
  private unsubscribe?: () => void;
  private started = false;

  /** Throws when the time zone is not one Intl knows (settings are checked before this). */
  constructor(private readonly opts: HistoryOptions) {
    const zoneName = opts.timeZone || hostTimeZone();
    if (!isTimeZone(zoneName)) throw new Error(`history: ${fmt(zoneName)} is not a time zone`);
    const zone = new Calendar(zoneName);
    const st = opts.settings;
    const retention = {
      rawDays: st.raw_days,
      fiveMinuteDays: st.five_minute_days,
      hourlyDays: st.hourly_days,
      logbookDays: st.logbook_days,
    };
    this.store = new HistoryStore(opts.db);
    this.index = new SeriesIndex(this.store, opts.log);
    this.recent = new Recent(Math.floor(opts.clock.now() / HOUR) * HOUR);
    this.recorder = new Recorder({
      store: this.store,
      index: this.index,
      recent: this.recent,
      devices: opts.devices,
      clock: opts.clock,
      log: opts.log,
      observe: opts.observe,
      batchMs: st.batch_seconds * 1000,
      mappers: { ...GATEWAY_EVENTS, ...opts.events },
    });
    this.upkeep = new Upkeep({
      store: this.store,
      index: this.index,
      recent: this.recent,
      recorder: this.recorder,
      clock: opts.clock,
      log: opts.log,
      observe: opts.observe,
      retention,
      defer: opts.defer ?? ((fn) => setImmediate(fn)),
    });
    this.ctx = {
      store: this.store,
      index: this.index,
      recent: this.recent,
      recorder: this.recorder,
      zone,
      clock: opts.clock,
      retention,
    };
    this.logbookReader = new Logbook(this.ctx);
  }

  /**
   * Reads what the store holds (the values of the hour not rolled up come back from their
   * batches), subscribes to the bus (unless `history.enabled` is off) and starts the hourly
   * upkeep, which first catches up on the hours missed while the gateway was stopped.
   */
  start(): void {
    if (this.started) return;
    this.started = true;
    const timing = startTiming();
    this.index.load();
    const batches = this.store.batches();
    const stored = this.store.meta(COMPACTED_UNTIL);
    if (stored !== undefined) this.recent.compactedUntil = stored;
    else {
      // The first start (or the first before any hour ended): nothing is rolled up before the first value.
      const first = batches.reduce((m, b) => Math.min(m, b.first), this.opts.clock.now());
      this.recent.compactedUntil = Math.floor(first / HOUR) * HOUR;
      this.store.setMeta(COMPACTED_UNTIL, this.recent.compactedUntil);
    }
    const cu = this.recent.compactedUntil;
    let count = 0;
    for (const b of batches) {
      if (b.last < cu) continue;
      const values = decodeBatch(b.data, b.first, { s: [], t: [], v: [] });
      for (let i = 0; i < values.s.length; i++) {
        const id = values.s[i] as number;
        const t = values.t[i] as number;
        if (t < cu || !this.index.seriesById(id)) continue;
        this.recent.add(id, t, values.v[i] as number);
        count++;
      }
    }
    this.upkeep.loadCarries();
    this.opts.observe?.({ kind: 'replay', count, ...timing() });
    if (this.opts.settings.enabled) {
      // The values that stood when the gateway last wrote something end there (a stop without a
      // kill wrote its own ends); what the devices hold now stands from now.
      this.recorder.gapAll(this.lastActive());
      this.unsubscribe = this.opts.bus.subscribe(this.recorder.onEvent);
      for (const d of this.opts.devices.list()) this.recorder.seed(d.serial_number);
    }
    this.upkeep.start();
  }

  /** The last time the store shows the gateway recording: its last batch, roll-up or logbook entry. */
  private lastActive(): number {
    let t = this.recent.compactedUntil;
    for (const id of this.recent.seriesBefore(Number.POSITIVE_INFINITY)) {
      const last = this.recent.last(id);
      if (last && last.t > t) t = last.t;
    }
    return Math.max(t, Math.floor(this.store.lastEventId() / EVENT_SEQ));
  }

  /** Stops recording, writes the batch under way, and waits for the upkeep step under way. */
  async stop(): Promise<void> {
    if (!this.started) return;
    this.started = false;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    if (this.opts.settings.enabled) this.recorder.gapAll(this.opts.clock.now());
    this.recorder.flush();
    await this.upkeep.stop();
    this.recorder.flush();
    this.recorder.stop();
  }

  /** Writes the batch under way now (tests; a graceful stop does it). */
  flush(): boolean {
    return this.recorder.flush();
  }

  /** Runs the upkeep now (roll-ups of ended hours, pruning, queued deletions); resolves when done. */
  maintain(): Promise<void> {
    return this.upkeep.run();
  }

  /** Resolves once no upkeep is running. */
  idle(): Promise<void> {
    return this.upkeep.idle();
  }

  stats(): HistoryStats {
    return {
      waiting: this.recorder.waiting,
      recent: this.recent.size,
      dropped: this.recorder.droppedCount,
      compacted_until: this.recent.compactedUntil,
    };
  }

  /** The time zone of days and months. */
  get timeZone(): string {
    return this.ctx.zone.name;
  }

  // ---- queries (arguments: arguments.ts) ----

  /** A device's values for a capability over a time range (SERIES_QUERY). */
  series(input: unknown): Result<SeriesAnswer> {
    const a = check<SeriesArgs>(checkers.series, input);
    return a.ok ? querySeries(this.ctx, a.value) : a;
  }

  /** The logbook, newest first, a page at a time (LOGBOOK_QUERY). */
  logbook(input: unknown): Result<LogbookPage> {
    const a = check<LogbookArgs>(checkers.logbook, input);
    return a.ok ? this.logbookReader.page(a.value) : a;
  }

  /** Energy per hour, day or month (ENERGY_QUERY). */
  energy(input: unknown): Result<EnergyAnswer> {
    const a = check<EnergyArgs>(checkers.energy, input);
    return a.ok ? queryEnergy(this.ctx, a.value) : a;
  }

  /** A series as CSV lines (SERIES_CSV_QUERY: the raw values when they number up to `points`, a million by default). */
  seriesCsv(input: unknown): Result<Iterable<string>> {
    const a = check<SeriesArgs>(checkers.seriesCsv, input);
    if (!a.ok) return a;
    const r = querySeries(this.ctx, a.value, 1_000_000);
    return r.ok ? { ok: true, value: seriesCsv(r.value, this.ctx.zone) } : r;
  }

  /** The logbook the arguments select, every page of it, as CSV lines (LOGBOOK_QUERY without paging). */
  logbookCsv(input: unknown): Result<Iterable<string>> {
    const a = check<LogbookArgs>(checkers.logbook, input);
    if (!a.ok) return a;
    const first = this.logbookReader.page({ ...a.value, limit: 1 });
    if (!first.ok) return first;
    const read = (x: LogbookArgs) => {
      const r = this.logbookReader.page(x);
      return r.ok ? r.value : { entries: [], next: null };
    };
    return { ok: true, value: logbookCsv(read, a.value) };
  }

  /** Energy as CSV lines (ENERGY_QUERY). */
  energyCsv(input: unknown): Result<Iterable<string>> {
    const r = this.energy(input);
    return r.ok ? { ok: true, value: energyCsv(r.value) } : r;
  }

  // ---- what is recorded ----

  /** Devices with a history (removed ones whose history was kept included), and their series. */
  devices(): HistoryDeviceSummary[] {
    return this.index.devices().map((d) => ({
      serial_number: d.serial,
      name: d.name,
      removed_at: d.removedAt,
      series: [...d.series.values()].map((s) => ({
        capability: s.capability,
        name: s.name || null,
        field: s.field,
        kind: s.kind,
        unit: s.unit,
      })),
    }));
  }

  exclusions(): Exclusion[] {
    return this.index.exclusions();
  }

  /** Leaves a device, or one capability of it, out of the history (EXCLUSION); stored when this returns. */
  exclude(input: unknown): Result<Exclusion[]> {
    const a = this.exclusionArgs(input);
    if (!a.ok) return a;
    this.index.exclude(a.value.serial_number, a.value.capability ?? '');
    this.recorder.excluded(a.value.serial_number, a.value.capability);
    return { ok: true, value: this.exclusions() };
  }

  /** Records a device (or one capability) again (EXCLUSION: without a capability, every exclusion of the device goes). */
  include(input: unknown): Result<Exclusion[]> {
    const a = this.exclusionArgs(input);
    if (!a.ok) return a;
    this.index.include(a.value.serial_number, a.value.capability);
    if (this.started && this.opts.settings.enabled) this.recorder.seed(a.value.serial_number);
    return { ok: true, value: this.exclusions() };
  }

  private exclusionArgs(input: unknown): Result<{ serial_number: string; capability?: string }> {
    const a = check<{ serial_number: string; capability?: string }>(checkers.exclusion, input);
    if (!a.ok) return a;
    const errors: string[] = [];
    const serial = a.value.serial_number;
    if (!this.opts.devices.get(serial) && !this.index.device(serial))
      errors.push(`serial_number: ${fmt(serial)} is not a device`);
    if (a.value.capability !== undefined && !capabilityDef(a.value.capability))
      errors.push(`capability: ${fmt(a.value.capability)} is not a capability`);
    return errors.length > 0 ? { ok: false, errors } : a;
  }

  /**
   * Deletes a device's whole history (FORGET): the choice a user makes when removing a device
   * (keeping it is the default: a removed device's history stays until its retention ends).
   * Resolves once every row is deleted; a device still there starts a new history.
   */
  async forget(input: unknown): Promise<Result<{ serial_number: string }>> {
    const a = check<{ serial_number: string }>(checkers.forget, input);
    if (!a.ok) return a;
    const d = this.index.device(a.value.serial_number);
    if (!d) return { ok: false, errors: [`serial_number: ${fmt(a.value.serial_number)} has no history`] };
    this.recorder.flush();
    await this.upkeep.enqueue(this.upkeep.forgetJob(d));
    return { ok: true, value: { serial_number: d.serial } };
  }

  /** Deletes the whole history and every exclusion (factory reset); resolves once every row is gone. */
  async clear(): Promise<void> {
    const now = this.opts.clock.now();
    this.recorder.clear();
    this.recent.clear();
    const hour = Math.floor(now / HOUR) * HOUR;
    this.store.transaction(() => {
      this.store.clearIndex();
      this.store.setMeta(COMPACTED_UNTIL, hour);
    });
    this.recent.compactedUntil = hour;
    this.index.reset();
    await this.upkeep.enqueue(this.upkeep.clearJob(now));
  }
}
