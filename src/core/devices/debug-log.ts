/**
 * The debug log of third-party devices (`GET thirdparty/debug-log/{serial}`, COMPAT.md "seen in
 * clients"): for each third-party device, the last directives the gateway sent it (with their
 * outcome and latency) and the last events its service sent about it (T1). It lives in memory
 * only, bounded per device and in all (a home of 10,000 devices must not hold 100 entries of
 * each: the oldest entries of any device go first), and a device's log goes with the device: it
 * serves a developer looking at an integration now, not an audit trail. An entry keeps its
 * payload as JSON text and its time as a number (a fraction of the objects they were made from).
 */
import { eventErrorType } from '../../catalog/errors.ts';
import { isObject } from '../../lib/object.ts';
import type { EventBus } from '../event-bus.ts';
import type { DeviceRecord, DriverCommand, Outcome } from './contract.ts';
import type { DeviceEventInbox, InboundEvent, InboundResult } from './inbox.ts';
import type { CommandObserver } from './service.ts';

/** Entries kept per device and per kind of log; the oldest go first. */
export const DEBUG_LOG_SIZE = 100;
/** Bytes the entries of every device may take in all (about); past it, the oldest of any device go first. */
export const DEBUG_LOG_BYTES = 8 * 1024 * 1024;
/** What one entry costs besides its texts (the record, its numbers, the queue slot), in bytes. */
const ENTRY_OVERHEAD = 120;
/** A payload larger than this (as JSON) is kept as its size only. */
const MAX_PAYLOAD_CHARS = 2048;

/** The directive each command kind is sent as (spec 4.5); a removal sends none. */
const DIRECTIVES: Readonly<Record<Exclude<DriverCommand['kind'], 'remove'>, string>> = {
  'update-state': 'UpdateDeviceStates',
  'query-state': 'QueryDeviceStates',
  configure: 'ConfigureDeviceCapabilities',
};

export type DebugLogType = 'directive_log' | 'event_log';

/** One entry as served. `index` rises per device and log, from 0, and is never reused. */
export interface DebugLogEntry {
  index: number;
  /** When it happened (gateway clock), ISO 8601. */
  time: string;
  /** The directive (`UpdateDeviceStates`...) or the event (`DeviceStatesChangeReport`...). */
  name: string;
  payload: unknown;
  /** `success`, or why not: `error` (the device or service refused), `timeout`, `fault`. */
  result: 'success' | 'error' | 'timeout' | 'fault';
  /** The error code and message (directives) or type and description (events). */
  error?: { code?: number; type?: string; message: string };
  /** Directives: milliseconds from sending to the answer. */
  latency_ms?: number;
}

/** An entry as kept: its payload as JSON, its time as epoch ms (turned into the served entry on read). */
interface KeptEntry {
  index: number;
  at: number;
  name: string;
  payload: string;
  result: DebugLogEntry['result'];
  error?: DebugLogEntry['error'];
  latency_ms?: number;
  /** Bytes counted for it (DEBUG_LOG_BYTES). */
  bytes: number;
  /** Set once it is no longer kept (the global queue may still name it). */
  gone?: true;
}

interface Kept {
  entries: KeptEntry[];
  next: number;
}

export interface DebugLogQuery {
  type: DebugLogType;
  limit: number;
  fromIndex?: number;
  /** Epoch milliseconds, inclusive. */
  start?: number;
  end?: number;
}

/** The payload as kept: its JSON, or its size only when larger than MAX_PAYLOAD_CHARS. */
function bounded(payload: unknown): string {
  const json = JSON.stringify(payload ?? {});
  return json.length > MAX_PAYLOAD_CHARS ? JSON.stringify({ truncated: true, chars: json.length }) : json;
}

export class DeviceDebugLog implements CommandObserver {
  private readonly logs = new Map<string, Record<DebugLogType, Kept>>();
  /** Every kept entry of every device, oldest first (with entries gone since, skipped). */
  private queue: { kept: Kept; entry: KeptEntry }[] = [];
  private head = 0;
  private bytes = 0;
  private count = 0;

  constructor(
    private readonly now: () => number,
    private readonly isThirdParty: (serial: string) => boolean,
    bus?: EventBus,
    private readonly maxBytes = DEBUG_LOG_BYTES,
  ) {
    bus?.subscribe((e) => {
      if (e.name === 'device#deleteDevice') {
        const serial = (e.data as { endpoint?: { serial_number?: string } }).endpoint?.serial_number;
        const both = serial === undefined ? undefined : this.logs.get(serial);
        if (!both || serial === undefined) return;
        for (const kept of Object.values(both)) for (const entry of kept.entries) this.drop(entry);
        this.logs.delete(serial);
      }
    });
  }

  /** Bytes the kept entries take (about), for tests and metrics. */
  get keptBytes(): number {
    return this.bytes;
  }

  private add(
    serial: string,
    type: DebugLogType,
    entry: Omit<KeptEntry, 'index' | 'at' | 'bytes' | 'payload'> & { payload: string },
  ): void {
    if (!this.isThirdParty(serial)) return;
    let both = this.logs.get(serial);
    if (!both) {
      both = { directive_log: { entries: [], next: 0 }, event_log: { entries: [], next: 0 } };
      this.logs.set(serial, both);
    }
    const log = both[type];
    const bytes = entry.payload.length + entry.name.length + (entry.error?.message.length ?? 0) + ENTRY_OVERHEAD;
    const kept: KeptEntry = { index: log.next++, at: this.now(), bytes, ...entry };
    log.entries.push(kept);
    this.queue.push({ kept: log, entry: kept });
    this.bytes += bytes;
    this.count++;
    if (log.entries.length > DEBUG_LOG_SIZE) this.drop(log.entries.shift() as KeptEntry);
    while (this.bytes > this.maxBytes && this.head < this.queue.length) {
      const oldest = this.queue[this.head++] as { kept: Kept; entry: KeptEntry };
      if (oldest.entry.gone) continue;
      // The oldest entry of all is the oldest of its own log.
      if (oldest.kept.entries[0] === oldest.entry) oldest.kept.entries.shift();
      this.drop(oldest.entry);
    }
    // The queue names entries gone since (by the count per device, a device removed): compact it
    // once they are most of it.
    if (this.head > 1024 && this.head * 2 > this.queue.length) this.compact();
    else if (this.queue.length - this.head > 2 * this.count + 1024) this.compact();
  }

  private drop(entry: KeptEntry): void {
    if (entry.gone) return;
    entry.gone = true;
    this.bytes -= entry.bytes;
    this.count--;
  }

  private compact(): void {
    this.queue = this.queue.slice(this.head).filter((q) => !q.entry.gone);
    this.head = 0;
  }

  commandDone(command: DriverCommand, outcome: Outcome | { ok: false; fault: true }, ms: number): void {
    if (command.kind === 'remove') return;
    const payload =
      command.kind === 'update-state'
        ? { state: command.state }
        : command.kind === 'query-state'
          ? { state: command.query }
          : { capabilities: command.capabilities };
    const base = { name: DIRECTIVES[command.kind], payload: bounded(payload), latency_ms: ms };
    if (outcome.ok) this.add(command.device.serial_number, 'directive_log', { ...base, result: 'success' });
    else if ('fault' in outcome)
      this.add(command.device.serial_number, 'directive_log', {
        ...base,
        result: 'fault',
        error: { message: 'the driver failed' },
      });
    else
      this.add(command.device.serial_number, 'directive_log', {
        ...base,
        result: outcome.offline ? 'timeout' : 'error',
        error: { code: outcome.code, message: outcome.message },
      });
  }

  /** An event a third-party service sent about the device, and how the gateway answered it. */
  eventReceived(serial: string, name: string, payload: unknown, result: InboundResult): void {
    this.add(serial, 'event_log', {
      name,
      payload: bounded(payload),
      ...(result.ok
        ? { result: 'success' }
        : { result: 'error', error: { type: eventErrorType(result.code), message: result.message } }),
    });
  }

  /** The entries of one device's log that match the query, oldest first, and the count kept. */
  read(serial: string, q: DebugLogQuery): { entries: DebugLogEntry[]; kept: number; next_index: number } {
    const log = this.logs.get(serial)?.[q.type];
    if (!log) return { entries: [], kept: 0, next_index: 0 };
    const entries = log.entries
      .filter(
        (e) =>
          (q.fromIndex === undefined || e.index >= q.fromIndex) &&
          (q.start === undefined || e.at >= q.start) &&
          (q.end === undefined || e.at <= q.end),
      )
      .slice(0, q.limit)
      .map(served);
    return { entries, kept: log.entries.length, next_index: log.next };
  }
}

/** A kept entry as served. */
function served(e: KeptEntry): DebugLogEntry {
  return {
    index: e.index,
    time: new Date(e.at).toISOString(),
    name: e.name,
    payload: JSON.parse(e.payload),
    result: e.result,
    ...(e.error ? { error: e.error } : {}),
    ...(e.latency_ms !== undefined ? { latency_ms: e.latency_ms } : {}),
  };
}

/**
 * The third-party inbox with every event it handles written to the debug log of the device it is
 * about (the devices a DiscoveryRequest added, each with its own endpoint).
 */
export function loggingInbox(
  inbox: DeviceEventInbox,
  log: DeviceDebugLog,
  find: (endpoint: Record<string, unknown>) => DeviceRecord | undefined,
): DeviceEventInbox {
  return {
    eventNames: inbox.eventNames,
    handle(event: InboundEvent): InboundResult {
      const result = inbox.handle(event);
      if (event.name === 'DiscoveryRequest') {
        const added = result.ok && Array.isArray(result.payload.endpoints) ? result.payload.endpoints : [];
        const sent = isObject(event.payload) && Array.isArray(event.payload.endpoints) ? event.payload.endpoints : [];
        for (const a of added) {
          if (!isObject(a) || typeof a.serial_number !== 'string') continue;
          const mine = sent.find((e) => isObject(e) && e.third_serial_number === a.third_serial_number);
          log.eventReceived(a.serial_number, event.name, { endpoints: [mine ?? a] }, result);
        }
        return result;
      }
      const device = isObject(event.endpoint) ? find(event.endpoint) : undefined;
      if (device) log.eventReceived(device.serial_number, event.name, event.payload, result);
      return result;
    },
  };
}
