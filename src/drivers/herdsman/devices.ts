/**
 * The devices of the coordinator's network as the herdsman driver follows them: found (after
 * every start of the coordinator, and after every interview), announced to the registry through
 * the shared announcement (src/zigbee/), configured, read back, kept online or offline, and fed
 * with what they send through their models' converters. The driver (driver.ts) answers clients;
 * this is what happens on the network's side.
 */
import type { Controller } from 'zigbee-herdsman';
import type { MessagePayload } from 'zigbee-herdsman/dist/controller/events.js';
import { onEvent as convertersOnEvent, type OnEvent } from 'zigbee-herdsman-converters';
import type { DriverHost } from '../../core/devices/contract.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { announceZigbeeDevice, LeftOutLog, type ReadBackQueue, reportedState } from '../../zigbee/index.ts';
import type { Availability } from './availability.ts';
import {
  answeredBy,
  type ConverterContext,
  errorText,
  fromZigbee,
  type KeyValue,
  toZigbeeGet,
  type ZhDevice,
} from './converters.ts';
import { describe, isEvent, isSleepy, type Node, nodeWaiters } from './nodes.ts';

export const DRIVER_ID = 'herdsman';

/** A device whose configuration failed (asleep, out of range) is configured again when heard from, at most this often. */
const CONFIGURE_RETRY_MS = 10 * 60_000;

/** What the devices need from the driver. */
export interface DevicesDeps {
  host(): DriverHost | undefined;
  /** The running controller, if the coordinator runs. */
  controller(): Controller | undefined;
  /** Joining closed by itself (its window ended). */
  joiningClosed(): void;
  availability: Availability;
  readBack: ReadBackQueue;
  clock: Clock;
  log: Log;
  /** A device's state changed (the groups it is in follow it). */
  stateChanged?(node: Node): void;
  /** The devices of a coordinator that started are taken up (their models known). */
  tookUp?(): void;
}

export class Devices {
  /** Removals in flight (D5): their leave is not a device leaving by itself. */
  readonly removing = new Set<string>();
  private readonly nodes = new Map<string, Node>();
  private readonly leftOut: LeftOutLog;
  /** Counts coordinator starts and stops: work begun for an earlier start is dropped. */
  private generation = 0;
  private stopped = false;

  constructor(private readonly deps: DevicesDeps) {
    this.leftOut = new LeftOutLog(deps.log, 'zigbee');
  }

  /** The device with this IEEE address, if the network has it. */
  get(ieee: string): Node | undefined {
    return this.nodes.get(ieee);
  }

  /** The coordinator runs: its devices are taken up. */
  up(controller: Controller): void {
    const generation = ++this.generation;
    this.takeUp(controller, generation).catch((err) =>
      this.deps.log.error({ err }, 'zigbee: the devices of the coordinator could not be read'),
    );
  }

  /** The coordinator stopped: every device offline, every command in flight failed. */
  down(reason: string): void {
    this.generation++;
    this.deps.readBack.drop(() => true);
    for (const node of this.nodes.values()) {
      node.waiters.failAll(`the Zigbee coordinator stopped: ${reason}`);
      this.event(node, 'stop');
    }
    const host = this.deps.host();
    if (!host || this.stopped) return;
    host.batch(() => {
      for (const r of host.listByDriver(DRIVER_ID)) host.onlineChanged(r.serial_number, false);
    });
  }

  /** The gateway stops. */
  stop(): void {
    this.stopped = true;
    this.generation++;
    for (const node of this.nodes.values()) {
      node.waiters.failAll('the gateway is stopping');
      this.event(node, 'stop');
    }
  }

  /** Forgets a device removed from the network. */
  forget(ieee: string): void {
    const node = this.nodes.get(ieee);
    this.nodes.delete(ieee);
    this.deps.availability.forget(ieee);
    this.deps.readBack.drop((key) => key === ieee);
    if (!node) return;
    node.waiters.failAll('the device was removed');
    this.event(node, 'stop');
  }

  /** After a factory reset: the devices are still in the coordinator's network, so they are announced again. */
  reannounce(): void {
    const host = this.deps.host();
    if (!host) return;
    const nodes = [...this.nodes.values()].filter((n) => !n.missing);
    host.batch(() => {
      for (const node of nodes) this.announce(host, node);
    });
    for (const node of nodes) this.queueRead(node);
  }

  // ---- after a start ----

  /** After a start: every interviewed device of the coordinator's database is announced (or reconciled), the others kept offline. */
  private async takeUp(controller: Controller, generation: number): Promise<void> {
    const found: Node[] = [];
    for (const device of controller.getDevicesIterator((d) => d.type !== 'Coordinator')) {
      if (device.interviewState !== 'SUCCESSFUL') continue;
      const node = await this.nodeOf(device);
      if (generation !== this.generation) return;
      if (node) found.push(node);
    }
    const host = this.deps.host();
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
    this.deps.tookUp?.();
  }

  /** The node of an interviewed device (its model found, its exposes mapped), or undefined when it has no model. */
  private async nodeOf(device: ZhDevice): Promise<Node | undefined> {
    let d: Awaited<ReturnType<typeof describe>>;
    try {
      d = await describe(device);
    } catch (err) {
      this.deps.log.error({ err, ieee_address: device.ieeeAddr }, 'zigbee: the model of the device could not be found');
      return undefined;
    }
    if (!d) {
      this.deps.log.warn(
        { ieee_address: device.ieeeAddr, model_id: device.modelID },
        'zigbee: no definition for the device: it is not added',
      );
      return undefined;
    }
    const model = d.definition.model;
    this.leftOut.note(model, d.mapping.unmapped);
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
    this.deps.availability.track(node.ieee, !node.sleepy, device.lastSeen ?? this.deps.clock.now());
    return node;
  }

  private announce(host: DriverHost, node: Node): void {
    const def = node.definition;
    const announced = announceZigbeeDevice(host, DRIVER_ID, {
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
    if ('refused' in announced)
      this.deps.log.warn({ ieee: node.ieee, reason: announced.refused }, 'zigbee: device not added');
    else if (!announced.added) this.syncOnline(node);
  }

  // ---- events of the network ----

  /** Follows the events of a controller (subscribed before it starts). */
  attach(controller: Controller): void {
    const guard =
      <A extends unknown[]>(what: string, fn: (...args: A) => unknown) =>
      (...args: A) => {
        try {
          const r = fn(...args);
          if (r instanceof Promise) r.catch((err) => this.deps.log.error({ err }, `zigbee: ${what} failed`));
        } catch (err) {
          this.deps.log.error({ err }, `zigbee: ${what} failed`);
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
        this.deps.log.info({ ieee_address: device.ieeeAddr }, 'zigbee: a device joined; interviewing it'),
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
        if (!permitted) this.deps.joiningClosed();
      }),
    );
  }

  private onMessage(m: MessagePayload): void {
    const node = this.nodes.get(m.device.ieeeAddr);
    if (!node) return;
    node.device = m.device;
    const z = fromZigbee(this.context(node), m, (err) =>
      this.deps.log.warn({ err: errorText(err), ieee_address: node.ieee }, 'zigbee: a converter failed'),
    );
    if (Object.keys(z).length === 0) return;
    // Zigbee2MQTT puts the link quality of the message into every state it publishes.
    z.linkquality = m.linkquality;
    this.publish(node, z);
  }

  private onSeen(device: ZhDevice): void {
    this.deps.availability.seen(device.ieeeAddr);
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
      this.deps.log.info({ ieee_address }, 'zigbee: interview started');
      return;
    }
    if (status !== 'successful') {
      this.deps.log.warn({ ieee_address }, 'zigbee: interview failed; reset the device and pair it again');
      return;
    }
    const generation = this.generation;
    const node = await this.nodeOf(device);
    const host = this.deps.host();
    if (!node || !host || generation !== this.generation || this.deps.controller() !== controller) return;
    this.deps.log.info(
      { ieee_address, model: node.definition.model, vendor: node.definition.vendor },
      'zigbee: device interviewed',
    );
    this.deps.availability.seen(node.ieee);
    host.batch(() => this.announce(host, node));
    this.event(node, 'deviceInterview');
    this.configure(node);
    this.queueRead(node);
  }

  private onAnnounce(device: ZhDevice): void {
    const node = this.nodes.get(device.ieeeAddr);
    if (!node) return;
    node.device = device;
    this.deps.availability.seen(node.ieee);
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
    this.deps.readBack.drop((key) => key === ieee);
    const serial = this.serialOf(ieee);
    const name = (serial && this.deps.host()?.get(serial)?.name) || ieee;
    // The activity log's line: by the name the user knows the device by, as Zigbee2MQTT's are.
    this.deps.log.info({ serial_number: serial, ieee_address: ieee }, `device left: ${name}`);
    this.syncOnline(node);
  }

  /** A device became reachable or unreachable (availability.ts). */
  availabilityChanged(ieee: string, available: boolean): void {
    const node = this.nodes.get(ieee);
    if (!node) return;
    this.deps.log.info({ ieee_address: ieee, available }, `zigbee: device ${available ? 'back' : 'not answering'}`);
    this.syncOnline(node);
    if (available) this.queueRead(node);
  }

  // ---- state ----

  /** What the converters of a device run with. */
  context(node: Node): ConverterContext {
    return {
      definition: node.definition,
      device: node.device,
      state: node.last,
      publish: (z) => this.publish(node, z),
      exposesChanged: () => void this.remap(node),
    };
  }

  /** A state of the device (a message, or a command's result): kept, reported, and matched against commands in flight. */
  publish(node: Node, z: KeyValue): void {
    if (this.nodes.get(node.ieee) !== node) return;
    for (const [k, v] of Object.entries(z)) if (!isEvent(k)) node.last[k] = v;
    const state = this.apiState(node, z);
    const serial = this.serialOf(node.ieee);
    if (serial && Object.keys(state).length > 0) this.deps.host()?.stateReported(serial, state);
    node.waiters.stateSeen(z);
    this.deps.stateChanged?.(node);
  }

  /** A state in Zigbee2MQTT's form as API state, cleaned. */
  apiState(node: Node, z: KeyValue): KeyValue {
    return reportedState(node.mapping, z, (warnings) =>
      this.deps.log.warn({ ieee_address: node.ieee, warnings }, 'zigbee: reported state cleaned'),
    );
  }

  /**
   * Interviews a device again (after a firmware update): its endpoints, clusters and Basic
   * attributes read afresh, its model found again, announced (its capabilities follow a change),
   * configured again and read back. A failure is logged; the device keeps what it had.
   */
  async reinterview(ieee: string): Promise<void> {
    const node = this.nodes.get(ieee);
    const controller = this.deps.controller();
    if (!node || !controller || this.stopped) return;
    const device = node.device;
    const generation = this.generation;
    this.deps.log.info({ ieee_address: ieee }, 'zigbee: interviewing the device again after its update');
    try {
      await device.interview(true);
    } catch (err) {
      this.deps.log.warn(
        { err: errorText(err), ieee_address: ieee },
        'zigbee: the interview after the update failed; the device keeps its earlier description',
      );
      return;
    }
    if (generation !== this.generation || this.deps.controller() !== controller) return;
    // Its configuration is for the firmware it ran: done again.
    if (device.meta) delete device.meta.opencube_configured;
    device.save();
    const fresh = await this.nodeOf(device);
    const host = this.deps.host();
    if (!fresh || !host || generation !== this.generation) return;
    host.batch(() => this.announce(host, fresh));
    this.event(fresh, 'deviceInterview');
    this.configure(fresh);
    this.queueRead(fresh);
  }

  /** The device's exposes changed (some models expose per configuration): mapped again. */
  private async remap(node: Node): Promise<void> {
    const fresh = await this.nodeOf(node.device);
    const host = this.deps.host();
    if (fresh && host) host.batch(() => this.announce(host, fresh));
  }

  private online(node: Node): boolean {
    return this.deps.controller() !== undefined && !node.missing && this.deps.availability.available(node.ieee);
  }

  private syncOnline(node: Node): void {
    const serial = this.serialOf(node.ieee);
    if (serial) this.deps.host()?.onlineChanged(serial, this.online(node));
  }

  /** The serial_number of a device, once the registry has it. */
  serialOf(ieee: string): string | undefined {
    return this.deps.host()?.findByRef(DRIVER_ID, ieee)?.serial_number;
  }

  private queueRead(node: Node): void {
    if (node.sleepy || node.readable.length === 0) return;
    this.deps.readBack.add({
      key: node.ieee,
      send: () => {
        if (this.nodes.get(node.ieee) !== node || !this.online(node)) return false;
        toZigbeeGet(this.context(node), node.readable).catch((err) => {
          this.deps.log.debug({ err: errorText(err), ieee_address: node.ieee }, 'zigbee: read-back failed');
          if (!answeredBy(err)) this.deps.availability.suspect(node.ieee);
        });
        return true;
      },
    });
  }

  /** Binds and configures reporting as the model defines, once per model version (kept in herdsman's database). */
  private configure(node: Node): void {
    const def = node.definition;
    const configure = def.configure;
    if (!configure || node.configuring || this.deps.clock.now() < node.configureAfter) return;
    const key = `${def.model}@${def.version}`;
    const device = node.device;
    if (device.meta?.opencube_configured === key) return;
    const coordinator = this.deps.controller()?.getDevicesByType('Coordinator')[0]?.getEndpoint(1);
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
          this.deps.log.info({ ieee_address: node.ieee, model: def.model }, 'zigbee: device configured');
        },
        (err) => {
          if (generation !== this.generation) return;
          node.configureAfter = this.deps.clock.now() + CONFIGURE_RETRY_MS;
          this.deps.log.warn(
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
      this.deps.log.debug(
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
