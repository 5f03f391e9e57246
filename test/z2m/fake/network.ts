/**
 * The fake Zigbee network behind the fake coordinator: its devices, whether joining is open, and
 * the hooks tests drive (a device reports, goes offline, leaves, fails its next request, joins).
 * It outlives any one adapter: herdsman creates a new adapter when Zigbee2MQTT restarts.
 * It is also the coordinator stick itself: whether it is plugged in, whether its firmware hangs,
 * and (with `backups`) the network it keeps in its NVRAM.
 */
import { EventEmitter } from 'node:events';
import { FakeAdapter, type NetworkOptions } from './adapter.ts';
import type { HerdsmanZspec, ZclFrame } from './herdsman.ts';
import { type CoordinatorNvram, type NetworkIdentity, readBackupFile, sameNetwork, startStrategy } from './nvram.ts';
import type { OtaFailure } from './ota-client.ts';
import { type AttributeValues, FAKE_COORDINATOR_IEEE, type FakeDeviceSpec } from './spec.ts';
import { lqiTable, routingTable, type TopologyNode } from './topology.ts';
import { FakeZclDevice } from './zcl-device.ts';
import type { BindEntry, LqiEntry, RouteEntry } from './zdo.ts';

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
  /** Delay of a device's OTA client between a block received and its next request. */
  otaBlockDelayMs?: number;
  /** End devices check in (report their battery) this often, as sleepy devices do; 0 turns it off. */
  heartbeatMs?: number;
  /**
   * The coordinator keeps its network in NVRAM, writes backups and restores one onto a blank
   * coordinator, as a Z-Stack 3 coordinator does (nvram.ts); devices then hear only the network
   * they joined. Without it, the coordinator resumes whatever network it is given and keeps no
   * backup (what the Zigbee2MQTT tests run).
   */
  backups?: boolean;
}

/** One request a device received, for tests to watch. */
export interface ReceivedRequest {
  /** The device (for a group frame: the group's number, as `group <n>`). */
  ieee: string;
  /** `group`: one frame sent to a Zigbee group (every member receives it). */
  kind: 'zcl' | 'zdo' | 'group';
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
  /** A device's held OTA download waits after its first block (holdOta). */
  otaHeld: [{ ieee: string }];
}

export class FakeZigbeeNetwork {
  /** The fake's own events (not the adapter's: herdsman removes every adapter listener when it stops). */
  readonly events = new EventEmitter<FakeNetworkEvents>();
  readonly zh: HerdsmanZspec;
  readonly noAnswerMs: number;
  private readonly devices = new Map<string, FakeZclDevice>();
  private readonly binds = new Map<string, BindEntry[]>();
  private adapter?: FakeAdapter;
  /** Whether the coordinator is plugged in (an adapter can start). */
  private plugged = true;
  private permitUntil = 0;
  private heartbeat?: NodeJS.Timeout;
  private ieee: string;
  /** While the firmware hangs: what every request waits on (released when it answers again). */
  private stall?: { promise: Promise<void>; release: () => void };
  /** The network in the coordinator's NVRAM (`backups` only); undefined: none yet. */
  private stored?: CoordinatorNvram;
  /** A blank coordinator forms or restores a network; otherwise the first start finds one formed already. */
  private blank = false;
  /** The network each device joined, and the highest frame counter it has seen from the coordinator. */
  private readonly membership = new Map<string, { network: NetworkIdentity; counter: number }>();

  constructor(private readonly opts: FakeNetworkOptions) {
    this.zh = opts.zh;
    this.ieee = opts.coordinatorIeee ?? FAKE_COORDINATOR_IEEE;
    this.noAnswerMs = opts.noAnswerMs ?? 1000;
    for (const spec of opts.devices) {
      if (this.devices.has(spec.ieee)) throw new Error(`fake device ${spec.ieee} is described twice`);
      const device = new FakeZclDevice(spec, opts.zh, (ep, frame) => this.fromDevice(spec.ieee, ep, frame), {
        reportDelayMs: opts.reportDelayMs ?? 20,
        coverStepMs: opts.coverStepMs ?? 150,
        otaBlockDelayMs: opts.otaBlockDelayMs,
        announce: () => {
          if (device.joined && device.online) this.adapter?.announce(spec);
        },
        otaHeld: () => this.events.emit('otaHeld', { ieee: spec.ieee }),
      });
      this.devices.set(spec.ieee, device);
    }
  }

  /** The coordinator's IEEE address (a swapped coordinator has its own). */
  get coordinatorIeee(): string {
    return this.ieee;
  }

  /** The adapter herdsman uses (what `Adapter.create` returns); replaces any earlier one. */
  createAdapter(network: NetworkOptions, backupPath?: string): FakeAdapter {
    this.adapter?.detach();
    this.adapter = new FakeAdapter(this, network, backupPath);
    return this.adapter;
  }

  // ---- the coordinator's firmware and NVRAM ----

  /** The firmware stops answering while its serial port stays open: requests wait, nothing comes from the radio. */
  hang(): void {
    if (this.stall) return;
    let release = () => {};
    const promise = new Promise<void>((r) => {
      release = r;
    });
    this.stall = { promise, release };
  }

  /** The firmware answers again: the requests that waited go on. */
  resume(): void {
    this.stall?.release();
    this.stall = undefined;
  }

  /** What a request waits on while the firmware hangs. */
  stalled(): Promise<void> | undefined {
    return this.stall?.promise;
  }

  /** Whether the coordinator keeps its network in NVRAM and supports backups. */
  keepsNetwork(): boolean {
    return this.opts.backups === true;
  }

  /** The network in the coordinator's NVRAM (a copy), if any. */
  nvram(): CoordinatorNvram | undefined {
    return this.stored ? { ...this.stored } : undefined;
  }

  /**
   * Another coordinator takes this one's place (a new or reflashed stick): blank NVRAM, its own
   * IEEE address. The devices stay on the network they joined.
   */
  swapCoordinator(ieee: string): void {
    if (this.adapter) throw new Error('stop the coordinator before swapping it');
    this.ieee = ieee;
    this.stored = undefined;
    this.blank = true;
  }

  /** Starts the network the adapter is configured with, as the coordinator's firmware decides (nvram.ts). */
  startNetwork(configured: CoordinatorNvram, backupPath: string | undefined): 'resumed' | 'restored' | 'reset' {
    const backup = backupPath ? readBackupFile(backupPath) : undefined;
    const { result, nvram } = startStrategy(this.blank ? undefined : (this.stored ?? configured), configured, backup);
    this.stored = nvram;
    this.blank = false;
    // Devices paired before the first start joined the network found then.
    for (const d of this.devices.values())
      if (d.joined && !this.membership.has(d.spec.ieee))
        this.membership.set(d.spec.ieee, { network: { ...nvram }, counter: nvram.frameCounter });
    return result;
  }

  /**
   * Whether a device hears the coordinator: on its network, with a frame counter above the last it
   * saw (a device drops frames it counts as replayed, so a network formed again from scratch with
   * the same key is not heard). Counts the frame.
   */
  reaches(ieee: string): boolean {
    if (!this.keepsNetwork()) return true;
    const nv = this.stored;
    const m = this.membership.get(ieee);
    if (!nv || !m || !sameNetwork(nv, m.network) || nv.frameCounter < m.counter) return false;
    nv.frameCounter++;
    m.counter = nv.frameCounter;
    return true;
  }

  /** Whether the coordinator hears a device (it is on the coordinator's network). */
  hears(ieee: string): boolean {
    if (!this.keepsNetwork()) return true;
    const m = this.membership.get(ieee);
    return !!this.stored && !!m && sameNetwork(this.stored, m.network);
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
    if (this.stored)
      this.membership.set(device.spec.ieee, { network: { ...this.stored }, counter: this.stored.frameCounter });
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

  /**
   * The device sends a cluster command (a button press, an IAS zone status change): to the
   * coordinator, as before, and to every destination its binding table holds for that cluster (a
   * remote bound to a light switches it directly, through no coordinator).
   */
  command(
    ieee: string,
    endpoint: number | undefined,
    cluster: string,
    command: string,
    payload: Record<string, unknown> = {},
  ): void {
    const device = this.must(ieee);
    const ep = endpoint ?? this.endpointWith(device, cluster);
    const frame = device.command(ep, cluster, command, payload);
    if (!device.joined || !device.online || !this.hears(ieee)) return;
    const clusterId = frame.cluster.ID;
    for (const b of this.bindsOf(ieee)) {
      if (b.sourceEndpoint !== ep || b.clusterId !== clusterId) continue;
      if (typeof b.dest === 'number') this.deliverToGroup(b.dest, frame);
      else if (b.dest !== this.coordinatorIeee && b.destEndpoint !== undefined) {
        const target = this.devices.get(b.dest);
        if (target?.joined && target.online) target.receive(b.destEndpoint, frame);
      }
    }
  }

  /** A frame sent to a Zigbee group: every member endpoint of every device in range receives it. */
  groupcast(group: number, frame: ZclFrame): void {
    this.events.emit('received', {
      ieee: `group ${group}`,
      kind: 'group',
      cluster: frame.cluster.name,
      command: frame.command.name,
      payload: frame.payload,
      answered: true,
    });
    this.deliverToGroup(group, frame);
  }

  private deliverToGroup(group: number, frame: ZclFrame): void {
    for (const d of this.devices.values()) {
      if (!d.joined || !d.online || !this.reaches(d.spec.ieee)) continue;
      for (const ep of d.endpointsIn(group)) d.receive(ep, frame);
    }
  }

  /** The device's next firmware update fails: it reports an invalid image, or stops asking for blocks. */
  failOta(ieee: string, how: OtaFailure = 'invalid-image'): void {
    const device = this.must(ieee);
    if (!device.ota) throw new Error(`fake Zigbee device ${ieee} has no OTA client`);
    device.ota.failNext = how;
  }

  /** The device's next OTA download waits after its first block (event `otaHeld`) until releaseOta. */
  holdOta(ieee: string): void {
    const device = this.must(ieee);
    if (!device.ota) throw new Error(`fake Zigbee device ${ieee} has no OTA client`);
    device.ota.holdNext = true;
  }

  /** A held OTA download goes on. */
  releaseOta(ieee: string): void {
    this.must(ieee).ota?.resume();
  }

  /** The neighbour (LQI) table of a node: the coordinator or a joined device. */
  neighbourTable(ieee: string): LqiEntry[] {
    return lqiTable(this.topology(), ieee);
  }

  /** The routing table of a node. */
  routes(ieee: string): RouteEntry[] {
    return routingTable(this.topology(), ieee);
  }

  private topology(): TopologyNode[] {
    const coordinator: TopologyNode = { ieee: this.ieee, nwk: 0, type: 'Coordinator' };
    const joined = this.list()
      .filter((d) => d.joined)
      .map((d) => ({
        ieee: d.spec.ieee,
        nwk: d.spec.nwk,
        type: d.spec.type,
        parent: d.spec.parent && this.devices.get(d.spec.parent)?.joined ? d.spec.parent : this.ieee,
        lqi: d.spec.lqi ?? 200,
      }));
    return [coordinator, ...joined];
  }

  private endpointWith(device: FakeZclDevice, cluster: string): number {
    const eps = device.spec.endpoints;
    const ep = eps.find((e) => e.inputClusters.includes(cluster) || e.outputClusters.includes(cluster)) ?? eps[0];
    if (!ep) throw new Error(`fake Zigbee device ${device.spec.ieee} has no endpoint`);
    return ep.id;
  }

  private fromDevice(ieee: string, endpoint: number, frame: ZclFrame): void {
    const device = this.devices.get(ieee);
    if (!device?.joined || !device.online || !this.hears(ieee)) return;
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
