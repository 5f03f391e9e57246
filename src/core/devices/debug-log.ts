/**
 * The debug log of third-party devices (`GET thirdparty/debug-log/{serial}`, COMPAT.md "seen in
 * clients"): for each third-party device, the last directives the gateway sent it (with their
 * outcome and latency) and the last events its service sent about it (T1). It lives in memory
 * only, bounded per device, and a device's log goes with the device: it serves a developer
 * looking at an integration now, not an audit trail.
 */
import { eventErrorType } from '../../catalog/errors.ts';
import { isObject } from '../../lib/object.ts';
import type { EventBus } from '../event-bus.ts';
import type { DeviceRecord, DriverCommand, Outcome } from './contract.ts';
import type { DeviceEventInbox, InboundEvent, InboundResult } from './inbox.ts';
import type { CommandObserver } from './service.ts';

/** Entries kept per device and per kind of log; the oldest go first. */
export const DEBUG_LOG_SIZE = 100;
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

interface Kept {
  entries: (DebugLogEntry & { at: number })[];
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

function bounded(payload: unknown): unknown {
  const json = JSON.stringify(payload ?? {});
  return json.length > MAX_PAYLOAD_CHARS ? { truncated: true, chars: json.length } : payload;
}

export class DeviceDebugLog implements CommandObserver {
  private readonly logs = new Map<string, Record<DebugLogType, Kept>>();

  constructor(
    private readonly now: () => number,
    private readonly isThirdParty: (serial: string) => boolean,
    bus?: EventBus,
  ) {
    bus?.subscribe((e) => {
      if (e.name === 'device#deleteDevice') {
        const serial = (e.data as { endpoint?: { serial_number?: string } }).endpoint?.serial_number;
        if (serial) this.logs.delete(serial);
      }
    });
  }

  private add(serial: string, type: DebugLogType, entry: Omit<DebugLogEntry, 'index' | 'time'>): void {
    if (!this.isThirdParty(serial)) return;
    let both = this.logs.get(serial);
    if (!both) {
      both = { directive_log: { entries: [], next: 0 }, event_log: { entries: [], next: 0 } };
      this.logs.set(serial, both);
    }
    const log = both[type];
    const at = this.now();
    log.entries.push({ index: log.next++, time: new Date(at).toISOString(), at, ...entry });
    if (log.entries.length > DEBUG_LOG_SIZE) log.entries.shift();
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
      .map(({ at: _at, ...e }) => e);
    return { entries, kept: log.entries.length, next_index: log.next };
  }
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
