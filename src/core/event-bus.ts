/**
 * The one event bus of the process: domain events. Every change is one typed event with a
 * monotonic id; the bus keeps the last `capacity` events, and at most `maxBytes` of them, in a
 * ring so that stream clients can resume with Last-Event-ID (the ring keeps each event's JSON, not
 * its object). Subscribers are called synchronously, in order; a throwing
 * subscriber is isolated from the others. Which events a client of the Open API stream sees, and
 * under which name, is that stream's projection (src/http/open-api/events.ts): the events of the
 * link window and of tokens never reach Open API clients. An event published by a subscriber is
 * delivered right after the one being delivered, so every subscriber sees events in id order.
 */

import type { Actor } from './actor.ts';
import type { BindingView, FirmwareEvent, GroupEvent, NetworkMapEvent } from './zigbee-upkeep/views.ts';

/**
 * Event payloads by name (`<module>#<messageType>`). The device, security and bridge events are
 * the Open API's (the stream adds the version: `device#v2#addDevice`); the others are the
 * gateway's own.
 */
export interface EventPayloads {
  'device#addDevice': { payload: Record<string, unknown> };
  'device#updateDeviceState': { endpoint: Endpoint; payload: Record<string, unknown> };
  'device#updateDeviceInfo': {
    endpoint: Endpoint;
    payload: { name: string; capabilities?: unknown[]; tags?: Record<string, unknown> | null };
  };
  'device#updateDeviceOnline': { endpoint: Endpoint; payload: { online: boolean } };
  'device#deleteDevice': { endpoint: Endpoint };
  'security#updateArmState': { payload: { arm_state: 'arming' | 'disarming'; detail: { sid: number; name: string } } };
  'bridge#updateAlarmState': { payload: { alarm_state: string } };
  /** Apps polling G1 that wait for approval (the console shows its pop-up). */
  'link#waiting': { payload: { apps: string[] } };
  /** The link window opened or closed, or an app was approved or denied. */
  'link#window': { payload: { open: boolean; until: string | null } };
  /** A token was issued (its id and app name; never the token). */
  'token#issued': { payload: { token_id: string; app_name: string | null } };
  /** A token was refused to an app that would have got one (denied in the console, or asked by a web page). */
  'token#denied': { payload: { app_name: string | null; reason: string } };
  /** A token was revoked: its streams end. */
  'token#revoked': { payload: { token_id: string } };
  /** Every token was cleared (factory reset): every stream ends. */
  'token#cleared': { payload: Record<string, never> };
  /** A console session ended (logout, revoked; `*`: every session, on a password change): its streams end. */
  'session#revoked': { payload: { session_id: string } };
  /** Pairing was opened or closed from the console (with when it closes by itself). */
  'pairing#window': { payload: { open: boolean; until: string | null } };
  /**
   * A live setting changed in the console (its value is already in the settings and the store):
   * what runs and reads it applies it. On no stream.
   */
  'settings#changed': { payload: { key: string; value: unknown; was: unknown } };
  /** The gateway was renamed (the setting `name`): what shows the name (mDNS, bridges) follows. On no stream. */
  'gateway#renamed': { payload: { name: string; was: string } };
  /** A Zigbee device's firmware: a check, an update queued, its progress, its end (src/core/zigbee-upkeep/). */
  'zigbee#firmware': { payload: FirmwareEvent };
  /** A Zigbee group was created, changed (name, members) or removed. */
  'zigbee#group': { payload: GroupEvent };
  /** A Zigbee device's bindings changed. */
  'zigbee#bindings': { payload: { serial_number: string; bindings: BindingView[] } };
  /** A scan of a Zigbee network's map started, finished or failed. */
  'zigbee#networkMap': { payload: NetworkMapEvent };
  /** A run of a scene or automation started (src/automations). */
  'automation#runStarted': { payload: { automation_id: string; run_id: string; name: string; trigger: string } };
  /** A run ended: `finished`, `failed` (an action failed; the others ran) or `stopped` (with why). */
  'automation#runFinished': {
    payload: { automation_id: string; run_id: string; name: string; result: string; reason: string | null };
  };
  /** A `notify` action, or the engine telling of a loop it stopped. */
  'automation#notify': { payload: { automation_id: string; run_id: string | null; name: string; message: string } };
  /** A definition was saved, removed, enabled, disabled, or became broken or whole again. */
  'automation#changed': {
    payload: {
      automation_id: string;
      change: 'saved' | 'removed' | 'enabled' | 'disabled' | 'broken' | 'repaired';
      broken: string[] | null;
    };
  };
}

export interface Endpoint {
  serial_number: string;
  third_serial_number?: string;
}

export type EventName = keyof EventPayloads;

export interface BusEvent<N extends EventName = EventName> {
  id: number;
  name: N;
  module: string;
  type: string;
  data: EventPayloads[N];
  /** `data` serialized once, shared by every stream client. */
  json: string;
  /** When it was published (ms since the epoch, on the bus's clock): a console shows it. */
  at: number;
  /**
   * Who caused it, when a person did through a surface (an app, the console, an automation...):
   * for the activity log's line only. Not part of `data`: no stream sends it and the replay ring
   * does not keep it (a replayed event has none).
   */
  by?: Actor;
}

export type Replay = { ok: true; events: BusEvent[] } | { ok: false; oldest: number | null; last: number };

/**
 * An event as the replay ring keeps it: its JSON only. The object may hold far more memory than
 * its JSON (and keeps alive what the registry has since replaced); `data` is parsed again on the
 * rare read of a replayed event's data.
 */
class KeptEvent implements BusEvent {
  constructor(
    readonly id: number,
    readonly name: EventName,
    readonly module: string,
    readonly type: string,
    readonly json: string,
    readonly at: number,
  ) {}

  get data(): EventPayloads[EventName] {
    return JSON.parse(this.json);
  }
}

/** What one kept event costs besides its JSON (the record, its strings, its time, the ring slot), in bytes. */
const EVENT_OVERHEAD = 168;

/** Bytes an event takes in the ring: its JSON (V8 keeps ASCII text at a byte a character) and the record. */
function sizeOf(e: KeptEvent): number {
  return e.json.length + e.name.length + EVENT_OVERHEAD;
}

export type Listener = (event: BusEvent) => void;

/**
 * `json` as one string: V8's JSON.stringify gives a long text as a tree of pieces, which the ring
 * would keep (about 150 bytes more per event); a regular expression's scan flattens it in place.
 */
function flat(json: string): string {
  /\n/.test(json);
  return json;
}

export class EventBus {
  private readonly ring: (KeptEvent | undefined)[];
  private next = 0;
  private count = 0;
  private bytes = 0;
  private lastId: number;
  private readonly listeners = new Set<Listener>();
  /** Events published while listeners run, delivered once the current event has reached them all. */
  private readonly queue: BusEvent[] = [];
  private delivering = false;

  /**
   * @param capacity events kept for replay
   * @param firstId ids start above this; main passes a clock-based value so that ids keep rising
   *   across restarts and a stale Last-Event-ID from before a restart is recognised as a gap.
   * @param maxBytes bytes of events kept for replay: the oldest go first when more would be kept
   *   (the newest event is always kept)
   * @param now the time of an event (the gateway's clock)
   */
  constructor(
    readonly capacity = 10_000,
    firstId = 0,
    private readonly onListenerError: (err: unknown) => void = () => {},
    readonly maxBytes = 16 * 1024 * 1024,
    private readonly now: () => number = Date.now,
  ) {
    this.ring = new Array(capacity);
    this.lastId = firstId;
  }

  /** Publishes one event to every subscriber and keeps it for replay; `by`: who caused it (see BusEvent). */
  publish<N extends EventName>(name: N, data: EventPayloads[N], by?: Actor): BusEvent<N> {
    const [module, type] = name.split('#') as [string, string];
    const event: BusEvent<N> = {
      id: ++this.lastId,
      name,
      module,
      type,
      data,
      json: flat(JSON.stringify(data)),
      at: this.now(),
      ...(by ? { by } : {}),
    };
    this.keep(new KeptEvent(event.id, name, module, type, event.json, event.at));
    this.queue.push(event as BusEvent);
    // A listener that publishes (the alarm, on a device state) must not have its event reach the
    // listeners after it before the event it reacts to: events are delivered in id order.
    if (this.delivering) return event;
    this.delivering = true;
    try {
      for (let e = this.queue.shift(); e; e = this.queue.shift()) {
        for (const listener of this.listeners) {
          try {
            listener(e);
          } catch (err) {
            this.onListenerError(err);
          }
        }
      }
    } finally {
      this.delivering = false;
    }
    return event;
  }

  /** Bytes of the events kept for replay (see sizeOf). */
  get keptBytes(): number {
    return this.bytes;
  }

  /** Number of events kept for replay. */
  get kept(): number {
    return this.count;
  }

  /** Puts an event in the ring, dropping the oldest past the count or the bytes. */
  private keep(e: KeptEvent): void {
    if (this.count === this.capacity) this.dropOldest();
    this.ring[this.next] = e;
    this.next = (this.next + 1) % this.capacity;
    this.count++;
    this.bytes += sizeOf(e);
    while (this.bytes > this.maxBytes && this.count > 1) this.dropOldest();
  }

  private dropOldest(): void {
    const idx = (this.next - this.count + this.capacity) % this.capacity;
    this.bytes -= sizeOf(this.ring[idx] as KeptEvent);
    this.ring[idx] = undefined;
    this.count--;
  }

  /** Subscribes to every future event; returns the unsubscribe function. */
  subscribe(listener: Listener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  get subscriberCount(): number {
    return this.listeners.size;
  }

  /** Id of the last event published (or the starting id when none yet). */
  get last(): number {
    return this.lastId;
  }

  /** Id of the oldest event still kept, or null when none is kept. */
  get oldest(): number | null {
    if (this.count === 0) return null;
    const idx = (this.next - this.count + this.capacity) % this.capacity;
    return (this.ring[idx] as KeptEvent).id;
  }

  /** Events after `lastSeen`, or a gap when some of them are no longer kept (or the id is unknown). */
  since(lastSeen: number): Replay {
    if (lastSeen === this.lastId) return { ok: true, events: [] };
    const oldest = this.oldest;
    if (lastSeen > this.lastId || oldest === null || lastSeen < oldest - 1) {
      return { ok: false, oldest, last: this.lastId };
    }
    const skip = lastSeen - oldest + 1;
    const events: BusEvent[] = [];
    for (let i = skip; i < this.count; i++) {
      events.push(this.ring[(this.next - this.count + i + this.capacity * 2) % this.capacity] as KeptEvent);
    }
    return { ok: true, events };
  }
}

/**
 * The first event id of this start. Ids rise across restarts, so a Last-Event-ID from before a
 * restart is seen as a gap: each start takes a range above the clock and above the previous start
 * (a box without a real-time clock may boot with its clock behind), kept in the store.
 */
export function risingIdBase(kept: { get<T>(key: string, fallback: T): T; set(key: string, value: unknown): void }) {
  const base = Math.max(Date.now() * 1000, kept.get<number>('event_id_base', 0) + 1_000_000_000);
  kept.set('event_id_base', base);
  return base;
}
