/**
 * One Zigbee2MQTT instance (one base topic) as the gateway follows it: its device list
 * (bridge/devices) reconciled with the registry, each device's state and availability, the
 * instance's own state (bridge/state), devices leaving, and joining (bridge/info). The rules
 * (docs/zigbee.md):
 * - a device is online when the instance is online, the device is listed, and its availability
 *   (when Zigbee2MQTT publishes one) is online;
 * - a device missing from the list (it left, or was removed in Zigbee2MQTT) is kept, offline,
 *   until a client removes it (D5), as the hardware gateways do; only a removal the gateway asked
 *   for deletes it;
 * - state is read back (`/get`) after every connect and for every device that (re)appears.
 */
import type { DeviceRecord, DriverHost } from '../../core/devices/contract.ts';
import type { Log } from '../../lib/log.ts';
import { isObject } from '../../lib/object.ts';
import {
  ACCESS_GET,
  announceZigbeeDevice,
  type DeviceMapping,
  type DeviceWaiters,
  type Expose,
  mapExposes,
  type ReadBackQueue,
  reportedState,
} from '../../zigbee/index.ts';
import { parseFailure, zigbee2mqttWaiters } from './commands.ts';
import { literalTopic } from './link.ts';
import type { Z2mDevice, Z2mEndpoint, Z2mGroup } from './types.ts';

export const DRIVER_ID = 'zigbee2mqtt';

/** One mapped device of the instance. */
export interface Entry {
  ieee: string;
  friendly: string;
  ref: string;
  model: string;
  /** The exposes the mapping was made from (JSON), to remap only when they change. */
  exposes: string;
  mapping: DeviceMapping;
  /** Zigbee2MQTT's last state of the device, merged message by message. */
  last: Record<string, unknown>;
  waiters: DeviceWaiters;
  /** Its last availability message (undefined when Zigbee2MQTT publishes none). */
  available?: boolean;
  /** Not in the last bridge/devices list, or announced its leave. */
  missing: boolean;
  /** A sleeping end device: not asked for reads. */
  sleepy: boolean;
  /** The `/get` payload of every readable mapped attribute. */
  readable: Record<string, string>;
  /** Its endpoints (clusters, bindings) by number, as bridge/devices last listed them. */
  endpoints: Record<string, Z2mEndpoint>;
  /** Whether its model takes firmware updates. */
  supportsOta: boolean;
}

/** What a bridge needs from the driver that holds it. */
export interface BridgeDeps {
  host: () => DriverHost | undefined;
  log: Log;
  /** Reads a device's topics (its state and availability) for `entry`. */
  subscribe(entry: Entry, topics: readonly string[]): void;
  unsubscribe(topics: readonly string[]): void;
  publish(topic: string, payload: string): Promise<Error | undefined>;
  readBack: ReadBackQueue;
  /** Logs a model's left-out exposes once per process. */
  logUnmapped(model: string, unmapped: string[]): void;
  /** A state message of a device, once kept in `entry.last` (firmware progress, group state). */
  deviceState?(entry: Entry, msg: Record<string, unknown>): void;
  /** The instance's groups, devices (endpoints, bindings) or online state changed. */
  changed?(): void;
}

/** The bridge topics the driver reads; everything else (bridge/definitions: ~230 KB per change) is not subscribed. */
export const BRIDGE_TOPICS = ['state', 'info', 'devices', 'groups', 'event', 'logging', 'response/#'] as const;

export class Bridge {
  readonly byIeee = new Map<string, Entry>();
  private readonly byFriendly = new Map<string, Entry>();
  /** Undefined until bridge/state is seen after a connect. */
  online: boolean | undefined;
  permitJoin = false;
  permitJoinEnd = 0;
  /** Removals in flight (D5). */
  readonly removing = new Set<string>();
  /** Removals the gateway asked for that Zigbee2MQTT has not confirmed yet: when it drops the device, it is deleted. */
  readonly removeRequested = new Set<string>();
  /** The next bridge/devices list is the first since (re)connecting: read every device back. */
  private readAll = true;
  /** The groups of the last bridge/groups. */
  groups: Z2mGroup[] = [];
  /** The coordinator's IEEE address (bindings to it are the ones made for reporting). */
  coordinatorIeee?: string;

  constructor(
    readonly base: string,
    private readonly deps: BridgeDeps,
  ) {}

  /** The instance's own topics. */
  topics(): string[] {
    return BRIDGE_TOPICS.map((t) => `${this.base}/bridge/${t}`);
  }

  /** The link (re)connected: state is unknown until bridge/state and bridge/devices arrive again. */
  connected(): void {
    this.online = undefined;
    this.readAll = true;
  }

  /** The next bridge/devices list reads every device back (after a factory reset announces them again). */
  readAllNext(): void {
    this.readAll = true;
  }

  entryOf(ieee: string): Entry | undefined {
    return this.byIeee.get(ieee);
  }

  /** A message on one of this instance's bridge topics. */
  onBridge(sub: string, raw: Buffer): { response?: Record<string, unknown> } {
    if (sub === 'logging') {
      // At `info` Zigbee2MQTT logs every message it publishes here; only failures matter.
      if (raw.indexOf('"error"') !== -1) this.onLogging(parse(raw));
      return {};
    }
    const msg = parse(raw);
    if (sub === 'devices' && Array.isArray(msg)) {
      const host = this.deps.host();
      // One transaction for the whole list: one commit (one fsync) instead of one per device.
      host?.batch(() => this.reconcile(host, msg));
      this.deps.changed?.();
    } else if (sub === 'groups' && Array.isArray(msg)) {
      this.groups = msg.flatMap((g) => readGroup(g) ?? []);
      this.deps.changed?.();
    } else if (sub === 'state') this.onState(isObject(msg) ? msg.state : msg);
    else if (sub === 'info' && isObject(msg)) {
      this.permitJoin = msg.permit_join === true;
      this.permitJoinEnd = typeof msg.permit_join_end === 'number' ? msg.permit_join_end : 0;
    } else if (sub === 'event' && isObject(msg) && msg.type === 'device_leave' && isObject(msg.data)) {
      this.onLeave(String(msg.data.ieee_address ?? ''));
    } else if (sub.startsWith('response/') && isObject(msg)) return { response: msg };
    return {};
  }

  /** A message on a device's topic (state, or availability). */
  onDevice(entry: Entry, kind: 'state' | 'availability', raw: Buffer): void {
    const msg = parse(raw);
    if (kind === 'availability') {
      const state = isObject(msg) ? msg.state : msg;
      // An empty retained message clears the topic (a removed or renamed device): no news.
      if (state !== 'online' && state !== 'offline') return;
      const back = entry.available === false && state === 'online';
      entry.available = state === 'online';
      this.syncOnline(entry);
      // Back on the network: what it did while away was not heard.
      if (back) this.queueRead(entry);
      return;
    }
    if (!isObject(msg)) return;
    Object.assign(entry.last, msg);
    this.deps.deviceState?.(entry, msg);
    const state = this.apiState(entry, msg);
    const serial = this.serialOf(entry.ieee);
    if (serial && Object.keys(state).length > 0) this.deps.host()?.stateReported(serial, state);
    entry.waiters.stateSeen(msg);
  }

  /** A Zigbee2MQTT state as an API report, cleaned like every device report (clamped or dropped, with a warning). */
  apiState(entry: Entry, z: Record<string, unknown>): Record<string, unknown> {
    return reportedState(entry.mapping, z, (warnings) =>
      this.deps.log.warn({ friendly_name: entry.friendly, warnings }, 'zigbee2mqtt: reported state cleaned'),
    );
  }

  serialOf(ieee: string): string | undefined {
    return this.deps.host()?.findByRef(DRIVER_ID, `${this.base}/${ieee}`)?.serial_number;
  }

  /** Forgets a device the gateway removed. */
  forget(ieee: string): void {
    const e = this.byIeee.get(ieee);
    if (!e) return;
    this.byIeee.delete(ieee);
    if (this.byFriendly.get(e.friendly) === e) this.byFriendly.delete(e.friendly);
    this.deps.unsubscribe(deviceTopics(this.base, e.friendly));
    e.waiters.failAll('the device was removed');
  }

  /** The topics of every known device (for the driver's topic index). */
  entries(): IterableIterator<Entry> {
    return this.byIeee.values();
  }

  // ---- the instance ----

  private onState(state: unknown): void {
    if (state !== 'online' && state !== 'offline') return;
    const was = this.online;
    this.online = state === 'online';
    if (was === this.online) return;
    this.deps.log.info({ base_topic: this.base, state }, `zigbee2mqtt: instance ${state}`);
    this.deps.changed?.();
    const host = this.deps.host();
    if (!host) return;
    host.batch(() => {
      for (const e of this.byIeee.values()) this.syncOnline(e);
      if (!this.online)
        for (const r of this.stored())
          if (!this.byIeee.has(refIeee(r.driver_ref))) host.onlineChanged(r.serial_number, false);
    });
    // Back from offline: what changed meanwhile was not published to anyone.
    if (this.online && was === false) for (const e of this.byIeee.values()) this.queueRead(e);
  }

  private onLogging(msg: unknown): void {
    if (!isObject(msg) || msg.level !== 'error' || typeof msg.message !== 'string') return;
    const f = parseFailure(msg.message);
    if (f) this.byFriendly.get(f.friendly)?.waiters.failed(f.verb, `Zigbee2MQTT: ${f.reason}`);
  }

  private onLeave(ieee: string): void {
    const entry = this.byIeee.get(ieee);
    if (!entry) return; // only devices the gateway knows are remembered as left
    entry.missing = true;
    // The activity log's line (docs/operations.md), by the device's name; a removal the gateway
    // asked for is logged as that removal.
    if (!this.removing.has(ieee) && !this.removeRequested.has(ieee)) {
      const serial = this.serialOf(ieee);
      const name = (serial && this.deps.host()?.get(serial)?.name) || entry.friendly;
      this.deps.log.info({ serial_number: serial, ieee_address: ieee }, `device left: ${name}`);
    }
    this.syncOnline(entry);
  }

  // ---- the device list ----

  private reconcile(host: DriverHost, list: unknown[]): void {
    const present = new Set<string>();
    const readAll = this.readAll;
    this.readAll = false;
    for (const item of list) {
      const d = readDevice(item);
      if (d?.type === 'Coordinator') this.coordinatorIeee = d.ieee_address;
      if (!d || d.type === 'Coordinator') continue;
      present.add(d.ieee_address);
      const interviewed = d.interview_state ? d.interview_state === 'SUCCESSFUL' : d.interview_completed === true;
      if (!interviewed || !d.definition || d.disabled) continue;
      try {
        this.upsert(host, d, readAll);
      } catch (err) {
        // One device that cannot be mapped or stored does not keep the others out.
        this.deps.log.error({ err, ieee_address: d.ieee_address }, 'zigbee2mqtt: device of bridge/devices skipped');
      }
    }
    for (const record of this.stored()) {
      const ieee = refIeee(record.driver_ref);
      if (present.has(ieee) || this.removing.has(ieee)) continue;
      if (this.removeRequested.delete(ieee)) {
        // A removal the gateway asked for, completed after D5 had answered.
        this.forget(ieee);
        host.deviceLeft(record.serial_number);
        continue;
      }
      const entry = this.byIeee.get(ieee);
      if (entry) {
        entry.missing = true;
        this.syncOnline(entry);
      } else host.onlineChanged(record.serial_number, false);
    }
  }

  private stored(): DeviceRecord[] {
    const host = this.deps.host();
    if (!host) return [];
    return host.listByDriver(DRIVER_ID).filter((r) => refBase(r.driver_ref) === this.base);
  }

  private upsert(host: DriverHost, d: Z2mDevice, readAll: boolean): void {
    const def = d.definition as NonNullable<Z2mDevice['definition']>;
    const ref = `${this.base}/${d.ieee_address}`;
    let entry = this.byIeee.get(d.ieee_address);
    const exposesJson = JSON.stringify(def.exposes);
    const isNew = !entry;
    if (!entry || entry.exposes !== exposesJson) {
      const mapping = mapExposes(def.exposes, { description: def.description, addLqi: true });
      if (mapping.unmapped.length > 0) this.deps.logUnmapped(def.model, mapping.unmapped);
      const readable: Record<string, string> = {};
      for (const b of mapping.bindings)
        if (b.access & ACCESS_GET && !b.presses && b.conv.kind !== 'command') readable[b.property] = '';
      entry = {
        ieee: d.ieee_address,
        friendly: entry?.friendly ?? d.friendly_name,
        ref,
        model: def.model,
        exposes: exposesJson,
        mapping,
        last: entry?.last ?? {},
        waiters: entry?.waiters ?? zigbee2mqttWaiters(),
        available: entry?.available,
        missing: entry?.missing ?? false,
        sleepy: false,
        readable,
        endpoints: {},
        supportsOta: false,
      };
      this.byIeee.set(d.ieee_address, entry);
    }
    entry.endpoints = readEndpoints(d.endpoints);
    entry.supportsOta = def.supports_ota === true;
    entry.sleepy = d.type === 'EndDevice' && !/mains|dc/i.test(String(d.power_source ?? ''));
    if (isNew || entry.friendly !== d.friendly_name) {
      if (entry.friendly !== d.friendly_name) {
        if (this.byFriendly.get(entry.friendly) === entry) this.byFriendly.delete(entry.friendly);
        this.deps.unsubscribe(deviceTopics(this.base, entry.friendly));
        entry.friendly = d.friendly_name;
        entry.available = undefined;
      }
      const topics = deviceTopics(this.base, d.friendly_name);
      if (topics.every(literalTopic)) this.deps.subscribe(entry, topics);
      else
        this.deps.log.warn({ friendly_name: d.friendly_name }, 'zigbee2mqtt: friendly name is not a usable MQTT topic');
    }
    this.byFriendly.set(d.friendly_name, entry);
    const wasMissing = entry.missing;
    entry.missing = false;

    const name =
      d.friendly_name && d.friendly_name !== d.ieee_address
        ? d.friendly_name
        : def.description || def.model || d.ieee_address;
    const announced = announceZigbeeDevice(host, DRIVER_ID, {
      ref,
      ieee: d.ieee_address,
      adoptFrom: ['herdsman'],
      name,
      vendor: def.vendor,
      model: def.model,
      firmware: d.software_build_id ?? '',
      exposes: def.exposes,
      exposesJson,
      mapping: entry.mapping,
      online: this.desiredOnline(entry),
      extra: {
        base_topic: this.base,
        ieee_address: d.ieee_address,
        friendly_name: d.friendly_name,
        model_id: d.model_id ?? '',
      },
      renamed: (stored) => stored.friendly_name !== d.friendly_name,
    });
    if ('refused' in announced) {
      this.deps.log.warn(
        { friendly_name: d.friendly_name, reason: announced.refused },
        'zigbee2mqtt: device not added',
      );
      return;
    }
    if (announced.added) {
      this.queueRead(entry);
      return;
    }
    this.syncOnline(entry);
    if (readAll || wasMissing || isNew) this.queueRead(entry);
  }

  // ---- online state and reads ----

  private desiredOnline(e: Entry): boolean {
    return this.online !== false && !e.missing && e.available !== false;
  }

  private syncOnline(e: Entry): void {
    const serial = this.serialOf(e.ieee);
    if (serial) this.deps.host()?.onlineChanged(serial, this.desiredOnline(e));
  }

  private queueRead(e: Entry): void {
    if (e.sleepy || Object.keys(e.readable).length === 0) return;
    this.deps.readBack.add({
      key: e.ref,
      send: () => {
        if (this.byIeee.get(e.ieee) !== e || !this.desiredOnline(e)) return false;
        void this.deps.publish(`${this.base}/${e.friendly}/get`, JSON.stringify(e.readable));
        return true;
      },
    });
  }
}

/** The topics of one device: its state, and its availability. */
export function deviceTopics(base: string, friendly: string): string[] {
  return [`${base}/${friendly}`, `${base}/${friendly}/availability`];
}

/** `<base_topic>/<ieee_address>`: the base topic may itself contain slashes. */
export function splitRef(ref: string): { base: string; ieee: string } {
  const i = ref.lastIndexOf('/');
  return { base: ref.slice(0, i), ieee: ref.slice(i + 1) };
}

const refBase = (ref: string) => splitRef(ref).base;
const refIeee = (ref: string) => splitRef(ref).ieee;

function parse(buf: Buffer): unknown {
  const s = buf.toString();
  if (s === '') return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');
const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);

/** A device's endpoints of bridge/devices, the parts that cannot be read left out. */
function readEndpoints(v: unknown): Record<string, Z2mEndpoint> {
  const out: Record<string, Z2mEndpoint> = {};
  if (!isObject(v)) return out;
  for (const [id, e] of Object.entries(v)) {
    if (!/^\d+$/.test(id) || !isObject(e)) continue;
    const clusters = isObject(e.clusters) ? e.clusters : {};
    const bindings = Array.isArray(e.bindings) ? e.bindings : [];
    out[id] = {
      ...(typeof e.name === 'string' ? { name: e.name } : {}),
      clusters: { input: strings(clusters.input), output: strings(clusters.output) },
      bindings: bindings.flatMap((b): Z2mEndpoint['bindings'] => {
        if (!isObject(b) || typeof b.cluster !== 'string' || !isObject(b.target)) return [];
        const t = b.target;
        if (t.type === 'group' && typeof t.id === 'number')
          return [{ cluster: b.cluster, target: { type: 'group', id: t.id } }];
        if (t.type === 'endpoint' && typeof t.ieee_address === 'string' && typeof t.endpoint === 'number')
          return [
            { cluster: b.cluster, target: { type: 'endpoint', ieee_address: t.ieee_address, endpoint: t.endpoint } },
          ];
        return [];
      }),
    };
  }
  return out;
}

/** One group of bridge/groups, or undefined when it cannot be read. */
function readGroup(v: unknown): Z2mGroup | undefined {
  if (!isObject(v) || typeof v.id !== 'number' || typeof v.friendly_name !== 'string') return undefined;
  const members = Array.isArray(v.members) ? v.members : [];
  return {
    id: v.id,
    friendly_name: v.friendly_name,
    members: members.flatMap((m) =>
      isObject(m) && typeof m.ieee_address === 'string' && typeof m.endpoint === 'number'
        ? [{ ieee_address: m.ieee_address, endpoint: m.endpoint }]
        : [],
    ),
  };
}

/**
 * One entry of bridge/devices in the shape the driver reads, or undefined when it has no IEEE
 * address. Fields of the wrong type are dropped (a definition without an exposes list counts as
 * none; a friendly name that is not a string is the IEEE address, as Zigbee2MQTT names new devices).
 */
function readDevice(v: unknown): Z2mDevice | undefined {
  if (!isObject(v) || typeof v.ieee_address !== 'string' || v.ieee_address === '' || v.ieee_address.includes('/'))
    return undefined;
  const def = v.definition;
  const definition =
    isObject(def) && Array.isArray(def.exposes)
      ? {
          ...def,
          model: str(def.model),
          vendor: str(def.vendor),
          description: str(def.description),
          exposes: def.exposes.filter(isObject) as Expose[],
        }
      : null;
  return {
    ...v,
    ieee_address: v.ieee_address,
    friendly_name: typeof v.friendly_name === 'string' && v.friendly_name !== '' ? v.friendly_name : v.ieee_address,
    type: str(v.type),
    definition,
    ...(typeof v.software_build_id === 'string' ? {} : { software_build_id: undefined }),
    ...(typeof v.model_id === 'string' ? {} : { model_id: undefined }),
  };
}
