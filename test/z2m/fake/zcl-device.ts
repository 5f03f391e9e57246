/**
 * One fake Zigbee device at the ZCL level: holds its attribute values, answers global commands
 * (read, write, configure reporting, discover) and cluster commands as a real device does, and
 * sends attribute reports for attributes whose reporting the coordinator configured.
 */
import { CLUSTER_BEHAVIOUR, type CommandOutcome } from './cluster-behaviour.ts';
import type { HerdsmanZspec, ZclFrame } from './herdsman.ts';
import { FakeOtaClient } from './ota-client.ts';
import type { AttributeValues, FakeDeviceSpec, FakeEndpointSpec } from './spec.ts';

/** How the device hands a frame it sends (unsolicited) to the coordinator. */
export type SendFromDevice = (endpoint: number, frame: ZclFrame) => void;

export interface FakeZclDeviceOptions {
  /** Delay between a change and the attribute report that follows it. */
  reportDelayMs: number;
  /** Time a cover takes per 10 % of travel. */
  coverStepMs: number;
  /** Delay of its OTA client between a block received and the next request. */
  otaBlockDelayMs?: number;
  /** It announces itself (after the reboot that ends an update). */
  announce?: () => void;
  /** Its held OTA download waits after the first block. */
  otaHeld?: () => void;
}

type Status = 'SUCCESS' | 'UNSUP_COMMAND' | 'UNSUP_GENERAL_COMMAND' | 'UNSUPPORTED_ATTRIBUTE' | 'UNSUPPORTED_CLUSTER';

export class FakeZclDevice {
  readonly spec: FakeDeviceSpec;
  /** In the network now (paired at start, or joined). */
  joined: boolean;
  /** Answers requests and sends reports; an offline device stays silent. */
  online = true;
  /** The next this-many requests fail (no answer), as from a device out of range. */
  failNext = 0;
  /** Only requests on this cluster (ZDO for ZDO requests) count against failNext; any when unset. */
  failCluster?: string;
  private readonly values = new Map<string, AttributeValues>();
  private readonly reporting = new Set<string>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly motions = new Map<string, NodeJS.Timeout>();
  /** The Groups cluster's table of each endpoint. */
  private readonly groupTables = new Map<number, Set<number>>();
  private tsn = 0;
  /** Its OTA upgrade client (models that take updates). */
  readonly ota?: FakeOtaClient;

  constructor(
    spec: FakeDeviceSpec,
    private readonly zh: HerdsmanZspec,
    private readonly send: SendFromDevice,
    private readonly opts: FakeZclDeviceOptions,
  ) {
    this.spec = spec;
    this.joined = spec.paired;
    for (const ep of spec.endpoints)
      for (const [cluster, attrs] of Object.entries(ep.attributes ?? {}))
        this.values.set(`${ep.id}/${cluster}`, { ...attrs });
    if (spec.ota)
      this.ota = new FakeOtaClient({
        zh,
        manufacturerCode: spec.manufacturerCode,
        imageType: spec.ota.imageType,
        fileVersion: spec.ota.fileVersion,
        blockDelayMs: opts.otaBlockDelayMs ?? 5,
        send: (endpoint, command, payload) => {
          if (this.online && this.joined) this.command(endpoint, 'genOta', command, payload);
        },
        rebooted: (build) => {
          const ep = spec.endpoints.find((e) => e.inputClusters.includes('genBasic'));
          if (ep) this.attributes(ep.id, 'genBasic').swBuildId = build;
          opts.announce?.();
        },
        held: () => opts.otaHeld?.(),
        later: (ms, fn) => {
          const t = setTimeout(() => {
            this.timers.delete(t);
            fn();
          }, ms);
          this.timers.add(t);
        },
      });
  }

  /** The groups an endpoint is a member of. */
  groupsOf(endpoint: number): Set<number> {
    let g = this.groupTables.get(endpoint);
    if (!g) {
      g = new Set();
      this.groupTables.set(endpoint, g);
    }
    return g;
  }

  /** The endpoints that are members of `group`. */
  endpointsIn(group: number): number[] {
    return [...this.groupTables].filter(([, g]) => g.has(group)).map(([ep]) => ep);
  }

  /** Whether the device answers a request on `cluster` now; counts a failure asked for with failNext. */
  answers(cluster: string): boolean {
    if (!this.joined || !this.online) return false;
    if (this.failNext === 0 || (this.failCluster !== undefined && this.failCluster !== cluster)) return true;
    this.failNext--;
    return false;
  }

  endpoint(id: number): FakeEndpointSpec | undefined {
    return this.spec.endpoints.find((e) => e.id === id);
  }

  /** Current attribute values of a cluster on an endpoint (a live object). */
  attributes(endpoint: number, cluster: string): AttributeValues {
    const key = `${endpoint}/${cluster}`;
    let v = this.values.get(key);
    if (!v) {
      v = {};
      this.values.set(key, v);
    }
    return v;
  }

  /** Stops timers (cover travel, pending reports). */
  dispose(): void {
    for (const t of this.timers) clearTimeout(t);
    for (const t of this.motions.values()) clearInterval(t);
    this.timers.clear();
    this.motions.clear();
  }

  /** Handles a frame from the coordinator; returns the device's direct reply, if it sends one. */
  receive(endpoint: number, frame: ZclFrame): ZclFrame | undefined {
    const ep = this.endpoint(endpoint);
    const cluster = frame.cluster.name;
    const serves = ep?.inputClusters.some((c) => c === cluster || c === frame.cluster.ID) ?? false;
    const global = frame.header.isGlobal;
    if (global && frame.command.name === 'defaultRsp') return undefined;
    // A command to one of its client clusters (the OTA server's answers to its upgrade client).
    const toClient = frame.header.frameControl.direction === this.zh.Zcl.Direction.SERVER_TO_CLIENT;
    if (!global && toClient && ep?.outputClusters.some((c) => c === cluster || c === frame.cluster.ID)) {
      if (cluster === 'genOta') this.ota?.receive(endpoint, frame);
      return undefined;
    }
    if (!ep || !serves) return this.defaultResponse(frame, 'UNSUPPORTED_CLUSTER');
    const attrs = this.attributes(endpoint, cluster);
    const before = { ...attrs };
    let reply: ZclFrame | undefined;
    if (global) reply = this.global(endpoint, frame, attrs);
    else {
      const behaviour = CLUSTER_BEHAVIOUR[cluster];
      const outcome: CommandOutcome = behaviour
        ? behaviour(frame.command.name, {
            attrs,
            payload: (frame.payload ?? {}) as Record<string, unknown>,
            other: (c) => this.attributes(endpoint, c),
            groups: this.groupsOf(endpoint),
          })
        : 'unsupported';
      reply = this.afterCommand(endpoint, frame, outcome);
    }
    this.reportChanges(endpoint, cluster, before, attrs);
    if (cluster === 'genLevelCtrl') this.reportChanges(endpoint, 'genOnOff', {}, this.attributes(endpoint, 'genOnOff'));
    return reply;
  }

  /** Sets attribute values as the device would measure them, and reports them (always: a test asked for it). */
  report(endpoint: number, cluster: string, values: AttributeValues): void {
    Object.assign(this.attributes(endpoint, cluster), values);
    this.sendReport(endpoint, cluster, Object.keys(values));
  }

  /** The device sends a cluster command to the coordinator (a button press, an IAS zone change); returns the frame. */
  command(endpoint: number, cluster: string, command: string, payload: Record<string, unknown>): ZclFrame {
    const { Zcl } = this.zh;
    const def = Zcl.Utils.getCluster(cluster, this.spec.manufacturerCode, {});
    // Commands a server sends (responses, notifications) go server-to-client; a remote's are client-to-server.
    const fromServer = !(command in def.commands) && command in def.commandsResponse;
    const frame = Zcl.Frame.create(
      Zcl.FrameType.SPECIFIC,
      fromServer ? Zcl.Direction.SERVER_TO_CLIENT : Zcl.Direction.CLIENT_TO_SERVER,
      true,
      undefined,
      this.nextTsn(),
      command,
      def,
      payload,
      {},
    );
    this.send(endpoint, frame);
    return frame;
  }

  private nextTsn(): number {
    this.tsn = (this.tsn + 1) & 0xff;
    return this.tsn;
  }

  private status(name: Status): number {
    return this.zh.Zcl.Status[name];
  }

  private reply(frame: ZclFrame, frameType: number, command: string, payload: unknown): ZclFrame {
    const { Zcl } = this.zh;
    return Zcl.Frame.create(
      frameType,
      Zcl.Direction.SERVER_TO_CLIENT,
      true,
      frame.header.manufacturerCode,
      frame.header.transactionSequenceNumber,
      command,
      frame.cluster,
      payload,
      {},
    );
  }

  private defaultResponse(frame: ZclFrame, status: Status): ZclFrame | undefined {
    // A device answers a frame that asked for no default response only when it failed (ZCL 2.5.12.2).
    if (frame.header.frameControl.disableDefaultResponse && status === 'SUCCESS') return undefined;
    return this.reply(frame, this.zh.Zcl.FrameType.GLOBAL, 'defaultRsp', {
      cmdId: frame.header.commandIdentifier,
      statusCode: this.status(status),
    });
  }

  private attributeName(frame: ZclFrame, attrId: number): string | undefined {
    return this.zh.Zcl.Utils.getClusterAttribute(frame.cluster, attrId, frame.header.manufacturerCode)?.name;
  }

  private global(endpoint: number, frame: ZclFrame, attrs: AttributeValues): ZclFrame | undefined {
    const { Zcl } = this.zh;
    const GLOBAL = Zcl.FrameType.GLOBAL;
    const records = (Array.isArray(frame.payload) ? frame.payload : []) as Record<string, unknown>[];
    switch (frame.command.name) {
      case 'read': {
        const out = records.map((r) => {
          const attrId = Number(r.attrId);
          const name = this.attributeName(frame, attrId);
          const def = name
            ? Zcl.Utils.getClusterAttribute(frame.cluster, attrId, frame.header.manufacturerCode)
            : undefined;
          if (!name || !def || attrs[name] === undefined)
            return { attrId, status: this.status('UNSUPPORTED_ATTRIBUTE') };
          return { attrId, status: 0, dataType: def.type, attrData: attrs[name] };
        });
        return this.reply(frame, GLOBAL, 'readRsp', out);
      }
      case 'write':
      case 'writeUndiv':
      case 'writeNoRsp': {
        const failed: { status: number; attrId: number }[] = [];
        for (const r of records) {
          const name = this.attributeName(frame, Number(r.attrId));
          if (name) attrs[name] = r.attrData as AttributeValues[string];
          else failed.push({ status: this.status('UNSUPPORTED_ATTRIBUTE'), attrId: Number(r.attrId) });
        }
        if (frame.command.name === 'writeNoRsp') return undefined;
        return this.reply(frame, GLOBAL, 'writeRsp', failed.length > 0 ? failed : [{ status: 0 }]);
      }
      case 'configReport': {
        for (const r of records) {
          const name = this.attributeName(frame, Number(r.attrId));
          if (!name) continue;
          const key = `${endpoint}/${frame.cluster.name}/${name}`;
          // A maximum interval of 0xffff turns reporting off (ZCL 2.5.7.1.7).
          if (r.maxRepIntval === 0xffff) this.reporting.delete(key);
          else this.reporting.add(key);
        }
        return this.reply(frame, GLOBAL, 'configReportRsp', [{ status: 0 }]);
      }
      case 'readReportConfig': {
        const out = records.map((r) => {
          const attrId = Number(r.attrId);
          const name = this.attributeName(frame, attrId);
          const def = name
            ? Zcl.Utils.getClusterAttribute(frame.cluster, attrId, frame.header.manufacturerCode)
            : undefined;
          if (!name || !def || !this.reporting.has(`${endpoint}/${frame.cluster.name}/${name}`))
            return { status: this.status('UNSUPPORTED_ATTRIBUTE'), direction: 0, attrId };
          return {
            status: 0,
            direction: 0,
            attrId,
            dataType: def.type,
            minRepIntval: 0,
            maxRepIntval: 3600,
            repChange: 1,
          };
        });
        return this.reply(frame, GLOBAL, 'readReportConfigRsp', out);
      }
      case 'discover': {
        const attrInfos = Object.keys(attrs)
          .map((name) => Zcl.Utils.getClusterAttribute(frame.cluster, name, frame.header.manufacturerCode))
          .filter((d) => d !== undefined)
          .map((d) => ({ attrId: d.ID, dataType: d.type }));
        return this.reply(frame, GLOBAL, 'discoverRsp', { discComplete: 1, attrInfos });
      }
      default:
        return this.defaultResponse(frame, 'UNSUP_GENERAL_COMMAND');
    }
  }

  private afterCommand(endpoint: number, frame: ZclFrame, outcome: CommandOutcome): ZclFrame | undefined {
    if (outcome === 'unsupported') return this.defaultResponse(frame, 'UNSUP_COMMAND');
    if (outcome === 'ok') return this.defaultResponse(frame, 'SUCCESS');
    if ('response' in outcome)
      return this.reply(frame, this.zh.Zcl.FrameType.SPECIFIC, outcome.response, outcome.payload);
    const key = `${endpoint}/${frame.cluster.name}`;
    const running = this.motions.get(key);
    if (running) clearInterval(running);
    this.motions.delete(key);
    if ('move' in outcome) this.travel(endpoint, frame.cluster.name, outcome.move.attribute, outcome.move.target);
    return this.defaultResponse(frame, 'SUCCESS');
  }

  /** Moves an attribute towards a target 10 points at a time, reporting each step (a travelling cover). */
  private travel(endpoint: number, cluster: string, attribute: string, target: number): void {
    const attrs = this.attributes(endpoint, cluster);
    const key = `${endpoint}/${cluster}`;
    const timer = setInterval(() => {
      const now = Number(attrs[attribute] ?? 0);
      const next = now < target ? Math.min(target, now + 10) : Math.max(target, now - 10);
      attrs[attribute] = next;
      if (this.online) this.sendReport(endpoint, cluster, [attribute]);
      if (next === target) {
        clearInterval(timer);
        this.motions.delete(key);
      }
    }, this.opts.coverStepMs);
    this.motions.set(key, timer);
  }

  private reportChanges(endpoint: number, cluster: string, before: AttributeValues, after: AttributeValues): void {
    const changed = Object.keys(after).filter(
      (name) => before[name] !== after[name] && this.reporting.has(`${endpoint}/${cluster}/${name}`),
    );
    if (changed.length === 0) return;
    const t = setTimeout(() => {
      this.timers.delete(t);
      if (this.online && this.joined) this.sendReport(endpoint, cluster, changed);
    }, this.opts.reportDelayMs);
    this.timers.add(t);
  }

  private sendReport(endpoint: number, cluster: string, names: string[]): void {
    const { Zcl } = this.zh;
    const def = Zcl.Utils.getCluster(cluster, this.spec.manufacturerCode, {});
    const attrs = this.attributes(endpoint, cluster);
    const records = names.flatMap((name) => {
      const a = Zcl.Utils.getClusterAttribute(def, name, undefined);
      return a && attrs[name] !== undefined ? [{ attrId: a.ID, dataType: a.type, attrData: attrs[name] }] : [];
    });
    if (records.length === 0) return;
    const frame = Zcl.Frame.create(
      Zcl.FrameType.GLOBAL,
      Zcl.Direction.SERVER_TO_CLIENT,
      true,
      undefined,
      this.nextTsn(),
      'report',
      def,
      records,
      {},
    );
    this.send(endpoint, frame);
  }
}
