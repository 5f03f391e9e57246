/**
 * Recording: reads the bus and keeps what happened. Numbers go to the hour in memory and to the
 * next batch; states and presses, device online/offline, additions, renames and removals, security
 * modes and the alarm go to the logbook. A batch is written in one transaction at most every
 * `batch_seconds` (the timer starts with the first value after a write): a kill -9 loses at most
 * the batch not yet written, and the store is never left half-written (SQLite's WAL).
 */
import { isObject } from '../lib/object.ts';
import { type BatchValues, encodeBatch } from './codec.ts';
import type { FieldPlan } from './fields.ts';
import type { EventMapper, HistoryOptions, LogbookInput } from './ports.ts';
import type { Recent } from './recent.ts';
import type { DeviceInfo, SeriesIndex, SeriesInfo } from './series.ts';
import { EVENT_SEQ, type EventRow, type HistoryStore } from './store.ts';
import { startTiming } from './timing.ts';

/** Values held for writing at most (a store that keeps failing does not eat the memory). */
const MAX_PENDING = 200_000;

/** The gateway's own events the logbook keeps besides the devices': security modes, the alarm, automations. */
export const GATEWAY_EVENTS: Readonly<Record<string, EventMapper>> = {
  'security#updateArmState': (data) => {
    const p = payloadOf(data);
    const detail = p && isObject(p.detail) ? p.detail : {};
    if (!p) return undefined;
    return { kind: 'security', value: { arm_state: p.arm_state, sid: detail.sid, name: detail.name } };
  },
  'bridge#updateAlarmState': (data) => {
    const p = payloadOf(data);
    return p ? { kind: 'alarm', value: p.alarm_state } : undefined;
  },
  // An automation's run: when it started and why; how it ended only when not as planned (a run
  // that finished is no news, one that failed or was stopped is).
  'automation#runStarted': (data) => {
    const p = payloadOf(data);
    return p && { kind: 'automation', value: { automation_id: p.automation_id, name: p.name, trigger: p.trigger } };
  },
  'automation#runFinished': (data) => {
    const p = payloadOf(data);
    if (!p || p.result === 'finished') return undefined;
    return {
      kind: 'automation',
      value: { automation_id: p.automation_id, name: p.name, result: p.result, reason: p.reason },
    };
  },
  'automation#notify': (data) => {
    const p = payloadOf(data);
    return p && { kind: 'notify', value: { automation_id: p.automation_id, name: p.name, message: p.message } };
  },
};

function payloadOf(data: unknown): Record<string, unknown> | undefined {
  return isObject(data) && isObject(data.payload) ? data.payload : undefined;
}

/** A device being recorded: how its reports are read, and its history entry (made on first use). */
interface RecordedDevice {
  caps: ReturnType<SeriesIndex['plan']>;
  info(): DeviceInfo;
}

export interface RecorderDeps extends Pick<HistoryOptions, 'devices' | 'clock' | 'log' | 'observe'> {
  store: HistoryStore;
  index: SeriesIndex;
  recent: Recent;
  batchMs: number;
  mappers: Readonly<Record<string, EventMapper>>;
}

export class Recorder {
  private pending: BatchValues = { s: [], t: [], v: [] };
  private events: EventRow[] = [];
  private lastEventId: number;
  /** The last state of each state series, as JSON (loaded from the logbook on first use). */
  private readonly states = new Map<number, string | null>();
  private cancelTimer?: () => void;
  private dropped = 0;
  private seeding = false;

  constructor(private readonly d: RecorderDeps) {
    this.lastEventId = d.store.lastEventId();
  }

  /** The bus listener. */
  readonly onEvent = (e: { name: string; data: unknown }): void => {
    const data = e.data;
    if (!isObject(data)) return;
    const serial = isObject(data.endpoint) ? data.endpoint.serial_number : undefined;
    switch (e.name) {
      case 'device#updateDeviceState':
        if (typeof serial === 'string' && isObject(data.payload)) this.state(serial, data.payload);
        return;
      case 'device#updateDeviceOnline':
        if (typeof serial === 'string' && isObject(data.payload)) this.online(serial, data.payload.online === true);
        return;
      case 'device#addDevice':
        if (isObject(data.payload)) this.added(data.payload);
        return;
      case 'device#updateDeviceInfo':
        if (typeof serial === 'string' && isObject(data.payload) && typeof data.payload.name === 'string')
          this.renamed(serial, data.payload.name);
        return;
      case 'device#deleteDevice':
        if (typeof serial === 'string') this.removed(serial);
        return;
    }
    const mapper = this.d.mappers[e.name];
    const entry = mapper?.(data);
    if (entry) this.logEntry(entry);
  };

  private now(): number {
    return this.d.clock.now();
  }

  /**
   * A device as recorded, or undefined when it is not (unknown, or left out). Its history entry is
   * made on first use: a device with nothing to record (a camera) gets none from a state report.
   */
  private deviceOf(serial: string): RecordedDevice | undefined {
    if (this.d.index.isExcluded(serial)) return undefined;
    const dev = this.d.devices.get(serial);
    if (!dev) return undefined;
    let info: DeviceInfo | undefined;
    return {
      caps: this.d.index.plan(dev.capabilities),
      info: () => {
        info ??= this.d.index.ensureDevice(serial, dev.name);
        return info;
      },
    };
  }

  /**
   * Records a state report. `seeding`: the report is the device's whole known state, read again
   * (after a gap): numbers that stand are not repeated, presses are not presses again.
   */
  private state(serial: string, payload: Record<string, unknown>, seeding = false): void {
    const dev = this.deviceOf(serial);
    if (!dev) return;
    const t = this.now();
    this.seeding = seeding;
    for (const capability in payload) {
      const body = payload[capability];
      const plan = dev.caps.get(capability);
      if (!plan || !isObject(body) || this.d.index.isExcluded(serial, capability)) continue;
      if (!plan.named) {
        this.fields(dev, capability, '', plan.fields(''), body, t);
        continue;
      }
      for (const name in body) {
        const fields = body[name];
        if (isObject(fields)) this.fields(dev, capability, name, plan.fields(name), fields, t);
      }
    }
    this.seeding = false;
  }

  private fields(
    dev: RecordedDevice,
    capability: string,
    name: string,
    plans: readonly FieldPlan[],
    body: Record<string, unknown>,
    t: number,
  ): void {
    for (const p of plans) {
      const value = body[p.field];
      if (value === undefined || (p.when && !p.when(body))) continue;
      const type = typeof value;
      if (p.kind === 'number' ? type !== 'number' || !Number.isFinite(value) : type === 'object') continue;
      if (this.seeding && p.kind === 'press') continue;
      const s = this.d.index.ensureSeries(dev.info(), capability, name, p);
      if (!s) continue;
      if (s.kind !== 'number') this.stateValue(s, value, t);
      else if (!this.seeding || this.d.recent.last(s.id)?.v !== value) this.sample(s, t, value as number);
    }
  }

  private sample(s: SeriesInfo, t: number, v: number): void {
    if (this.pending.s.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    this.queue(s.id, this.d.recent.add(s.id, t, v), v);
  }

  private queue(series: number, t: number, v: number): void {
    this.pending.s.push(series);
    this.pending.t.push(t);
    this.pending.v.push(v);
    this.arm();
  }

  private stateValue(s: SeriesInfo, value: unknown, t: number): void {
    const json = JSON.stringify(value);
    if (s.kind === 'state') {
      if (!this.states.has(s.id)) {
        const before = this.d.store.seriesEventBefore(s.device.id, s.id, Number.MAX_SAFE_INTEGER);
        this.states.set(s.id, before?.value ?? null);
      }
      if (this.states.get(s.id) === json) return;
      this.states.set(s.id, json);
    }
    this.push({ kind: s.kind, device: s.device.id, series: s.id, value: json }, t);
  }

  /** The last state recorded of a state series (JSON), as the recorder knows it. */
  lastState(series: number): string | null | undefined {
    return this.states.get(series);
  }

  private online(serial: string, online: boolean): void {
    const dev = this.deviceOf(serial);
    if (!dev) return;
    const t = this.now();
    if (!online) this.gaps(dev.info(), t);
    this.push({ kind: 'online', device: dev.info().id, series: null, value: JSON.stringify(online) }, t);
    // Back online with the values it had: no change is reported, yet they stand again.
    if (online) this.seed(serial);
  }

  /** Ends the values of a device's numeric series (of one capability): its last value no longer stands. */
  private gaps(d: DeviceInfo, t: number, capability?: string): void {
    for (const s of d.series.values()) {
      if (s.kind !== 'number' || (capability !== undefined && s.capability !== capability)) continue;
      const last = this.d.recent.last(s.id);
      if (last && !Number.isNaN(last.v)) this.sample(s, t, Number.NaN);
    }
  }

  /** The device's known state stands from now (after a gap: back online, recorded again, the gateway started). */
  seed(serial: string): void {
    const dev = this.d.devices.get(serial);
    if (dev?.online) this.state(serial, dev.state, true);
  }

  /** Ends every value at `t` (the gateway stops, or stopped at `t` without saying so). */
  gapAll(t: number): void {
    for (const d of this.d.index.devices()) {
      for (const s of d.series.values()) {
        if (s.kind !== 'number') continue;
        const last = this.d.recent.last(s.id);
        if (last && !Number.isNaN(last.v)) {
          const at = this.d.recent.add(s.id, Math.max(t, last.t), Number.NaN);
          this.queue(s.id, at, Number.NaN);
        }
      }
    }
  }

  /** Ends the values of a device (or one capability of it) left out of the history. */
  excluded(serial: string, capability?: string): void {
    const d = this.d.index.device(serial);
    if (d) this.gaps(d, this.now(), capability);
  }

  private added(device: Record<string, unknown>): void {
    const serial = device.serial_number;
    if (typeof serial !== 'string' || this.d.index.isExcluded(serial)) return;
    const name = typeof device.name === 'string' ? device.name : serial;
    const d = this.d.index.ensureDevice(serial, name);
    this.push({ kind: 'added', device: d.id, series: null, value: JSON.stringify(name) }, this.now());
    if (isObject(device.state)) this.state(serial, device.state);
  }

  private renamed(serial: string, name: string): void {
    const d = this.d.index.device(serial);
    if (!d || d.name === name || this.d.index.isExcluded(serial)) return;
    const from = d.name;
    this.d.index.ensureDevice(serial, name);
    this.push({ kind: 'renamed', device: d.id, series: null, value: JSON.stringify({ from, to: name }) }, this.now());
  }

  private removed(serial: string): void {
    const d = this.d.index.device(serial);
    if (!d || this.d.index.isExcluded(serial)) return;
    const t = this.now();
    this.gaps(d, t);
    this.d.index.markRemoved(d, t);
    this.push({ kind: 'removed', device: d.id, series: null, value: JSON.stringify(d.name) }, t);
  }

  private logEntry(e: LogbookInput): void {
    let device: number | null = null;
    if (e.serial_number !== undefined) {
      const dev = this.deviceOf(e.serial_number);
      if (!dev && this.d.index.isExcluded(e.serial_number)) return;
      device = dev?.info().id ?? null;
    }
    this.push(
      { kind: e.kind, device, series: null, value: e.value === undefined ? null : JSON.stringify(e.value) },
      this.now(),
    );
  }

  private push(e: Omit<EventRow, 'id'>, t: number): void {
    if (this.events.length >= MAX_PENDING) {
      this.dropped++;
      return;
    }
    // Ids rise with time: the time in ms, then a sequence within the millisecond.
    const id = Math.max(t * EVENT_SEQ, this.lastEventId + 1);
    this.lastEventId = id;
    this.events.push({ id, ...e });
    this.arm();
  }

  private arm(): void {
    if (this.cancelTimer) return;
    this.cancelTimer = this.d.clock.setTimer(this.d.batchMs, () => {
      this.cancelTimer = undefined;
      this.flush();
    });
  }

  /** Logbook entries not written yet (newest last). */
  pendingEvents(): readonly EventRow[] {
    return this.events;
  }

  /** Values and entries waiting to be written. */
  get waiting(): number {
    return this.pending.s.length + this.events.length;
  }

  /** Values and entries left out because the store kept failing. */
  get droppedCount(): number {
    return this.dropped;
  }

  /** Writes the batch now, in one transaction; returns false when the store refused it (kept for the next try). */
  flush(): boolean {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.pending.s.length === 0 && this.events.length === 0 && !this.d.index.dirty) return true;
    const timing = startTiming();
    const batch = this.pending;
    const events = this.events;
    try {
      this.d.store.transaction(() => {
        this.d.index.write();
        if (batch.s.length > 0) {
          let first = Number.POSITIVE_INFINITY;
          let last = Number.NEGATIVE_INFINITY;
          for (const t of batch.t) {
            if (t < first) first = t;
            if (t > last) last = t;
          }
          this.d.store.putBatch(first, last, encodeBatch(batch, first));
        }
        for (const e of events) this.d.store.putEvent(e);
      });
    } catch (err) {
      this.d.log.error({ err, waiting: this.waiting }, 'history: a batch could not be written (kept for the next try)');
      this.arm();
      return false;
    }
    this.d.index.committed();
    this.pending = { s: [], t: [], v: [] };
    this.events = [];
    this.d.observe?.({ kind: 'flush', count: batch.s.length + events.length, ...timing() });
    return true;
  }

  /** Cancels the timer (the caller flushes first). */
  stop(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
  }

  /** Forgets what is held for a device being deleted. */
  forget(d: DeviceInfo): void {
    const ids = new Set([...d.series.values()].map((s) => s.id));
    this.events = this.events.filter((e) => e.device !== d.id);
    const keep = this.pending.s.map((s) => !ids.has(s));
    this.pending = {
      s: this.pending.s.filter((_, i) => keep[i]),
      t: this.pending.t.filter((_, i) => keep[i]),
      v: this.pending.v.filter((_, i) => keep[i]),
    };
    for (const id of ids) this.states.delete(id);
  }

  /** Forgets everything held (the history was cleared). */
  clear(): void {
    this.pending = { s: [], t: [], v: [] };
    this.events = [];
    this.states.clear();
  }
}
