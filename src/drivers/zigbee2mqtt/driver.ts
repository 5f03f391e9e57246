/**
 * The Zigbee2MQTT driver: speaks Zigbee2MQTT's MQTT API (one or more base topics on one broker)
 * and feeds the device registry through the DriverHost contract. The MQTT link is link.ts, each
 * instance's bookkeeping bridge.ts, commands and their confirmation commands.ts. See
 * docs/zigbee.md for the decisions (confirmation time, permit_join maximum, 110001, leave,
 * offline instances, read-back).
 */
import { randomUUID } from 'node:crypto';
import { ErrorCode } from '../../catalog/errors.ts';
import type {
  DeviceRecord,
  Driver,
  DriverCommand,
  DriverHost,
  Outcome,
  Pairing,
  Readiness,
} from '../../core/devices/contract.ts';
import type { ZigbeeUpkeep } from '../../core/zigbee-upkeep/contract.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { LeftOutLog, planGet, planSet, propertiesOf, ReadBackQueue } from '../../zigbee/index.ts';
import { Bridge, DRIVER_ID, type Entry, splitRef } from './bridge.ts';
import { MqttLink } from './link.ts';
import type { Z2mResponse } from './types.ts';
import { Zigbee2mqttUpkeep } from './upkeep.ts';

export { DRIVER_ID, splitRef } from './bridge.ts';

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
  /** MQTT keep-alive in seconds (mqtt.js's 60 by default; sim mode: `zigbee.sim_keepalive_seconds`). */
  keepaliveSeconds?: number;
  /** Interval between two state reads after a connect (read-back); 0 sends them back to back. */
  readPaceMs?: number;
  clock?: Clock;
  log: Log;
  /** Called after the MQTT client is closed (sim mode stops the broker here). */
  onStopped?: () => Promise<void>;
  /** `zigbee.ota_index`: where firmware comes from ('' leaves it to Zigbee2MQTT). */
  otaIndex?: string;
  /** The gateway's data folder (a resolved firmware index is written there). */
  dataDir?: string;
}

export const DEFAULT_CONFIRM_MS = 3000;
export const DEFAULT_REQUEST_MS = 10_000;
export const DEFAULT_READ_PACE_MS = 100;
/** The longest D5 waits for Zigbee2MQTT's answer (inside the 5 s clients wait). */
const REMOVE_WAIT_MS = 4000;

type DeviceTopic = { bridge: Bridge; entry: Entry; kind: 'state' | 'availability' };

export class Zigbee2MqttDriver implements Driver {
  readonly id = DRIVER_ID;
  readonly pairing: Pairing = {
    types: ['zigbee'],
    setDiscovery: (enable) => this.setDiscovery(enable),
    discovering: () => this.discovering(),
  };
  private host?: DriverHost;
  private readonly link: MqttLink;
  private readonly bridges = new Map<string, Bridge>();
  /** Bridge topics, and each known device's topics, to the bridge (and device) they belong to. */
  private readonly bridgeTopics = new Map<string, { bridge: Bridge; sub: string }>();
  private readonly deviceTopics = new Map<string, DeviceTopic>();
  private readonly requests = new Map<string, (r: Z2mResponse) => void>();
  private readonly leftOut: LeftOutLog;
  private readonly readBack: ReadBackQueue;
  private readonly clock: Clock;
  private readonly confirmMs: number;
  private readonly requestMs: number;
  private readonly upkeep: Zigbee2mqttUpkeep;
  /** Firmware updates, groups, bindings and the network map (upkeep.ts). */
  readonly zigbee: ZigbeeUpkeep;

  constructor(private readonly opts: Zigbee2MqttOptions) {
    this.clock = opts.clock ?? systemClock;
    this.confirmMs = opts.confirmMs ?? DEFAULT_CONFIRM_MS;
    this.requestMs = opts.requestMs ?? DEFAULT_REQUEST_MS;
    this.readBack = new ReadBackQueue(opts.readPaceMs ?? DEFAULT_READ_PACE_MS, this.clock);
    this.leftOut = new LeftOutLog(opts.log, 'zigbee2mqtt');
    this.link = new MqttLink({
      url: opts.url,
      reconnectMinMs: opts.reconnectMinMs ?? 500,
      reconnectMaxMs: opts.reconnectMaxMs ?? 30_000,
      ...(opts.keepaliveSeconds !== undefined ? { keepaliveSeconds: opts.keepaliveSeconds } : {}),
      log: opts.log,
      onMessage: (topic, payload) => {
        try {
          this.onMessage(topic, payload);
        } catch (err) {
          this.opts.log.error({ err, topic }, 'zigbee2mqtt: message handling failed');
        }
      },
      onConnect: () => {
        for (const b of this.bridges.values()) b.connected();
      },
    });
    for (const base of opts.baseTopics) {
      const bridge = new Bridge(base, {
        host: () => this.host,
        log: opts.log,
        subscribe: (entry, topics) => this.watch(bridge, entry, topics),
        unsubscribe: (topics) => this.unwatch(topics),
        publish: (topic, payload) => this.link.publish(topic, payload),
        readBack: this.readBack,
        logUnmapped: (model, unmapped) => this.leftOut.note(model, unmapped),
        deviceState: (entry, msg) => this.upkeep.deviceState(bridge, entry, msg),
        changed: () => this.upkeep.changed(bridge),
      });
      this.bridges.set(base, bridge);
      for (const topic of bridge.topics())
        if (!topic.endsWith('/#')) this.bridgeTopics.set(topic, { bridge, sub: topic.slice(base.length + 8) });
    }
    this.upkeep = new Zigbee2mqttUpkeep({
      bridges: this.bridges,
      host: () => this.host,
      connected: () => this.connected(),
      request: (base, what, body, waitMs) => this.request(base, what, body, waitMs),
      publish: (topic, payload) => this.link.publish(topic, payload),
      clock: this.clock,
      log: opts.log,
      otaIndex: opts.otaIndex,
      dataDir: opts.dataDir,
    });
    this.zigbee = this.upkeep;
  }

  /** Whether the MQTT connection is up. */
  connected(): boolean {
    return this.link.connected();
  }

  /** Ready when the broker is connected and every instance said `online` on its bridge/state. */
  ready(): Readiness {
    if (!this.link.connected())
      return { ok: false, reason: `the MQTT broker ${this.link.where || '(not started)'} is not connected` };
    for (const b of this.bridges.values()) {
      if (b.online === undefined) return { ok: false, reason: `no bridge/state from Zigbee2MQTT ${b.base} yet` };
      if (!b.online) return { ok: false, reason: `Zigbee2MQTT ${b.base} is offline (bridge/state)` };
    }
    return { ok: true };
  }

  counters(): Record<string, number> {
    return { mqtt_reconnects: this.link.reconnects };
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
    for (const b of this.bridges.values()) this.link.subscribe(b.topics());
    await this.link.start();
  }

  async stop(): Promise<void> {
    this.readBack.stop();
    for (const b of this.bridges.values()) for (const e of b.entries()) e.waiters.failAll('the gateway is stopping');
    for (const answer of [...this.requests.values()]) answer({ status: 'error', error: 'the gateway is stopping' });
    await this.link.stop();
    await this.opts.onStopped?.();
  }

  /**
   * After a factory reset: the devices are still in Zigbee2MQTT's network, so they are announced
   * again (read from the retained bridge/devices, as at a start), with their state read back.
   */
  async afterReset(): Promise<void> {
    for (const b of this.bridges.values()) {
      for (const e of [...b.entries()]) b.forget(e.ieee);
      b.readAllNext();
      const devices = `${b.base}/bridge/devices`;
      // Subscribing again delivers the retained list at once.
      this.link.unsubscribe([devices]);
      this.link.subscribe([devices]);
    }
  }

  discovering(): boolean {
    const now = this.clock.now();
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
        // `time` is what Zigbee2MQTT 2.x reads (0 closes); `value` is what 1.x reads.
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
      b.permitJoinEnd = enable ? this.clock.now() + time * 1000 : 0;
    }
    return { ok: true };
  }

  async execute(command: DriverCommand): Promise<Outcome> {
    if (command.kind === 'configure') return { ok: true };
    const { base, ieee } = splitRef(command.device.driver_ref);
    const bridge = this.bridges.get(base);
    const entry = bridge?.entryOf(ieee);
    if (command.kind === 'remove') return this.remove(command.device, bridge, entry);
    if (!bridge || !entry) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'Zigbee2MQTT does not list this device (yet)');
    if (bridge.online === false)
      return { ok: false, code: ErrorCode.DEVICE_OFFLINE, message: `Zigbee2MQTT (${base}) is offline`, offline: true };
    if (!command.device.online)
      return { ok: false, code: ErrorCode.DEVICE_OFFLINE, message: 'the device is offline', offline: true };
    if (!this.connected()) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the MQTT broker of Zigbee2MQTT is unreachable');
    const waitMs = command.deadline
      ? Math.max(0, Math.min(this.confirmMs, command.deadline - this.clock.now()))
      : this.confirmMs;
    if (command.kind === 'update-state') {
      const plan = planSet(entry.mapping, command.state);
      if (!plan.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, plan.message);
      const r = await this.send(base, entry, 'set', plan.payload, plan.expect, waitMs);
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
      const props = new Set(plan.expect.map((x) => x.property));
      return { ok: true, state: bridge.apiState(entry, pick(entry.last, props)) };
    }
    // query-state
    const get = planGet(entry.mapping, command.capability);
    if (get.properties.length > 0) {
      const expect = get.properties.map((property) => ({ property, tolerance: 0 }));
      const r = await this.send(base, entry, 'get', get.payload, expect, waitMs);
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
    }
    const props = new Set(propertiesOf(entry.mapping, command.capability));
    const state = bridge.apiState(entry, pick(entry.last, props));
    const value = state[command.capability] ?? command.device.state[command.capability];
    return { ok: true, state: value !== undefined ? { [command.capability]: value } : {} };
  }

  private send(
    base: string,
    entry: Entry,
    verb: 'set' | 'get',
    payload: Record<string, unknown>,
    expect: Parameters<Entry['waiters']['run']>[1],
    waitMs: number,
  ) {
    return entry.waiters.run(verb, expect, waitMs, this.clock, () =>
      this.link
        .publish(`${base}/${entry.friendly}/${verb}`, JSON.stringify(payload))
        .then((err) => (err ? { ok: false, message: `publish failed: ${err.message}` } : { ok: true })),
    );
  }

  private async remove(device: DeviceRecord, bridge: Bridge | undefined, entry: Entry | undefined): Promise<Outcome> {
    if (this.discovering())
      return fail(
        ErrorCode.DISCOVERING_ZIGBEE,
        'the gateway is discovering Zigbee devices; close discovery before removing one',
      );
    const { ieee } = splitRef(device.driver_ref);
    if (!bridge) return { ok: true }; // its base topic is no longer configured: nothing to remove there
    if (!this.connected()) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the MQTT broker of Zigbee2MQTT is unreachable');
    bridge.removing.add(ieee);
    try {
      // Zigbee2MQTT may take about 10 s to give up on a device that does not confirm its leave;
      // clients give up at 5 s, so the answer comes sooner and a late removal still lands.
      const r = await this.request(bridge.base, 'device/remove', { id: ieee, force: false }, REMOVE_WAIT_MS);
      if (r.status === 'ok' || /does not exist/i.test(r.error ?? '')) {
        bridge.removeRequested.delete(ieee);
        bridge.forget(ieee);
        return { ok: true };
      }
      if (r.timedOut) {
        bridge.removeRequested.add(ieee);
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

  private request(
    base: string,
    what: string,
    body: Record<string, unknown>,
    waitMs = this.requestMs,
  ): Promise<Z2mResponse> {
    const transaction = randomUUID();
    return new Promise((resolve) => {
      const cancel = this.clock.setTimer(waitMs, () => {
        this.requests.delete(transaction);
        resolve({ status: 'error', error: `no answer within ${waitMs} ms`, timedOut: true });
      });
      this.requests.set(transaction, (r) => {
        cancel();
        this.requests.delete(transaction);
        resolve(r);
      });
      void this.link.publish(`${base}/bridge/request/${what}`, JSON.stringify({ ...body, transaction }));
    });
  }

  // ---- incoming ----

  private watch(bridge: Bridge, entry: Entry, topics: readonly string[]): void {
    const [state, availability] = topics as [string, string];
    this.deviceTopics.set(state, { bridge, entry, kind: 'state' });
    this.deviceTopics.set(availability, { bridge, entry, kind: 'availability' });
    this.link.subscribe(topics);
  }

  private unwatch(topics: readonly string[]): void {
    for (const t of topics) this.deviceTopics.delete(t);
    this.link.unsubscribe(topics);
  }

  private onMessage(topic: string, payload: Buffer): void {
    // Bridge topics first: a device may be named like one of them (`bridge/...` is refused by Zigbee2MQTT anyway).
    const b = this.bridgeTopics.get(topic);
    if (b) {
      b.bridge.onBridge(b.sub, payload);
      return;
    }
    if (topic.includes('/bridge/response/')) {
      for (const bridge of this.bridges.values()) {
        const prefix = `${bridge.base}/bridge/response/`;
        if (!topic.startsWith(prefix)) continue;
        const { response } = bridge.onBridge(`response/${topic.slice(prefix.length)}`, payload);
        if (response?.transaction !== undefined)
          this.requests.get(String(response.transaction))?.(response as unknown as Z2mResponse);
        return;
      }
    }
    const d = this.deviceTopics.get(topic);
    if (d && d.bridge.entryOf(d.entry.ieee) === d.entry) d.bridge.onDevice(d.entry, d.kind, payload);
  }
}

function fail(code: Extract<Outcome, { ok: false }>['code'], message: string): Outcome {
  return { ok: false, code, message };
}

function pick(o: Record<string, unknown>, keys: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}
