/**
 * The fake coordinator adapter: what zigbee-herdsman's `Adapter.create` returns in place of a
 * serial-port adapter. It implements the adapter contract herdsman's controller uses (start,
 * network parameters, permit join, ZDO requests, ZCL frames to endpoints with their replies, a
 * waitress for awaited frames) and emits what a real adapter emits (deviceJoined, deviceLeave,
 * zclPayload, zdoResponse). Everything above it is real herdsman. With the network's `backups`
 * it also keeps the network in NVRAM and backs it up and restores it as a Z-Stack 3 coordinator
 * does (nvram.ts); a hanging firmware (`net.hang()`) leaves every request waiting.
 */
import { EventEmitter } from 'node:events';
import type { ZclFrame, ZclPayload } from './herdsman.ts';
import type { FakeZigbeeNetwork } from './network.ts';
import { backupOf, configuredNetwork } from './nvram.ts';
import type { FakeDeviceSpec } from './spec.ts';
import { answerZdo, type ZdoNode } from './zdo.ts';

/** The network options herdsman hands the adapter (from Zigbee2MQTT's `advanced` settings). */
export interface NetworkOptions {
  panID: number;
  extendedPanID?: number[];
  channelList: number[];
  networkKey?: number[];
}

interface Waiter {
  address: number;
  endpoint: number;
  frameType: number;
  direction: number;
  tsn: number | undefined;
  clusterId: number;
  commandId: number;
  resolve: (p: ZclPayload) => void;
}

const COORDINATOR_SPEC: Omit<FakeDeviceSpec, 'ieee'> = {
  nwk: 0,
  name: 'Coordinator',
  type: 'Router',
  manufacturerCode: 0,
  paired: true,
  expectedModel: '',
  endpoints: [
    {
      id: 1,
      profileId: 0x0104,
      deviceId: 0x0005,
      inputClusters: ['genBasic', 'genIdentify', 'genOnOff', 'genTime', 'genOta', 'ssIasAce'],
      outputClusters: ['genIdentify', 'genScenes', 'genOnOff', 'genLevelCtrl', 'ssIasZone', 'ssIasWd', 'genPollCtrl'],
    },
    { id: 242, profileId: 0xa1e0, deviceId: 0x0064, inputClusters: [], outputClusters: ['greenPower'] },
  ],
};

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const tick = () => new Promise<void>((r) => setImmediate(r));

export class FakeAdapter extends EventEmitter {
  /** Requests carry no ZDO transaction byte (as with Z-Stack). */
  readonly hasZdoMessageOverhead = false;
  readonly manufacturerID: number;
  private readonly waiters = new Set<Waiter>();
  private attached = true;
  /** Rejects once the port is closed: requests waiting on a hung firmware fail then, as on a real port. */
  private readonly closed: Promise<never>;
  private close: (err: Error) => void = () => {};

  constructor(
    private readonly net: FakeZigbeeNetwork,
    private readonly network: NetworkOptions,
    /** Where herdsman keeps the coordinator backup (the adapter reads it at start to restore it). */
    private readonly backupPath?: string,
  ) {
    super();
    this.manufacturerID = net.zh.Zcl.ManufacturerCode.RESERVED_10;
    this.closed = new Promise<never>((_, reject) => {
      this.close = reject;
    });
    this.closed.catch(() => {});
  }

  /** Its serial port closed (the coordinator was unplugged): tells herdsman, as a real adapter does. */
  disconnected(): void {
    if (!this.attached) return;
    this.emit('disconnected');
    this.detach();
  }

  /** Cuts this adapter off the network (a newer adapter took its place). */
  detach(): void {
    this.attached = false;
    this.waiters.clear();
    this.close(new Error('the serial port of the fake coordinator is closed'));
  }

  /** Waits while the firmware hangs (a request is answered only once it runs again). */
  private async answering(): Promise<void> {
    const stall = this.net.stalled();
    if (stall) await Promise.race([stall, this.closed]);
  }

  /** Whether what the radio hears reaches herdsman (attached, and the firmware runs). */
  private live(): boolean {
    return this.attached && !this.net.stalled();
  }

  // ---- lifecycle and network ----

  async start(): Promise<'resumed' | 'restored' | 'reset'> {
    // The wording of a serial port that cannot be opened.
    if (!this.net.isPlugged())
      throw new Error('Error: No such file or directory, cannot open /dev/fake-zigbee-coordinator');
    // A real adapter gives up on a firmware that does not answer its first request.
    if (this.net.stalled()) throw new Error('the coordinator did not answer (SRSP - SYS - ping after 6000ms)');
    // Without NVRAM, "resumed": the coordinator already runs this network, so herdsman keeps its database.
    const result = this.net.keepsNetwork()
      ? this.net.startNetwork(configuredNetwork(this.network), this.backupPath)
      : 'resumed';
    this.net.adapterStarted();
    return result;
  }

  async stop(): Promise<void> {
    this.net.adapterStopped(this);
    this.detach();
  }

  async getCoordinatorIEEE(): Promise<string> {
    await this.answering();
    return this.net.coordinatorIeee;
  }

  async getCoordinatorVersion(): Promise<{ type: string; meta: Record<string, number | string> }> {
    return { type: 'fake-zigbee', meta: { revision: 20260101 } };
  }

  async reset(): Promise<void> {}

  async supportsBackup(): Promise<boolean> {
    return this.net.keepsNetwork();
  }

  /** The network in NVRAM and the devices it knows, in herdsman's backup model (herdsman writes the file). */
  async backup(): Promise<unknown> {
    await this.answering();
    const nvram = this.net.nvram();
    if (!this.net.keepsNetwork() || !nvram) throw new Error('the fake coordinator keeps no backup');
    const joined = this.net.list().filter((d) => d.joined);
    return backupOf(
      nvram,
      this.net.coordinatorIeee,
      joined.map((d) => ({ ieee: d.spec.ieee, nwk: d.spec.nwk })),
    );
  }

  async getNetworkParameters(): Promise<{
    panID: number;
    extendedPanID: string;
    channel: number;
    nwkUpdateID: number;
  }> {
    await this.answering();
    const nvram = this.net.nvram();
    if (nvram)
      return {
        panID: nvram.panId,
        extendedPanID: `0x${nvram.extendedPanId}`,
        channel: nvram.channel,
        nwkUpdateID: 0,
      };
    return {
      panID: this.network.panID,
      extendedPanID: this.extendedPanId(),
      channel: this.network.channelList[0] ?? 11,
      nwkUpdateID: 0,
    };
  }

  async addInstallCode(): Promise<void> {}

  async permitJoin(seconds: number): Promise<void> {
    await this.answering();
    this.net.setPermitJoin(seconds);
  }

  // ---- ZDO ----

  async sendZdo(
    ieeeAddress: string,
    networkAddress: number,
    clusterId: number,
    payload: Buffer,
    disableResponse: boolean,
  ): Promise<[number, unknown] | undefined> {
    const { Zdo } = this.net.zh;
    await tick();
    await this.answering();
    // Broadcasts (permit join, channel change, address requests to all) get no direct answer.
    if (networkAddress >= 0xfff8) return undefined;
    const name = Zdo.ClusterId[clusterId] ?? String(clusterId);
    const isCoordinator = networkAddress === 0 || ieeeAddress === this.net.coordinatorIeee;
    const device = isCoordinator ? undefined : (this.net.device(ieeeAddress) ?? this.net.byNwk(networkAddress));
    if (!isCoordinator) {
      const answered = !!device && device.answers('ZDO') && this.net.reaches(device.spec.ieee);
      this.net.events.emit('received', {
        ieee: device?.spec.ieee ?? ieeeAddress,
        kind: 'zdo',
        cluster: 'ZDO',
        command: name,
        payload: payload.toString('hex'),
        answered,
      });
      if (!device || !answered) {
        await sleep(this.net.noAnswerMs);
        throw new Error(`ZDO ${name} to ${ieeeAddress}/${networkAddress} got no answer (${this.net.noAnswerMs} ms)`);
      }
    }
    const node = this.zdoNode(device?.spec);
    const { response, effect } = answerZdo(this.net.zh, node, clusterId, payload, this.extendedPanId());
    if (device && effect?.leave) {
      // The device answers, then leaves; the coordinator learns it from the leave indication that follows.
      setTimeout(() => this.net.left(device, 'removed'), 50);
    }
    if (disableResponse) return undefined;
    return response;
  }

  // ---- ZCL ----

  async sendZclFrameToEndpoint(
    ieeeAddr: string,
    networkAddress: number,
    endpoint: number,
    zclFrame: ZclFrame,
    timeout: number,
    disableResponse: boolean,
  ): Promise<ZclPayload | undefined> {
    await tick();
    await this.answering();
    const device = this.net.device(ieeeAddr) ?? this.net.byNwk(networkAddress);
    const answered = !!device && device.answers(zclFrame.cluster.name) && this.net.reaches(device.spec.ieee);
    this.net.events.emit('received', {
      ieee: device?.spec.ieee ?? ieeeAddr,
      kind: 'zcl',
      endpoint,
      cluster: zclFrame.cluster.name,
      command: zclFrame.command.name,
      payload: zclFrame.payload,
      answered,
    });
    if (!device || !answered) {
      const wait = Math.min(timeout, this.net.noAnswerMs);
      await sleep(wait);
      // The wording of Z-Stack's waitress, which herdsman reports upwards.
      throw new Error(
        `Timeout - ${networkAddress} - ${endpoint} - ${zclFrame.header.transactionSequenceNumber} - ${zclFrame.cluster.ID} - ${zclFrame.command.response ?? 11} after ${wait}ms`,
      );
    }
    const reply = device.receive(endpoint, zclFrame);
    if (!reply) return undefined;
    const payload = this.toPayload(device.spec, endpoint, reply);
    // A real adapter hands every received frame to herdsman (which turns a read response into a
    // state message) and also resolves the request that waited for it.
    this.emitZcl(payload);
    const expectsReply =
      zclFrame.command.response !== undefined || !zclFrame.header.frameControl.disableDefaultResponse;
    return disableResponse || !expectsReply ? undefined : payload;
  }

  /** One frame to a Zigbee group: the network delivers it to every member endpoint (no answer comes back). */
  async sendZclFrameToGroup(groupID: number, zclFrame: ZclFrame): Promise<void> {
    await tick();
    await this.answering();
    if (this.attached) this.net.groupcast(groupID, zclFrame);
  }

  async sendZclFrameToAll(): Promise<void> {
    await tick();
    await this.answering();
  }

  async setChannelInterPAN(): Promise<void> {}
  async sendZclFrameInterPANToIeeeAddr(): Promise<void> {}
  async sendZclFrameInterPANBroadcast(): Promise<never> {
    throw new Error('the fake coordinator does not do Touchlink');
  }
  async restoreChannelInterPAN(): Promise<void> {}

  /** Waits for a frame from a device, as herdsman's `waitFor` contract asks. */
  waitFor(
    networkAddress: number,
    endpoint: number,
    frameType: number,
    direction: number,
    transactionSequenceNumber: number | undefined,
    clusterId: number,
    commandId: number,
    _defaultRspCommandId: number | undefined,
    timeout: number,
  ): { promise: Promise<ZclPayload>; cancel: () => void } {
    let waiter: Waiter | undefined;
    let timer: NodeJS.Timeout | undefined;
    const promise = new Promise<ZclPayload>((resolve, reject) => {
      waiter = {
        address: networkAddress,
        endpoint,
        frameType,
        direction,
        tsn: transactionSequenceNumber,
        clusterId,
        commandId,
        resolve: (p) => {
          clearTimeout(timer);
          resolve(p);
        },
      };
      this.waiters.add(waiter);
      timer = setTimeout(() => {
        if (waiter) this.waiters.delete(waiter);
        reject(
          new Error(
            `Timeout - ${networkAddress} - ${endpoint} - ${transactionSequenceNumber} - ${clusterId} - ${commandId} after ${timeout}ms`,
          ),
        );
      }, timeout);
    });
    return {
      promise,
      cancel: () => {
        clearTimeout(timer);
        if (waiter) this.waiters.delete(waiter);
      },
    };
  }

  // ---- called by the network ----

  deviceJoined(spec: FakeDeviceSpec): void {
    if (this.live()) this.emit('deviceJoined', { networkAddress: spec.nwk, ieeeAddr: spec.ieee });
  }

  deviceLeft(spec: FakeDeviceSpec): void {
    if (this.live()) this.emit('deviceLeave', { networkAddress: spec.nwk, ieeeAddr: spec.ieee });
  }

  /** A device announces itself (after a power cycle or a rejoin). */
  announce(spec: FakeDeviceSpec): void {
    if (!this.live()) return;
    const { Zdo } = this.net.zh;
    const router = spec.type === 'Router' ? 1 : 0;
    this.emit('zdoResponse', Zdo.ClusterId.END_DEVICE_ANNOUNCE, [
      Zdo.Status.SUCCESS,
      {
        nwkAddress: spec.nwk,
        eui64: spec.ieee,
        capabilities: {
          alternatePANCoordinator: 0,
          deviceType: router,
          powerSource: router,
          rxOnWhenIdle: router,
          reserved1: 0,
          reserved2: 0,
          securityCapability: 0,
          allocateAddress: 1,
        },
      },
    ]);
  }

  frameFromDevice(spec: FakeDeviceSpec, endpoint: number, frame: ZclFrame): void {
    if (this.live()) this.emitZcl(this.toPayload(spec, endpoint, frame));
  }

  // ---- helpers ----

  private emitZcl(payload: ZclPayload): void {
    if (!this.attached) return;
    const header = payload.header;
    if (header) {
      for (const w of this.waiters) {
        if (
          w.address === payload.address &&
          w.endpoint === payload.endpoint &&
          w.clusterId === payload.clusterID &&
          w.frameType === header.frameControl.frameType &&
          w.direction === header.frameControl.direction &&
          (w.tsn === undefined || w.tsn === header.transactionSequenceNumber) &&
          w.commandId === header.commandIdentifier
        ) {
          this.waiters.delete(w);
          w.resolve(payload);
        }
      }
    }
    this.emit('zclPayload', payload);
  }

  private toPayload(spec: FakeDeviceSpec, endpoint: number, frame: ZclFrame): ZclPayload {
    const data = frame.toBuffer();
    return {
      clusterID: frame.cluster.ID,
      address: spec.nwk,
      header: this.net.zh.Zcl.Header.fromBuffer(data),
      data,
      endpoint,
      linkquality: 200,
      groupID: 0,
      wasBroadcast: false,
      destinationEndpoint: 1,
    };
  }

  private extendedPanId(): string {
    const bytes = this.network.extendedPanID ?? [0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd];
    return `0x${bytes.map((b) => b.toString(16).padStart(2, '0')).join('')}`;
  }

  private zdoNode(spec: FakeDeviceSpec | undefined): ZdoNode {
    const { Zcl } = this.net.zh;
    const self = spec ?? { ...COORDINATOR_SPEC, ieee: this.net.coordinatorIeee };
    return {
      spec: self,
      clusterId: (c) => (typeof c === 'number' ? c : Zcl.Utils.getCluster(c, undefined, {}).ID),
      binds: this.net.bindsOf(self.ieee),
      neighbours: () => this.net.neighbourTable(self.ieee),
      routes: () => this.net.routes(self.ieee),
    };
  }
}
