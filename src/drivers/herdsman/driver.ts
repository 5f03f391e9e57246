/**
 * The herdsman driver: Zigbee with no Zigbee2MQTT and no broker. It drives a USB coordinator
 * through zigbee-herdsman (the library Zigbee2MQTT is built on) and runs each device's model from
 * zigbee-herdsman-converters itself, so that a device paired here looks and behaves as the same
 * device behind the Zigbee2MQTT driver: one mapping (src/zigbee/), the same online rules, the
 * same confirmation of commands, the same D1, D5 and 110001 rules (docs/zigbee.md). The
 * coordinator's life is coordinator.ts; the converters converters.ts; reachability
 * availability.ts.
 */
import type { Controller } from 'zigbee-herdsman';
import type { MessagePayload } from 'zigbee-herdsman/dist/controller/events.js';
import { onEvent as convertersOnEvent, type OnEvent } from 'zigbee-herdsman-converters';
import { ErrorCode } from '../../catalog/errors.ts';
import type { DeviceRecord, Driver, DriverCommand, DriverHost, Outcome, Pairing } from '../../core/devices/contract.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import {
  announceZigbeeDevice,
  type Confirmation,
  planGet,
  planSet,
  propertiesOf,
  ReadBackQueue,
  reportedState,
} from '../../zigbee/index.ts';
import type { DriverLog } from '../load.ts';
import { Availability } from './availability.ts';
import {
  answeredBy,
  type ConverterContext,
  fromZigbee,
  type KeyValue,
  toZigbeeGet,
  toZigbeeSet,
  type ZhDevice,
} from './converters.ts';
import { type AdapterFactory, CoordinatorLink } from './coordinator.ts';
import { describe, isEvent, isSleepy, type Node, nodeWaiters } from './nodes.ts';
import type { AdapterType, CoordinatorPort } from './ports.ts';

export const DRIVER_ID = 'herdsman';

export interface HerdsmanOptions {
  /** The Zigbee data folder (network, device database, coordinator backup). */
  dir: string;
  serialPort: string;
  adapter: 'auto' | AdapterType;
  channel: number;
  /** D1 keeps joining open at most this long (zigbee-herdsman's maximum is 254 s). */
  permitJoinSeconds: number;
  /** A mains-powered device silent this long is pinged; a battery-powered one is offline. */
  activeMs: number;
  passiveMs: number;
  log: DriverLog;
  /** Whether zigbee-herdsman's own debug lines go to the log. */
  debug?: boolean;
  /** How long a device has to confirm a command (D4), answer a read (D6), or the coordinator a D1. */
  confirmMs?: number;
  /** How long D5 waits for the device's leave (inside the 5 s clients wait). */
  removeWaitMs?: number;
  /** Interval between two devices' state reads after a start (read-back). */
  readPaceMs?: number;
  /** Interval of the availability check. */
  availabilityCheckMs?: number;
  /** First and longest wait before the coordinator is started again. */
  retryMinMs?: number;
  retryMaxMs?: number;
  clock?: Clock;
  /** Tests: what stands in for the USB coordinator. */
  adapterFactory?: AdapterFactory;
  /** Tests: the serial ports seen. */
  listPorts?: () => CoordinatorPort[];
}

export const DEFAULT_CONFIRM_MS = 3000;
const DEFAULT_REMOVE_WAIT_MS = 4000;
/** A device whose configuration failed (asleep, out of range) is configured again when heard from, at most this often. */
const CONFIGURE_RETRY_MS = 10 * 60_000;

export class HerdsmanDriver implements Driver {
  readonly id = DRIVER_ID;
  readonly pairing: Pairing = {
    types: ['zigbee'],
    setDiscovery: (enable) => this.setDiscovery(enable),
    discovering: () => this.discovering(),
  };
  private host?: DriverHost;
  private readonly link: CoordinatorLink;
  private readonly nodes = new Map<string, Node>();
  private readonly removing = new Set<string>();
  private readonly loggedModels = new Set<string>();
  private readonly availability: Availability;
  private readonly readBack: ReadBackQueue;
  private readonly clock: Clock;
  private readonly confirmMs: number;
  private permitJoinEnd = 0;
  /** Counts coordinator starts and stops: work begun for an earlier start is dropped. */
  private generation = 0;
  private stopped = false;

  constructor(private readonly opts: HerdsmanOptions) {
    this.clock = opts.clock ?? systemClock;
    this.confirmMs = opts.confirmMs ?? DEFAULT_CONFIRM_MS;
    this.readBack = new ReadBackQueue(opts.readPaceMs ?? 100, this.clock);
    this.availability = new Availability(
      {
        activeMs: opts.activeMs,
        passiveMs: opts.passiveMs,
        checkMs: opts.availabilityCheckMs ?? Math.min(60_000, opts.activeMs),
        clock: this.clock,
      },
      {
        ping: (ieee) => this.ping(ieee),
        changed: (ieee, available) => this.availabilityChanged(ieee, available),
        up: () => this.link.controller() !== undefined,
      },
    );
    this.link = new CoordinatorLink({
      dir: opts.dir,
      serialPort: opts.serialPort,
      adapter: opts.adapter,
      channel: opts.channel,
      log: opts.log,
      debug: opts.debug ?? false,
      clock: this.clock,
      retryMinMs: opts.retryMinMs ?? 2000,
      retryMaxMs: opts.retryMaxMs ?? 60_000,
      adapterFactory: opts.adapterFactory,
      listPorts: opts.listPorts,
      attach: (c) => this.attach(c),
      onUp: (c) => this.up(c),
      onDown: (reason) => this.down(reason),
    });
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
    this.availability.start();
    this.link.start();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.generation++;
    this.readBack.stop();
    this.availability.stop();
    for (const node of this.nodes.values()) {
      node.waiters.failAll('the gateway is stopping');
      this.event(node, 'stop');
    }
    await this.link.stop();
  }

  /** Whether the coordinator runs. */
  connected(): boolean {
    return this.link.controller() !== undefined;
  }

  discovering(): boolean {
    return this.connected() && this.permitJoinEnd > this.clock.now();
  }

  async setDiscovery(enable: boolean): Promise<Outcome> {
    const c = this.link.controller();
    if (!c) return fail(ErrorCode.SERVER_ERROR, `the Zigbee coordinator is not running: ${this.link.reason()}`);
    const seconds = enable ? this.opts.permitJoinSeconds : 0;
    const r = await this.within(c.permitJoin(seconds), this.confirmMs);
    if (!r.ok) {
      // Late, it may still open: close it again rather than leave the network open unknown to the API.
      if (enable) c.permitJoin(0).catch(() => {});
      return fail(ErrorCode.SERVER_ERROR, `the coordinator did not ${enable ? 'open' : 'close'} joining: ${r.message}`);
    }
    this.permitJoinEnd = enable ? this.clock.now() + seconds * 1000 : 0;
    return { ok: true };
  }

  async execute(command: DriverCommand): Promise<Outcome> {
    if (command.kind === 'configure') return { ok: true };
    if (command.kind === 'remove') return this.remove(command.device);
    const ieee = command.device.driver_ref;
    const controller = this.link.controller();
    if (!controller)
      return {
        ok: false,
        code: ErrorCode.DEVICE_OFFLINE,
        message: `the Zigbee coordinator is not running: ${this.link.reason()}`,
        offline: true,
      };
    const node = this.nodes.get(ieee);
    if (!node) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the Zigbee network does not know this device (yet)');
    const device = controller.getDeviceByIeeeAddr(ieee);
    if (!command.device.online || node.missing || !device)
      return { ok: false, code: ErrorCode.DEVICE_OFFLINE, message: 'the device is offline', offline: true };
    node.device = device;
    const waitMs = command.deadline
      ? Math.max(0, Math.min(this.confirmMs, command.deadline - this.clock.now()))
      : this.confirmMs;
    if (command.kind === 'update-state') {
      const plan = planSet(node.mapping, command.state);
      if (!plan.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, plan.message);
      const r = await node.waiters.run('set', plan.expect, waitMs, this.clock, () =>
        this.attempt(node, toZigbeeSet(this.context(node), plan.payload)),
      );
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
      const props = new Set(plan.expect.map((x) => x.property));
      return { ok: true, state: this.apiState(node, pick(node.last, props)) };
    }
    // query-state
    const get = planGet(node.mapping, command.capability);
    if (get.properties.length > 0) {
      const expect = get.properties.map((property) => ({ property, tolerance: 0 }));
      const r = await node.waiters.run('get', expect, waitMs, this.clock, () =>
        this.attempt(node, toZigbeeGet(this.context(node), get.properties)),
      );
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
    }
    const props = new Set(propertiesOf(node.mapping, command.capability));
    const state = this.apiState(node, pick(node.last, props));
    const value = state[command.capability] ?? command.device.state[command.capability];
    return { ok: true, state: value !== undefined ? { [command.capability]: value } : {} };
  }

  // ---- commands ----

  /** A command's outcome as a confirmation; a device that did not answer is pinged (availability). */
  private attempt(node: Node, sent: Promise<void>): Promise<Confirmation> {
    return sent.then(
      () => ({ ok: true }),
      (err) => {
        if (!answeredBy(err)) this.availability.suspect(node.ieee);
        return { ok: false, message: `Zigbee: ${errorText(err)}` };
      },
    );
  }

  private async remove(device: DeviceRecord): Promise<Outcome> {
    if (this.discovering())
      return fail(
        ErrorCode.DISCOVERING_ZIGBEE,
        'the gateway is discovering Zigbee devices; close discovery before removing one',
      );
    const ieee = device.driver_ref;
    const controller = this.link.controller();
    if (!controller)
      return fail(ErrorCode.DEVICE_UPDATE_FAILED, `the Zigbee coordinator is not running: ${this.link.reason()}`);
    const zh = controller.getDeviceByIeeeAddr(ieee);
    if (!zh) {
      // It left the network already: nothing to tell it.
      this.forget(ieee);
      return { ok: true };
    }
    const waitMs = this.opts.removeWaitMs ?? DEFAULT_REMOVE_WAIT_MS;
    this.removing.add(ieee);
    const leave = zh.removeFromNetwork();
    const r = await this.within(leave, waitMs);
    if (r.ok) {
      this.removing.delete(ieee);
      this.forget(ieee);
      return { ok: true };
    }
    if (r.timedOut) {
      // A sleeping device confirms its leave when it wakes: a late removal still lands.
      leave.then(
        () => {
          this.removing.delete(ieee);
          this.forget(ieee);
          const serial = this.serialOf(ieee);
          if (serial) this.host?.deviceLeft(serial);
        },
        () => this.removing.delete(ieee),
      );
      return fail(
        ErrorCode.DEVICE_UPDATE_FAILED,
        `the device has not confirmed its removal within ${waitMs} ms; if it does later, the device is removed then (deleteDevice event)`,
      );
    }
    this.removing.delete(ieee);
    return fail(ErrorCode.DEVICE_UPDATE_FAILED, `Zigbee: the device did not leave the network: ${r.message}`);
  }

  /** Forgets a device removed from the network. */
  private forget(ieee: string): void {
    const node = this.nodes.get(ieee);
    this.nodes.delete(ieee);
    this.availability.forget(ieee);
    this.readBack.drop((key) => key === ieee);
    if (!node) return;
    node.waiters.failAll('the device was removed');
    this.event(node, 'stop');
  }

  /** Settles with the promise, or fails after `ms`. */
  private within(
    p: Promise<unknown>,
    ms: number,
  ): Promise<{ ok: true } | { ok: false; message: string; timedOut?: boolean }> {
    return new Promise((resolve) => {
      const timer = this.clock.setTimeout(
        () => resolve({ ok: false, message: `no answer within ${ms} ms`, timedOut: true }),
        ms,
      );
      p.then(
        () => {
          this.clock.clearTimeout(timer);
          resolve({ ok: true });
        },
        (err) => {
          this.clock.clearTimeout(timer);
          resolve({ ok: false, message: errorText(err) });
        },
      );
    });
  }

  private async ping(ieee: string): Promise<void> {
    const device = this.link.controller()?.getDeviceByIeeeAddr(ieee);
    if (!device) throw new Error('not in the network');
    await device.ping(true);
  }

  // ---- the coordinator ----

  private up(controller: Controller): void {
    const generation = ++this.generation;
    this.permitJoinEnd = 0;
    this.adopt(controller, generation).catch((err) =>
      this.opts.log.error({ err }, 'zigbee: the devices of the coordinator could not be read'),
    );
  }

  private down(reason: string): void {
    this.generation++;
    this.permitJoinEnd = 0;
    this.readBack.drop(() => true);
    for (const node of this.nodes.values()) {
      node.waiters.failAll(`the Zigbee coordinator stopped: ${reason}`);
      this.event(node, 'stop');
    }
    const host = this.host;
    if (!host || this.stopped) return;
    host.batch(() => {
      for (const r of host.listByDriver(DRIVER_ID)) host.onlineChanged(r.serial_number, false);
    });
  }

  /** After a start: every interviewed device of the coordinator's database is announced (or reconciled), the others kept offline. */
  private async adopt(controller: Controller, generation: number): Promise<void> {
    const found: Node[] = [];
    for (const device of controller.getDevicesIterator((d) => d.type !== 'Coordinator')) {
      if (device.interviewState !== 'SUCCESSFUL') continue;
      const node = await this.nodeOf(device);
      if (generation !== this.generation) return;
      if (node) found.push(node);
    }
    const host = this.host;
    if (!host) return;
    const present = new Set(found.map((n) => n.ieee));
    host.batch(() => {
      for (const node of found) this.announce(host, node);
      for (const r of host.listByDriver(DRIVER_ID)) {
        if (present.has(r.driver_ref)) continue;
        const node = this.nodes.get(r.driver_ref);
        if (node) node.missing = true;
        host.onlineChanged(r.serial_number, false);
      }
    });
    for (const node of found) {
      this.event(node, 'start');
      this.configure(node);
      this.queueRead(node);
    }
  }

  /** The node of an interviewed device (its model found, its exposes mapped), or undefined when it has no model. */
  private async nodeOf(device: ZhDevice): Promise<Node | undefined> {
    let d: Awaited<ReturnType<typeof describe>>;
    try {
      d = await describe(device);
    } catch (err) {
      this.opts.log.error({ err, ieee_address: device.ieeeAddr }, 'zigbee: the model of the device could not be found');
      return undefined;
    }
    if (!d) {
      this.opts.log.warn(
        { ieee_address: device.ieeeAddr, model_id: device.modelID },
        'zigbee: no definition for the device: it is not added',
      );
      return undefined;
    }
    const model = d.definition.model;
    if (d.mapping.unmapped.length > 0 && !this.loggedModels.has(model)) {
      this.loggedModels.add(model);
      this.opts.log.info({ model, unmapped: d.mapping.unmapped }, 'zigbee: exposes left out of the mapping');
    }
    const before = this.nodes.get(device.ieeeAddr);
    const node: Node = {
      ieee: device.ieeeAddr,
      device,
      ...d,
      last: before?.last ?? {},
      waiters: before?.waiters ?? nodeWaiters(),
      missing: false,
      sleepy: isSleepy(device),
      configuring: false,
      configureAfter: 0,
    };
    this.nodes.set(node.ieee, node);
    this.availability.track(node.ieee, !node.sleepy, device.lastSeen ?? this.clock.now());
    return node;
  }

  private announce(host: DriverHost, node: Node): void {
    const def = node.definition;
    const { added } = announceZigbeeDevice(host, DRIVER_ID, {
      ref: node.ieee,
      ieee: node.ieee,
      adoptFrom: ['zigbee2mqtt'],
      name: def.description || def.model || node.ieee,
      vendor: def.vendor,
      model: def.model,
      firmware: node.device.softwareBuildID ?? '',
      exposes: node.exposes,
      exposesJson: node.exposesJson,
      mapping: node.mapping,
      online: this.online(node),
      extra: { ieee_address: node.ieee, model_id: node.device.modelID ?? '' },
      // The coordinator has no names of its own: the gateway's name is the only one.
      renamed: () => false,
    });
    if (!added) this.syncOnline(node);
  }

  // ---- events of the network ----

  private attach(controller: Controller): void {
    const guard =
      <A extends unknown[]>(what: string, fn: (...args: A) => unknown) =>
      (...args: A) => {
        try {
          const r = fn(...args);
          if (r instanceof Promise) r.catch((err) => this.opts.log.error({ err }, `zigbee: ${what} failed`));
        } catch (err) {
          this.opts.log.error({ err }, `zigbee: ${what} failed`);
        }
      };
    controller.on(
      'message',
      guard('a message of a device', (m) => this.onMessage(m)),
    );
    controller.on(
      'lastSeenChanged',
      guard('last seen', ({ device }) => this.onSeen(device)),
    );
    controller.on(
      'deviceJoined',
      guard('a join', ({ device }) =>
        this.opts.log.info({ ieee_address: device.ieeeAddr }, 'zigbee: a device joined; interviewing it'),
      ),
    );
    controller.on(
      'deviceInterview',
      guard('an interview', (e) => this.onInterview(controller, e.status, e.device)),
    );
    controller.on(
      'deviceAnnounce',
      guard('an announce', ({ device }) => this.onAnnounce(device)),
    );
    controller.on(
      'deviceLeave',
      guard('a leave', ({ ieeeAddr }) => this.onLeave(ieeeAddr)),
    );
    controller.on(
      'permitJoinChanged',
      guard('joining', ({ permitted }) => {
        if (!permitted) this.permitJoinEnd = 0;
      }),
    );
  }

  private onMessage(m: MessagePayload): void {
    const node = this.nodes.get(m.device.ieeeAddr);
    if (!node) return;
    node.device = m.device;
    const z = fromZigbee(this.context(node), m, (err) =>
      this.opts.log.warn({ err: errorText(err), ieee_address: node.ieee }, 'zigbee: a converter failed'),
    );
    if (Object.keys(z).length === 0) return;
    // Zigbee2MQTT puts the link quality of the message into every state it publishes.
    z.linkquality = m.linkquality;
    this.publish(node, z);
  }

  private onSeen(device: ZhDevice): void {
    this.availability.seen(device.ieeeAddr);
    const node = this.nodes.get(device.ieeeAddr);
    // A device that could not be configured (asleep) is awake now.
    if (node && !node.configuring && node.configureAfter > 0) {
      node.device = device;
      this.configure(node);
    }
  }

  private async onInterview(controller: Controller, status: string, device: ZhDevice): Promise<void> {
    const ieee_address = device.ieeeAddr;
    if (status === 'started') {
      this.opts.log.info({ ieee_address }, 'zigbee: interview started');
      return;
    }
    if (status !== 'successful') {
      this.opts.log.warn({ ieee_address }, 'zigbee: interview failed; reset the device and pair it again');
      return;
    }
    const generation = this.generation;
    const node = await this.nodeOf(device);
    const host = this.host;
    if (!node || !host || generation !== this.generation || this.link.controller() !== controller) return;
    this.opts.log.info(
      { ieee_address, model: node.definition.model, vendor: node.definition.vendor },
      'zigbee: device interviewed',
    );
    this.availability.seen(node.ieee);
    host.batch(() => this.announce(host, node));
    this.event(node, 'deviceInterview');
    this.configure(node);
    this.queueRead(node);
  }

  private onAnnounce(device: ZhDevice): void {
    const node = this.nodes.get(device.ieeeAddr);
    if (!node) return;
    node.device = device;
    this.availability.seen(node.ieee);
    this.event(node, 'deviceAnnounce');
    // Back from a power cut or a rejoin: what it did meanwhile was not heard.
    this.queueRead(node);
    this.configure(node);
  }

  private onLeave(ieee: string): void {
    const node = this.nodes.get(ieee);
    if (!node || this.removing.has(ieee)) return;
    // Kept, offline, until a client removes it (D5), as the hardware gateways do.
    node.missing = true;
    node.waiters.failAll('the device left the network');
    this.readBack.drop((key) => key === ieee);
    this.opts.log.info({ ieee_address: ieee }, 'zigbee: a device left the network; kept, offline');
    this.syncOnline(node);
  }

  private availabilityChanged(ieee: string, available: boolean): void {
    const node = this.nodes.get(ieee);
    if (!node) return;
    this.opts.log.info({ ieee_address: ieee, available }, `zigbee: device ${available ? 'back' : 'not answering'}`);
    this.syncOnline(node);
    if (available) this.queueRead(node);
  }

  // ---- state ----

  private context(node: Node): ConverterContext {
    return {
      definition: node.definition,
      device: node.device,
      state: node.last,
      publish: (z) => this.publish(node, z),
      exposesChanged: () => void this.remap(node),
    };
  }

  /** A state of the device (a message, or a command's result): kept, reported, and matched against commands in flight. */
  private publish(node: Node, z: KeyValue): void {
    if (this.nodes.get(node.ieee) !== node) return;
    for (const [k, v] of Object.entries(z)) if (!isEvent(k)) node.last[k] = v;
    const state = this.apiState(node, z);
    const serial = this.serialOf(node.ieee);
    if (serial && Object.keys(state).length > 0) this.host?.stateReported(serial, state);
    node.waiters.stateSeen(z);
  }

  private apiState(node: Node, z: KeyValue): KeyValue {
    return reportedState(node.mapping, z, (warnings) =>
      this.opts.log.warn({ ieee_address: node.ieee, warnings }, 'zigbee: reported state cleaned'),
    );
  }

  /** The device's exposes changed (some models expose per configuration): mapped again. */
  private async remap(node: Node): Promise<void> {
    const fresh = await this.nodeOf(node.device);
    const host = this.host;
    if (fresh && host) host.batch(() => this.announce(host, fresh));
  }

  private online(node: Node): boolean {
    return this.connected() && !node.missing && this.availability.available(node.ieee);
  }

  private syncOnline(node: Node): void {
    const serial = this.serialOf(node.ieee);
    if (serial) this.host?.onlineChanged(serial, this.online(node));
  }

  private serialOf(ieee: string): string | undefined {
    return this.host?.findByRef(DRIVER_ID, ieee)?.serial_number;
  }

  private queueRead(node: Node): void {
    if (node.sleepy || node.readable.length === 0) return;
    this.readBack.add({
      key: node.ieee,
      send: () => {
        if (this.nodes.get(node.ieee) !== node || !this.online(node)) return false;
        toZigbeeGet(this.context(node), node.readable).catch((err) => {
          this.opts.log.debug({ err: errorText(err), ieee_address: node.ieee }, 'zigbee: read-back failed');
          if (!answeredBy(err)) this.availability.suspect(node.ieee);
        });
        return true;
      },
    });
  }

  /** Binds and configures reporting as the model defines, once per model version (kept in herdsman's database). */
  private configure(node: Node): void {
    const def = node.definition;
    const configure = def.configure;
    if (!configure || node.configuring || this.clock.now() < node.configureAfter) return;
    const key = `${def.model}@${def.version}`;
    const device = node.device;
    if (device.meta?.opencube_configured === key) return;
    const coordinator = this.link.controller()?.getDevicesByType('Coordinator')[0]?.getEndpoint(1);
    if (!coordinator) return;
    node.configuring = true;
    const generation = this.generation;
    Promise.resolve()
      .then(() => configure(device as never, coordinator as never, def))
      .then(
        () => {
          // A sleeping device may answer after the coordinator stopped: its database is closed then.
          if (generation !== this.generation) return;
          device.meta.opencube_configured = key;
          device.save();
          node.configureAfter = 0;
          this.opts.log.info({ ieee_address: node.ieee, model: def.model }, 'zigbee: device configured');
        },
        (err) => {
          if (generation !== this.generation) return;
          node.configureAfter = this.clock.now() + CONFIGURE_RETRY_MS;
          this.opts.log.warn(
            { ieee_address: node.ieee, model: def.model, err: errorText(err) },
            'zigbee: device not configured (bindings, reporting); tried again when it is heard from',
          );
        },
      )
      .finally(() => {
        node.configuring = false;
      });
  }

  /** Tells the converters of an event of the device (some models set up polling or answer time requests). */
  private event(node: Node, type: 'start' | 'stop' | 'deviceInterview' | 'deviceAnnounce'): void {
    const data = {
      device: node.device,
      deviceExposesChanged: () => void this.remap(node),
      state: node.last,
      options: {},
    };
    const e = (
      type === 'stop'
        ? { type, data: { ieeeAddr: node.ieee } }
        : type === 'deviceInterview'
          ? { type, data: { ...data, status: 'successful' } }
          : { type, data }
    ) as OnEvent.Event;
    const failed = (err: unknown) =>
      this.opts.log.debug(
        { err: errorText(err), ieee_address: node.ieee, event: type },
        'zigbee: converter event failed',
      );
    for (const handler of [convertersOnEvent, node.definition.onEvent]) {
      if (!handler) continue;
      try {
        Promise.resolve(handler(e)).catch(failed);
      } catch (err) {
        failed(err);
      }
    }
  }
}

function fail(code: Extract<Outcome, { ok: false }>['code'], message: string): Outcome {
  return { ok: false, code, message };
}

function pick(o: KeyValue, keys: Set<string>): KeyValue {
  const out: KeyValue = {};
  for (const k of keys) if (o[k] !== undefined) out[k] = o[k];
  return out;
}

/** An error's message on one line. */
export function errorText(err: unknown): string {
  const s = err instanceof Error ? err.message : String(err);
  return s.replace(/\s+/g, ' ').trim();
}
