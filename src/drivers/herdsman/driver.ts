/**
 * The herdsman driver: Zigbee with no Zigbee2MQTT and no broker. It drives a USB coordinator
 * through zigbee-herdsman (the library Zigbee2MQTT is built on) and runs each device's model from
 * zigbee-herdsman-converters itself, so that a device paired here looks and behaves as the same
 * device behind the Zigbee2MQTT driver: one mapping (src/zigbee/), the same online rules, the
 * same confirmation of commands, the same D1, D5 and 110001 rules (docs/zigbee.md). This file
 * answers clients; the coordinator's life is coordinator.ts, the devices on the network's side
 * devices.ts, their converters converters.ts, reachability availability.ts.
 */
import type { Controller } from 'zigbee-herdsman';
import { ErrorCode } from '../../catalog/errors.ts';
import type { DeviceRecord, Driver, DriverCommand, DriverHost, Outcome, Pairing } from '../../core/devices/contract.ts';
import type { ZigbeeUpkeep } from '../../core/zigbee-upkeep/contract.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { type Confirmation, planGet, planSet, propertiesOf, ReadBackQueue } from '../../zigbee/index.ts';
import { Availability } from './availability.ts';
import { answeredBy, errorText, type KeyValue, toZigbeeGet, toZigbeeSet } from './converters.ts';
import { type AdapterFactory, CoordinatorLink } from './coordinator.ts';
import { Devices, DRIVER_ID } from './devices.ts';
import type { Node } from './nodes.ts';
import { HerdsmanOta } from './ota.ts';
import type { AdapterType, CoordinatorPort } from './ports.ts';
import { HerdsmanUpkeep } from './upkeep.ts';
import { within } from './within.ts';

export { DRIVER_ID } from './devices.ts';

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
  log: Log;
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
  /** How often the running coordinator is asked whether it still answers (0: never), and how long it has to answer. */
  coordinatorCheckMs?: number;
  coordinatorAnswerMs?: number;
  clock?: Clock;
  /** `zigbee.ota_index`: where firmware comes from ('' for the public index). */
  otaIndex?: string;
  /** Firmware updates: the pause between image blocks (Zigbee2MQTT's 250 ms), how long a block request may take, progress at most this often. */
  otaResponseDelayMs?: number;
  otaRequestTimeoutMs?: number;
  otaProgressEveryMs?: number;
  /** Network map: the pause between two routers (1 s) and before a retry (5 s), as Zigbee2MQTT paces a scan. */
  scanPaceMs?: number;
  scanRetryMs?: number;
  /** How long a device has to answer a group, binding or map request. */
  upkeepRequestMs?: number;
  /** After a firmware update, the pause before the device is interviewed again (Zigbee2MQTT's 5 s). */
  reinterviewDelayMs?: number;
  /** Tests: what stands in for the USB coordinator. */
  adapterFactory?: AdapterFactory;
  /** Tests: the serial ports seen. */
  listPorts?: () => CoordinatorPort[];
}

export const DEFAULT_CONFIRM_MS = 3000;
const DEFAULT_REMOVE_WAIT_MS = 4000;
/**
 * A coordinator is asked every minute whether it answers and has 20 s to (its queue may hold
 * requests to slow devices, each waited on up to 10 s); two misses in a row take it down: a hung
 * firmware is found within about 100 s.
 */
export const DEFAULT_COORDINATOR_CHECK_MS = 60_000;
export const DEFAULT_COORDINATOR_ANSWER_MS = 20_000;

export class HerdsmanDriver implements Driver {
  readonly id = DRIVER_ID;
  readonly pairing: Pairing = {
    types: ['zigbee'],
    setDiscovery: (enable) => this.setDiscovery(enable),
    discovering: () => this.discovering(),
  };
  private host?: DriverHost;
  private readonly link: CoordinatorLink;
  private readonly devices: Devices;
  private readonly availability: Availability;
  private readonly readBack: ReadBackQueue;
  private readonly clock: Clock;
  private readonly confirmMs: number;
  private permitJoinEnd = 0;
  private readonly ota: HerdsmanOta;
  private readonly upkeep: HerdsmanUpkeep;
  /** Firmware updates, groups, bindings and the network map (upkeep.ts, ota.ts). */
  readonly zigbee: ZigbeeUpkeep;

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
        changed: (ieee, available) => this.devices.availabilityChanged(ieee, available),
        up: () => this.connected(),
      },
    );
    this.devices = new Devices({
      host: () => this.host,
      controller: () => this.link.controller(),
      joiningClosed: () => {
        this.permitJoinEnd = 0;
      },
      availability: this.availability,
      readBack: this.readBack,
      clock: this.clock,
      log: opts.log,
      stateChanged: (node) => this.upkeep.stateChanged(node),
      tookUp: () => this.upkeep.changed(),
    });
    this.ota = new HerdsmanOta({
      index: opts.otaIndex ?? '',
      dir: opts.dir,
      clock: this.clock,
      log: opts.log,
      responseDelayMs: opts.otaResponseDelayMs,
      requestTimeoutMs: opts.otaRequestTimeoutMs,
      progressEveryMs: opts.otaProgressEveryMs,
    });
    this.upkeep = new HerdsmanUpkeep({
      controller: () => this.link.controller(),
      reason: () => this.link.reason(),
      devices: this.devices,
      ota: this.ota,
      clock: this.clock,
      log: opts.log,
      scanPaceMs: opts.scanPaceMs ?? 1000,
      scanRetryMs: opts.scanRetryMs ?? 5000,
      requestMs: opts.upkeepRequestMs ?? 10_000,
      reinterviewDelayMs: opts.reinterviewDelayMs ?? 5000,
    });
    this.zigbee = this.upkeep;
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
      watchEveryMs: opts.coordinatorCheckMs ?? DEFAULT_COORDINATOR_CHECK_MS,
      watchAnswerMs: opts.coordinatorAnswerMs ?? DEFAULT_COORDINATOR_ANSWER_MS,
      adapterFactory: opts.adapterFactory,
      listPorts: opts.listPorts,
      attach: (c) => {
        this.devices.attach(c);
        this.ota.attach(c);
      },
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
    this.readBack.stop();
    this.availability.stop();
    this.devices.stop();
    await this.link.stop();
  }

  /** Whether the coordinator runs. */
  connected(): boolean {
    return this.link.controller() !== undefined;
  }

  discovering(): boolean {
    return this.connected() && this.permitJoinEnd > this.clock.now();
  }

  /** After a factory reset: the network's devices join the gateway again (as with Zigbee2MQTT). */
  async afterReset(): Promise<void> {
    this.devices.reannounce();
  }

  async setDiscovery(enable: boolean): Promise<Outcome> {
    const c = this.link.controller();
    if (!c) return fail(ErrorCode.SERVER_ERROR, `the Zigbee coordinator is not running: ${this.link.reason()}`);
    const seconds = enable ? this.opts.permitJoinSeconds : 0;
    const r = await within(this.clock, c.permitJoin(seconds), this.confirmMs);
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
    const node = this.devices.get(ieee);
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
        this.attempt(node, toZigbeeSet(this.devices.context(node), plan.payload)),
      );
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
      const props = new Set(plan.expect.map((x) => x.property));
      return { ok: true, state: this.devices.apiState(node, pick(node.last, props)) };
    }
    // query-state
    const get = planGet(node.mapping, command.capability);
    if (get.properties.length > 0) {
      const expect = get.properties.map((property) => ({ property, tolerance: 0 }));
      const r = await node.waiters.run('get', expect, waitMs, this.clock, () =>
        this.attempt(node, toZigbeeGet(this.devices.context(node), get.properties)),
      );
      if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, r.message);
    }
    const props = new Set(propertiesOf(node.mapping, command.capability));
    const state = this.devices.apiState(node, pick(node.last, props));
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
      this.devices.forget(ieee);
      return { ok: true };
    }
    const waitMs = this.opts.removeWaitMs ?? DEFAULT_REMOVE_WAIT_MS;
    this.devices.removing.add(ieee);
    const leave = zh.removeFromNetwork();
    const r = await within(this.clock, leave, waitMs);
    if (r.ok) {
      this.devices.removing.delete(ieee);
      this.devices.forget(ieee);
      return { ok: true };
    }
    if (r.timedOut) {
      // A sleeping device confirms its leave when it wakes: a late removal still lands.
      leave.then(
        () => {
          this.devices.removing.delete(ieee);
          this.devices.forget(ieee);
          const serial = this.devices.serialOf(ieee);
          if (serial) this.host?.deviceLeft(serial);
        },
        () => this.devices.removing.delete(ieee),
      );
      return fail(
        ErrorCode.DEVICE_UPDATE_FAILED,
        `the device has not confirmed its removal within ${waitMs} ms; if it does later, the device is removed then (deleteDevice event)`,
      );
    }
    this.devices.removing.delete(ieee);
    return fail(ErrorCode.DEVICE_UPDATE_FAILED, `Zigbee: the device did not leave the network: ${r.message}`);
  }

  private async ping(ieee: string): Promise<void> {
    const device = this.link.controller()?.getDeviceByIeeeAddr(ieee);
    if (!device) throw new Error('not in the network');
    await device.ping(true);
  }

  // ---- the coordinator ----

  private up(controller: Controller): void {
    this.permitJoinEnd = 0;
    this.devices.up(controller);
  }

  private down(reason: string): void {
    this.permitJoinEnd = 0;
    this.devices.down(reason);
    this.upkeep.changed();
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
