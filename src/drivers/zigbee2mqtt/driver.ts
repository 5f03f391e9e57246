/**
 * The Zigbee2MQTT driver: speaks Zigbee2MQTT's MQTT API (one or more base topics on one broker)
 * and feeds the device registry through the DriverHost contract. See docs/zigbee.md for the
 * decisions (confirmation time, permit_join maximum, 110001, leave and start-up rules).
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { ErrorCode } from '../../catalog/errors.ts';
import { sanitizeReport } from '../../catalog/index.ts';
import type { DeviceAnnouncement, DeviceRecord, Driver, DriverCommand, DriverHost, Outcome } from '../contract.ts';
import {
  type DeviceMapping,
  type Expectation,
  mapExposes,
  meets,
  planGet,
  planSet,
  propertiesOf,
  toApiState,
} from './mapping.ts';
import type { Expose, Z2mDevice, Z2mResponse } from './types.ts';

/** The logger the driver needs (pino's Logger fits). */
export interface ZigbeeLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

export interface Zigbee2MqttOptions {
  /** The broker URL, or a function that starts the broker (sim mode) and gives its URL. */
  url: string | (() => Promise<string>);
  baseTopics: string[];
  /** D1 keeps joining open at most this long (Zigbee2MQTT's own maximum is 254 s). */
  permitJoinSeconds: number;
  /** How long Zigbee2MQTT has to republish the new state after a `/set` (D4), answer a `/get` (D6) or a permit_join (D1). */
  confirmMs?: number;
  /** How long Zigbee2MQTT has to answer a device removal (D5). */
  requestMs?: number;
  /** First and last wait between reconnect attempts (doubles each time). */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  log: ZigbeeLog;
  /** Called after the MQTT client is closed (sim mode stops the broker here). */
  onStopped?: () => Promise<void>;
}

export const DRIVER_ID = 'zigbee2mqtt';
export const DEFAULT_CONFIRM_MS = 3000;
export const DEFAULT_REQUEST_MS = 10_000;
/** The longest D5 waits for Zigbee2MQTT's answer (inside the 5 s clients wait). */
const REMOVE_WAIT_MS = 4000;
/** At most this many devices not yet listed in bridge/devices have messages held for them, per base topic. */
const MAX_EARLY = 10_000;

interface Waiter {
  expect: Expectation[];
  met: Set<string>;
  done: (r: { ok: true } | { ok: false; message: string }) => void;
}

interface Entry {
  base: string;
  ieee: string;
  friendly: string;
  ref: string;
  model: string;
  /** The exposes the mapping was made from (JSON), to remap only when they change. */
  exposes: string;
  mapping: DeviceMapping;
  last: Record<string, unknown>;
  waiters: Set<Waiter>;
}

interface Bridge {
  base: string;
  byIeee: Map<string, Entry>;
  byFriendly: Map<string, Entry>;
  /** Early messages for devices not yet known from bridge/devices. */
  early: Map<string, { payload?: Record<string, unknown>; online?: boolean }>;
  permitJoin: boolean;
  permitJoinEnd: number;
  left: Set<string>;
  removing: Set<string>;
  seenDevices: boolean;
}

function parse(buf: Buffer): unknown {
  const s = buf.toString();
  if (s === '') return undefined;
  try {
    return JSON.parse(s);
  } catch {
    return s;
  }
}

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

export class Zigbee2MqttDriver implements Driver {
  readonly id = DRIVER_ID;
  private host?: DriverHost;
  private client?: MqttClient;
  private readonly bridges = new Map<string, Bridge>();
  private readonly requests = new Map<string, (r: Z2mResponse) => void>();
  private readonly loggedModels = new Set<string>();
  private readonly confirmMs: number;
  private readonly requestMs: number;
  private backoff: number;
  private stopped = false;

  constructor(private readonly opts: Zigbee2MqttOptions) {
    this.confirmMs = opts.confirmMs ?? DEFAULT_CONFIRM_MS;
    this.requestMs = opts.requestMs ?? DEFAULT_REQUEST_MS;
    this.backoff = opts.reconnectMinMs ?? 500;
    for (const base of opts.baseTopics) {
      this.bridges.set(base, {
        base,
        byIeee: new Map(),
        byFriendly: new Map(),
        early: new Map(),
        permitJoin: false,
        permitJoinEnd: 0,
        left: new Set(),
        removing: new Set(),
        seenDevices: false,
      });
    }
  }

  /** Whether the MQTT connection is up. */
  connected(): boolean {
    return this.client?.connected === true;
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
    const url = typeof this.opts.url === 'string' ? this.opts.url : await this.opts.url();
    const client = mqtt.connect(url, {
      clientId: `opencube-${randomUUID().slice(0, 8)}`,
      reconnectPeriod: this.backoff,
      connectTimeout: 5000,
      resubscribe: false,
      clean: true,
    });
    this.client = client;
    client.on('connect', () => {
      noDelay(client);
      // The first list after every (re)connect keeps missing devices (offline) instead of deleting them.
      for (const b of this.bridges.values()) b.seenDevices = false;
      this.backoff = this.opts.reconnectMinMs ?? 500;
      client.options.reconnectPeriod = this.backoff;
      this.opts.log.info({ url }, 'zigbee2mqtt: connected to the MQTT broker');
      client.subscribe(
        [...this.bridges.keys()].map((b) => `${b}/#`),
        { qos: 0 },
      );
    });
    client.on('close', () => {
      if (this.stopped) return;
      // Exponential backoff between reconnect attempts; devices keep their last state meanwhile.
      this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs ?? 30_000);
      client.options.reconnectPeriod = this.backoff;
    });
    client.on('offline', () => this.opts.log.warn({ url }, 'zigbee2mqtt: MQTT broker unreachable, retrying'));
    client.on('error', (err) => this.opts.log.warn({ err: err.message }, 'zigbee2mqtt: MQTT error'));
    client.on('message', (topic, payload) => {
      try {
        this.onMessage(topic, payload);
      } catch (err) {
        this.opts.log.error({ err, topic }, 'zigbee2mqtt: message handling failed');
      }
    });
    // Start-up does not wait for the broker: the gateway serves its stored devices meanwhile.
  }

  async stop(): Promise<void> {
    this.stopped = true;
    for (const b of this.bridges.values())
      for (const e of b.byIeee.values())
        for (const w of e.waiters) w.done({ ok: false, message: 'the gateway is stopping' });
    for (const answer of [...this.requests.values()]) answer({ status: 'error', error: 'the gateway is stopping' });
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync(true).catch(() => {});
    await this.opts.onStopped?.();
  }

  discovering(): boolean {
    const now = Date.now();
    for (const b of this.bridges.values())
      if (b.permitJoin && (b.permitJoinEnd === 0 || b.permitJoinEnd > now)) return true;
    return false;
  }

  async setDiscovery(enable: boolean): Promise<Outcome> {
    if (!this.connected())
      return { ok: false, code: ErrorCode.SERVER_ERROR, message: 'the MQTT broker of Zigbee2MQTT is unreachable' };
    const time = enable ? this.opts.permitJoinSeconds : 0;
    const answers = await Promise.all(
      [...this.bridges.keys()].map((base) =>
        // Zigbee2MQTT answers permit_join at once; one that is down must not hold D1 past the 5 s clients wait.
        this.request(base, 'permit_join', { value: enable, time }, this.confirmMs).then((r) => ({ base, r })),
      ),
    );
    const failed = answers.find((a) => a.r.status !== 'ok');
    if (failed) {
      // All or nothing: close joining again where it opened.
      if (enable)
        await Promise.all(
          answers
            .filter((a) => a.r.status === 'ok')
            .map((a) => this.request(a.base, 'permit_join', { value: false, time: 0 }, this.confirmMs)),
        );
      return {
        ok: false,
        code: ErrorCode.SERVER_ERROR,
        message: `Zigbee2MQTT (${failed.base}) refused permit_join: ${failed.r.error ?? 'no reason given'}`,
      };
    }
    for (const { base } of answers) {
      const b = this.bridges.get(base) as Bridge;
      b.permitJoin = enable;
      b.permitJoinEnd = enable ? Date.now() + time * 1000 : 0;
    }
    return { ok: true };
  }

  async execute(command: DriverCommand): Promise<Outcome> {
    if (command.kind === 'configure') return { ok: true };
    const entry = this.entryOf(command.device);
    if (command.kind === 'remove') return this.remove(command.device, entry);
    if (!entry) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'Zigbee2MQTT does not list this device (yet)');
    if (!command.device.online)
      return { ok: false, code: ErrorCode.DEVICE_OFFLINE, message: 'the device is offline', offline: true };
    if (!this.connected()) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the MQTT broker of Zigbee2MQTT is unreachable');
    if (command.kind === 'update-state') {
      const plan = planSet(entry.mapping, command.state);
      if (!plan.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, plan.message);
      const r = await this.publishAndWait(entry, 'set', plan.payload, plan.expect);
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
      const props = new Set(plan.expect.map((x) => x.property));
      return { ok: true, state: this.apiState(entry, pick(entry.last, props)) };
    }
    // query-state
    const get = planGet(entry.mapping, command.capability);
    if (get.properties.length > 0) {
      const expect = get.properties.map((property) => ({ property, tolerance: 0 }));
      const r = await this.publishAndWait(entry, 'get', get.payload, expect);
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
    }
    const props = new Set(propertiesOf(entry.mapping, command.capability));
    const state = this.apiState(entry, pick(entry.last, props));
    return {
      ok: true,
      state: state[command.capability] !== undefined ? { [command.capability]: state[command.capability] } : {},
    };
  }

  private async remove(device: DeviceRecord, entry: Entry | undefined): Promise<Outcome> {
    if (this.discovering())
      return fail(
        ErrorCode.DISCOVERING_ZIGBEE,
        'the gateway is discovering Zigbee devices; close discovery before removing one',
      );
    const { base, ieee } = splitRef(device.driver_ref);
    const bridge = this.bridges.get(base);
    if (!bridge) return { ok: true }; // a base topic no longer configured: nothing to remove there
    if (!this.connected()) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the MQTT broker of Zigbee2MQTT is unreachable');
    bridge.removing.add(ieee);
    try {
      // Zigbee2MQTT may take about 10 s to give up on a device that does not confirm its leave;
      // clients give up at 5 s, so the answer comes sooner and a late removal still lands.
      const r = await this.request(base, 'device/remove', { id: ieee, force: false }, REMOVE_WAIT_MS);
      if (r.status === 'ok' || /does not exist/i.test(r.error ?? '')) {
        this.forget(bridge, ieee);
        return { ok: true };
      }
      if (r.timedOut) {
        return fail(
          ErrorCode.DEVICE_UPDATE_FAILED,
          `Zigbee2MQTT has not confirmed the removal of ${entry?.friendly ?? ieee} within ${REMOVE_WAIT_MS} ms; if it completes later, the device is removed then (deleteDevice event)`,
        );
      }
      return fail(
        ErrorCode.DEVICE_UPDATE_FAILED,
        `Zigbee2MQTT could not remove ${entry?.friendly ?? ieee}: ${r.error ?? 'no reason given'}`,
      );
    } finally {
      bridge.removing.delete(ieee);
    }
  }

  private forget(bridge: Bridge, ieee: string): void {
    const e = bridge.byIeee.get(ieee);
    if (!e) return;
    bridge.byIeee.delete(ieee);
    if (bridge.byFriendly.get(e.friendly) === e) bridge.byFriendly.delete(e.friendly);
  }

  private entryOf(device: DeviceRecord): Entry | undefined {
    const { base, ieee } = splitRef(device.driver_ref);
    return this.bridges.get(base)?.byIeee.get(ieee);
  }

  private publishAndWait(
    entry: Entry,
    verb: 'set' | 'get',
    payload: Record<string, unknown>,
    expect: Expectation[],
  ): Promise<{ ok: true } | { ok: false; message: string }> {
    return new Promise((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waiter: Waiter = {
        expect,
        met: new Set(),
        done: (r) => {
          if (timer) clearTimeout(timer);
          entry.waiters.delete(waiter);
          resolve(r);
        },
      };
      if (expect.length > 0) {
        entry.waiters.add(waiter);
        timer = setTimeout(
          () =>
            waiter.done({
              ok: false,
              message: `Zigbee2MQTT did not ${verb === 'set' ? 'confirm the new state' : 'answer'} within ${this.confirmMs} ms`,
            }),
          this.confirmMs,
        );
      }
      const topic = `${entry.base}/${entry.friendly}/${verb}`;
      this.client?.publish(topic, JSON.stringify(payload), { qos: 0 }, (err) => {
        if (err) waiter.done({ ok: false, message: `publish failed: ${err.message}` });
        else if (expect.length === 0) waiter.done({ ok: true });
      });
    });
  }

  private request(
    base: string,
    what: string,
    body: Record<string, unknown>,
    waitMs = this.requestMs,
  ): Promise<Z2mResponse> {
    const transaction = randomUUID();
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.requests.delete(transaction);
        resolve({ status: 'error', error: `no answer within ${waitMs} ms`, timedOut: true });
      }, waitMs);
      this.requests.set(transaction, (r) => {
        clearTimeout(timer);
        this.requests.delete(transaction);
        resolve(r);
      });
      this.client?.publish(`${base}/bridge/request/${what}`, JSON.stringify({ ...body, transaction }));
    });
  }

  // ---- incoming ----

  private onMessage(topic: string, buf: Buffer): void {
    for (const bridge of this.bridges.values()) {
      if (!topic.startsWith(`${bridge.base}/`)) continue;
      const rest = topic.slice(bridge.base.length + 1);
      // A device may be named like a nested topic; the bridge's own topics come first.
      if (rest.startsWith('bridge/')) {
        this.onBridge(bridge, rest.slice(7), parse(buf));
        return;
      }
      if (bridge.byFriendly.has(rest)) {
        this.onState(bridge, rest, parse(buf));
        return;
      }
      if (rest.endsWith('/availability')) {
        this.onAvailability(bridge, rest.slice(0, -13), parse(buf));
        return;
      }
      if (rest.endsWith('/set') || rest.endsWith('/get') || rest.includes('/set/')) return;
      this.onState(bridge, rest, parse(buf));
      return;
    }
  }

  private onBridge(bridge: Bridge, sub: string, msg: unknown): void {
    if (sub === 'devices' && Array.isArray(msg)) {
      // One transaction for the whole list: one commit (one fsync) instead of one per device.
      const host = this.host;
      if (host?.batch) host.batch(() => this.reconcile(bridge, msg));
      else this.reconcile(bridge, msg);
      return;
    }
    if (sub === 'info' && isObj(msg)) {
      bridge.permitJoin = msg.permit_join === true;
      bridge.permitJoinEnd = typeof msg.permit_join_end === 'number' ? msg.permit_join_end : 0;
      return;
    }
    if (sub.startsWith('response/') && isObj(msg)) {
      const t = msg.transaction;
      if (t !== undefined) this.requests.get(String(t))?.(msg as unknown as Z2mResponse);
      return;
    }
    if (sub === 'event' && isObj(msg) && msg.type === 'device_leave' && isObj(msg.data)) {
      const ieee = String(msg.data.ieee_address ?? '');
      const serial = this.serialOf(bridge, ieee);
      if (!serial) return; // only devices the gateway knows are remembered as left
      bridge.left.add(ieee);
      this.host?.onlineChanged(serial, false);
      return;
    }
    if (sub === 'logging' && isObj(msg) && msg.level === 'error' && typeof msg.message === 'string') {
      // Zigbee2MQTT answers a failed set only in its log: "Publish 'set' 'state' to 'name' failed: ...".
      const m = /^Publish '(?:set|get)' '[^']*' to '(.+)' failed: (.*)$/s.exec(msg.message);
      const entry = m ? bridge.byFriendly.get(m[1] as string) : undefined;
      if (entry) for (const w of [...entry.waiters]) w.done({ ok: false, message: `Zigbee2MQTT: ${m?.[2]}` });
    }
  }

  private serialOf(bridge: Bridge, ieee: string): string | undefined {
    return this.host?.findByRef(this.id, `${bridge.base}/${ieee}`)?.serial_number;
  }

  private reconcile(bridge: Bridge, list: unknown[]): void {
    const host = this.host;
    if (!host) return;
    const present = new Set<string>();
    for (const item of list) {
      const d = readDevice(item);
      if (!d || d.type === 'Coordinator') continue;
      present.add(d.ieee_address);
      const interviewed = d.interview_state ? d.interview_state === 'SUCCESSFUL' : d.interview_completed === true;
      if (!interviewed || !d.definition || d.disabled) continue;
      try {
        this.upsert(bridge, d);
      } catch (err) {
        // One device that cannot be mapped or stored does not keep the others out.
        this.opts.log.error({ err, ieee_address: d.ieee_address }, 'zigbee2mqtt: device of bridge/devices skipped');
      }
    }
    const firstList = !bridge.seenDevices;
    bridge.seenDevices = true;
    for (const record of host.listByDriver(this.id)) {
      const { base, ieee } = splitRef(record.driver_ref);
      if (base !== bridge.base || present.has(ieee) || bridge.removing.has(ieee)) continue;
      // A device that left, or that is missing when we (re)connect, goes offline and is kept;
      // one removed from Zigbee2MQTT while we watch is removed here too.
      if (firstList || bridge.left.has(ieee)) host.onlineChanged(record.serial_number, false);
      else {
        this.forget(bridge, ieee);
        host.deviceLeft(record.serial_number);
      }
    }
  }

  private upsert(bridge: Bridge, d: Z2mDevice): void {
    const host = this.host as DriverHost;
    const def = d.definition as NonNullable<Z2mDevice['definition']>;
    const ref = `${bridge.base}/${d.ieee_address}`;
    let entry = bridge.byIeee.get(d.ieee_address);
    const exposesJson = JSON.stringify(def.exposes);
    if (!entry || entry.exposes !== exposesJson) {
      const mapping = mapExposes(def.exposes, { description: def.description, addLqi: true });
      if (mapping.unmapped.length > 0 && !this.loggedModels.has(def.model)) {
        this.loggedModels.add(def.model);
        this.opts.log.info(
          { model: def.model, unmapped: mapping.unmapped },
          'zigbee2mqtt: exposes left out of the mapping',
        );
      }
      entry = {
        base: bridge.base,
        ieee: d.ieee_address,
        friendly: entry?.friendly ?? d.friendly_name,
        ref,
        model: def.model,
        exposes: exposesJson,
        mapping,
        last: entry?.last ?? {},
        waiters: entry?.waiters ?? new Set(),
      };
      bridge.byIeee.set(d.ieee_address, entry);
    }
    if (entry.friendly !== d.friendly_name) {
      if (bridge.byFriendly.get(entry.friendly) === entry) bridge.byFriendly.delete(entry.friendly);
      entry.friendly = d.friendly_name;
    }
    bridge.byFriendly.set(d.friendly_name, entry);

    const name =
      d.friendly_name && d.friendly_name !== d.ieee_address
        ? d.friendly_name
        : def.description || def.model || d.ieee_address;
    const extra = {
      base_topic: bridge.base,
      ieee_address: d.ieee_address,
      friendly_name: d.friendly_name,
      model_id: d.model_id ?? '',
      exposes: def.exposes,
    };
    const existing = host.findByRef(this.id, ref);
    const wasLeft = bridge.left.delete(d.ieee_address);
    const early = bridge.early.get(d.friendly_name);
    bridge.early.delete(d.friendly_name);
    if (!existing) {
      const announcement: DeviceAnnouncement = {
        driver_ref: ref,
        name,
        manufacturer: def.vendor,
        model: def.model,
        firmware_version: d.software_build_id ?? '',
        display_category: entry.mapping.display_category,
        capabilities: entry.mapping.capabilities,
        protocol: 'zigbee',
        online: early?.online ?? true,
        extra,
      };
      host.deviceFound(this.id, announcement);
    } else {
      const prev = existing.extra ?? {};
      const info: Parameters<DriverHost['infoUpdated']>[1] = {};
      if (prev.friendly_name !== d.friendly_name) info.name = name;
      if (JSON.stringify(existing.capabilities) !== JSON.stringify(entry.mapping.capabilities))
        info.capabilities = entry.mapping.capabilities;
      if (info.name !== undefined || info.capabilities || JSON.stringify(prev.exposes) !== exposesJson) {
        info.extra = extra;
        host.infoUpdated(existing.serial_number, info);
      }
      if (wasLeft && !existing.online) host.onlineChanged(existing.serial_number, true);
    }
    if (early?.payload) this.applyState(entry, early.payload);
    if (early?.online !== undefined && existing) this.setOnline(bridge, entry, early.online);
  }

  private onAvailability(bridge: Bridge, friendly: string, msg: unknown): void {
    const state = isObj(msg) ? msg.state : msg;
    if (state !== 'online' && state !== 'offline') return;
    const entry = bridge.byFriendly.get(friendly);
    if (!entry) {
      const early = bridge.early.get(friendly);
      if (early) early.online = state === 'online';
      else if (bridge.early.size < MAX_EARLY) bridge.early.set(friendly, { online: state === 'online' });
      return;
    }
    this.setOnline(bridge, entry, state === 'online');
  }

  private setOnline(bridge: Bridge, entry: Entry, online: boolean): void {
    const serial = this.serialOf(bridge, entry.ieee);
    if (serial) this.host?.onlineChanged(serial, online);
  }

  private onState(bridge: Bridge, friendly: string, msg: unknown): void {
    if (!isObj(msg)) return;
    const entry = bridge.byFriendly.get(friendly);
    if (!entry) {
      if (bridge.early.size < MAX_EARLY || bridge.early.has(friendly)) {
        const early = bridge.early.get(friendly) ?? {};
        early.payload = { ...early.payload, ...msg };
        bridge.early.set(friendly, early);
      }
      return;
    }
    this.applyState(entry, msg);
  }

  /** A Zigbee2MQTT state as an API report, cleaned like every device report (clamped or dropped, with a warning). */
  private apiState(entry: Entry, z: Record<string, unknown>): Record<string, unknown> {
    const clean = sanitizeReport(entry.mapping.capabilities, toApiState(entry.mapping, z));
    if (clean.warnings.length > 0)
      this.opts.log.warn(
        { friendly_name: entry.friendly, warnings: clean.warnings },
        'zigbee2mqtt: reported state cleaned',
      );
    return clean.state;
  }

  private applyState(entry: Entry, msg: Record<string, unknown>): void {
    Object.assign(entry.last, msg);
    const state = this.apiState(entry, msg);
    if (Object.keys(state).length > 0) {
      const bridge = this.bridges.get(entry.base) as Bridge;
      const serial = this.serialOf(bridge, entry.ieee);
      if (serial) this.host?.stateReported(serial, state);
    }
    for (const w of [...entry.waiters]) {
      for (const x of w.expect) if (!w.met.has(x.property) && meets(x, msg[x.property])) w.met.add(x.property);
      if (w.met.size >= w.expect.length) w.done({ ok: true });
    }
  }
}

const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/**
 * One entry of bridge/devices in the shape the driver reads, or undefined when it has no IEEE
 * address. Fields of the wrong type are dropped (a definition without an exposes list counts as
 * none; a friendly name that is not a string is the IEEE address, as Zigbee2MQTT names new devices).
 */
function readDevice(v: unknown): Z2mDevice | undefined {
  if (!isObj(v) || typeof v.ieee_address !== 'string' || v.ieee_address === '' || v.ieee_address.includes('/'))
    return undefined;
  const def = v.definition;
  const definition =
    isObj(def) && Array.isArray(def.exposes)
      ? {
          ...def,
          model: str(def.model),
          vendor: str(def.vendor),
          description: str(def.description),
          exposes: def.exposes.filter(isObj) as Expose[],
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

/** Sends small MQTT packets at once instead of waiting for Nagle's algorithm. */
export function noDelay(client: MqttClient): void {
  const stream = client.stream as { setNoDelay?: (v: boolean) => void } | undefined;
  stream?.setNoDelay?.(true);
}

function fail(code: Extract<Outcome, { ok: false }>['code'], message: string): Outcome {
  return { ok: false, code, message };
}

function pick(o: Record<string, unknown>, keys: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** `<base_topic>/<ieee_address>`: the base topic may itself contain slashes. */
export function splitRef(ref: string): { base: string; ieee: string } {
  const i = ref.lastIndexOf('/');
  return { base: ref.slice(0, i), ieee: ref.slice(i + 1) };
}
