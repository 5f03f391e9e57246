/**
 * The fake Zigbee network behind the fake coordinator: its devices, whether joining is open, and
 * the hooks tests drive (a device reports, goes offline, leaves, fails its next request, joins).
 * It outlives any one adapter: herdsman creates a new adapter when Zigbee2MQTT restarts.
 */
import { EventEmitter } from 'node:events';
import { FakeAdapter, type NetworkOptions } from './adapter.ts';
import type { HerdsmanZspec, ZclFrame } from './herdsman.ts';
import { type AttributeValues, FAKE_COORDINATOR_IEEE, type FakeDeviceSpec } from './spec.ts';
import { FakeZclDevice } from './zcl-device.ts';
import type { BindEntry } from './zdo.ts';

export interface FakeNetworkOptions {
  zh: HerdsmanZspec;
  devices: readonly FakeDeviceSpec[];
  coordinatorIeee?: string;
  /** How long a request to a device that does not answer takes to fail (a real adapter waits about 10 s). */
  noAnswerMs?: number;
  /** Delay between a change and its attribute report. */
  reportDelayMs?: number;
  /** Time a cover takes per 10 % of travel. */
  coverStepMs?: number;
  /** End devices check in (report their battery) this often, as sleepy devices do; 0 turns it off. */
  heartbeatMs?: number;
}

/** One request a device received, for tests to watch. */
export interface ReceivedRequest {
  ieee: string;
  kind: 'zcl' | 'zdo';
  endpoint?: number;
  cluster: string;
  command: string;
  payload: unknown;
  /** False when the device did not answer (offline, or a failure asked for with failNext). */
  answered: boolean;
}

export interface FakeNetworkEvents {
  received: [ReceivedRequest];
  permitJoin: [{ seconds: number }];
  joined: [{ ieee: string }];
  left: [{ ieee: string; reason: 'leave' | 'removed' }];
  refused: [{ ieee?: string; reason: string }];
}

export class FakeZigbeeNetwork {
  /** The fake's own events (not the adapter's: herdsman removes every adapter listener when it stops). */
  readonly events = new EventEmitter<FakeNetworkEvents>();
  readonly coordinatorIeee: string;
  readonly zh: HerdsmanZspec;
  readonly noAnswerMs: number;
  private readonly devices = new Map<string, FakeZclDevice>();
  private readonly binds = new Map<string, BindEntry[]>();
  private adapter?: FakeAdapter;
  /** Whether the coordinator is plugged in (an adapter can start). */
  private plugged = true;
  private permitUntil = 0;
  private heartbeat?: NodeJS.Timeout;

  constructor(private readonly opts: FakeNetworkOptions) {
    this.zh = opts.zh;
    this.coordinatorIeee = opts.coordinatorIeee ?? FAKE_COORDINATOR_IEEE;
    this.noAnswerMs = opts.noAnswerMs ?? 1000;
    for (const spec of opts.devices) {
      if (this.devices.has(spec.ieee)) throw new Error(`fake device ${spec.ieee} is described twice`);
      const device = new FakeZclDevice(spec, opts.zh, (ep, frame) => this.fromDevice(spec.ieee, ep, frame), {
        reportDelayMs: opts.reportDelayMs ?? 20,
        coverStepMs: opts.coverStepMs ?? 150,
      });
      this.devices.set(spec.ieee, device);
    }
  }

  /** The adapter herdsman uses (what `Adapter.create` returns); replaces any earlier one. */
  createAdapter(network: NetworkOptions): FakeAdapter {
    this.adapter?.detach();
    this.adapter = new FakeAdapter(this, network);
    return this.adapter;
  }

  /** Called by the adapter when herdsman stops it. */
  adapterStopped(adapter: FakeAdapter): void {
    if (this.adapter === adapter) this.adapter = undefined;
    this.stopHeartbeat();
  }

  /** The coordinator is unplugged: its adapter reports the disconnection, and no adapter starts until it is back. */
  unplug(): void {
    this.plugged = false;
    this.adapter?.disconnected();
  }

  /** The coordinator is plugged in again. */
  plugIn(): void {
    this.plugged = true;
  }

  /** Whether an adapter can start now. */
  isPlugged(): boolean {
    return this.plugged;
  }

  /** Called by the adapter once herdsman started it. */
  adapterStarted(): void {
    this.stopHeartbeat();
    const every = this.opts.heartbeatMs ?? 0;
    if (every > 0) this.heartbeat = setInterval(() => this.checkIn(), every);
  }

  /** Stops every timer of the network (devices, check-ins). */
  close(): void {
    this.stopHeartbeat();
    this.adapter?.detach();
    for (const d of this.devices.values()) d.dispose();
  }

  /** The binding table of a node (kept across adapters, as a device keeps it). */
  bindsOf(ieee: string): BindEntry[] {
    let binds = this.binds.get(ieee);
    if (!binds) {
      binds = [];
      this.binds.set(ieee, binds);
    }
    return binds;
  }

  device(ieee: string): FakeZclDevice | undefined {
    return this.devices.get(ieee);
  }

  /** The device with that IEEE address, or an error naming it. */
  must(ieee: string): FakeZclDevice {
    const d = this.devices.get(ieee);
    if (!d) throw new Error(`no fake Zigbee device ${ieee}`);
    return d;
  }

  list(): FakeZclDevice[] {
    return [...this.devices.values()];
  }

  byNwk(nwk: number): FakeZclDevice | undefined {
    return this.list().find((d) => d.spec.nwk === nwk);
  }

  permitJoinOpen(): boolean {
    return this.permitUntil > Date.now();
  }

  setPermitJoin(seconds: number): void {
    this.permitUntil = seconds > 0 ? Date.now() + seconds * 1000 : 0;
    this.events.emit('permitJoin', { seconds });
  }

  // ---- hooks ----

  /** A device that is not in the network joins (the given one, or the first joinable); refused while joining is closed. */
  join(ieee?: string): { ok: true; ieee: string } | { ok: false; reason: string } {
    const refuse = (reason: string) => {
      this.events.emit('refused', { ieee, reason });
      return { ok: false as const, reason };
    };
    if (!this.permitJoinOpen()) return refuse('joining is not open');
    const device = ieee ? this.devices.get(ieee) : this.list().find((d) => !d.joined);
    if (!device) return refuse(ieee ? `no fake Zigbee device ${ieee}` : 'every fake device is in the network already');
    if (device.joined) return refuse(`${device.spec.ieee} is in the network already`);
    if (!this.adapter) return refuse('the coordinator is not running');
    device.joined = true;
    device.online = true;
    this.adapter.deviceJoined(device.spec);
    this.events.emit('joined', { ieee: device.spec.ieee });
    return { ok: true, ieee: device.spec.ieee };
  }

  /** The device leaves the network by itself (a factory reset): the coordinator gets its leave indication. */
  leave(ieee: string): void {
    const device = this.must(ieee);
    if (!device.joined) return;
    this.left(device, 'leave');
  }

  /** Called when a device left (on its own, or told to by a leave request). */
  left(device: FakeZclDevice, reason: 'leave' | 'removed'): void {
    device.joined = false;
    device.dispose();
    this.adapter?.deviceLeft(device.spec);
    this.events.emit('left', { ieee: device.spec.ieee, reason });
  }

  /** An offline device answers nothing and reports nothing until it is back online. */
  setOnline(ieee: string, online: boolean): void {
    const device = this.must(ieee);
    device.online = online;
    // A device coming back announces itself, as a real one does after a power cycle.
    if (online && device.joined) this.adapter?.announce(device.spec);
  }

  /** The device's next `count` requests (on `cluster` only, when given; `ZDO` for ZDO requests) fail: no answer. */
  failNext(ieee: string, count = 1, cluster?: string): void {
    const device = this.must(ieee);
    device.failNext += count;
    device.failCluster = cluster;
  }

  /** The device reports attribute values (setting them first). */
  report(ieee: string, endpoint: number | undefined, cluster: string, attributes: AttributeValues): void {
    const device = this.must(ieee);
    device.report(endpoint ?? this.endpointWith(device, cluster), cluster, attributes);
  }

  /** The device sends a cluster command (a button press, an IAS zone status change). */
  command(
    ieee: string,
    endpoint: number | undefined,
    cluster: string,
    command: string,
    payload: Record<string, unknown> = {},
  ): void {
    const device = this.must(ieee);
    device.command(endpoint ?? this.endpointWith(device, cluster), cluster, command, payload);
  }

  private endpointWith(device: FakeZclDevice, cluster: string): number {
    const eps = device.spec.endpoints;
    const ep = eps.find((e) => e.inputClusters.includes(cluster) || e.outputClusters.includes(cluster)) ?? eps[0];
    if (!ep) throw new Error(`fake Zigbee device ${device.spec.ieee} has no endpoint`);
    return ep.id;
  }

  private fromDevice(ieee: string, endpoint: number, frame: ZclFrame): void {
    const device = this.devices.get(ieee);
    if (!device?.joined || !device.online) return;
    this.adapter?.frameFromDevice(device.spec, endpoint, frame);
  }

  private checkIn(): void {
    for (const d of this.devices.values()) {
      if (d.spec.type !== 'EndDevice' || !d.joined || !d.online) continue;
      const ep = d.spec.endpoints.find((e) => e.inputClusters.includes('genPowerCfg'));
      if (!ep) continue;
      const power = d.attributes(ep.id, 'genPowerCfg');
      const names = Object.keys(power).filter((n) => n.startsWith('battery'));
      if (names.length > 0)
        d.report(ep.id, 'genPowerCfg', Object.fromEntries(names.map((n) => [n, power[n]])) as AttributeValues);
    }
  }

  private stopHeartbeat(): void {
    if (this.heartbeat) clearInterval(this.heartbeat);
    this.heartbeat = undefined;
  }
}
