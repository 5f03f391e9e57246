/**
 * ZDO requests answered the way a device (or the coordinator) answers them: descriptors, bind and
 * unbind, leave, the neighbour/routing/binding tables. Requests arrive as the byte payload
 * herdsman builds (without the transaction-sequence byte: the fake declares no ZDO overhead).
 */
import type { HerdsmanZspec } from './herdsman.ts';
import type { FakeDeviceSpec } from './spec.ts';

/** A node as ZDO sees it: the coordinator or a fake device. */
export interface ZdoNode {
  spec: Pick<FakeDeviceSpec, 'ieee' | 'nwk' | 'type' | 'manufacturerCode' | 'endpoints'>;
  /** Resolves a cluster (name or number) to its id. */
  clusterId(cluster: string | number): number;
  binds: BindEntry[];
  /** Its neighbour (LQI) table, without the extended PAN id (topology.ts). */
  neighbours(): LqiEntry[];
  /** Its routing table. */
  routes(): RouteEntry[];
}

/** One entry of a neighbour table, as herdsman parses a Mgmt_Lqi_rsp (the extended PAN id added here). */
export interface LqiEntry {
  eui64: string;
  nwkAddress: number;
  deviceType: number;
  rxOnWhenIdle: number;
  relationship: number;
  permitJoining: number;
  depth: number;
  lqi: number;
}

/** One entry of a routing table, as herdsman parses a Mgmt_Rtg_rsp. */
export interface RouteEntry {
  destinationAddress: number;
  status: 'ACTIVE' | 'DISCOVERY_UNDERWAY' | 'DISCOVERY_FAILED' | 'INACTIVE' | 'VALIDATION_UNDERWAY';
  memoryConstrained: number;
  manyToOne: number;
  routeRecordRequired: number;
  reserved1: number;
  nextHopAddress: number;
}

export interface BindEntry {
  sourceEui64: string;
  sourceEndpoint: number;
  clusterId: number;
  destAddrMode: number;
  dest: string | number;
  destEndpoint?: number;
}

/** What a ZDO request did, besides its answer (the network acts on it). */
export type ZdoEffect = { leave: true } | undefined;

function eui64(buf: Buffer, offset: number): string {
  return `0x${Buffer.from(buf.subarray(offset, offset + 8))
    .reverse()
    .toString('hex')}`;
}

/** Answers one ZDO request sent to `node`: `[status, payload]` as herdsman's adapters return it. */
export function answerZdo(
  zh: HerdsmanZspec,
  node: ZdoNode,
  clusterId: number,
  req: Buffer,
  extendedPanId: string,
): { response: [number, unknown]; effect?: ZdoEffect } {
  const { Zdo } = zh;
  const C = Zdo.ClusterId;
  const ok = (payload: unknown): { response: [number, unknown] } => ({ response: [Zdo.Status.SUCCESS, payload] });
  const { spec } = node;
  const router = spec.type !== 'EndDevice';
  switch (clusterId) {
    case C.NODE_DESCRIPTOR_REQUEST:
      return ok({
        nwkAddress: spec.nwk,
        logicalType: spec.nwk === 0 ? 0 : router ? 1 : 2,
        fragmentationSupported: undefined,
        apsFlags: 0,
        frequencyBand: 8,
        capabilities: {
          alternatePANCoordinator: spec.nwk === 0 ? 1 : 0,
          deviceType: router ? 1 : 0,
          powerSource: router ? 1 : 0,
          rxOnWhenIdle: router ? 1 : 0,
          reserved1: 0,
          reserved2: 0,
          securityCapability: 0,
          allocateAddress: 1,
        },
        manufacturerCode: spec.manufacturerCode,
        maxBufSize: 82,
        maxIncTxSize: 82,
        serverMask: {
          primaryTrustCenter: spec.nwk === 0 ? 1 : 0,
          backupTrustCenter: 0,
          deprecated1: 0,
          deprecated2: 0,
          deprecated3: 0,
          deprecated4: 0,
          networkManager: spec.nwk === 0 ? 1 : 0,
          reserved1: 0,
          reserved2: 0,
          stackComplianceRevision: 22,
        },
        maxOutTxSize: 82,
        deprecated1: 0,
        tlvs: [],
      });
    case C.POWER_DESCRIPTOR_REQUEST:
      return ok({
        nwkAddress: spec.nwk,
        currentPowerMode: 0,
        availPowerSources: router ? 1 : 4,
        currentPowerSource: router ? 1 : 4,
        currentPowerSourceLevel: 12,
      });
    case C.ACTIVE_ENDPOINTS_REQUEST:
      return ok({ nwkAddress: spec.nwk, endpointList: spec.endpoints.map((e) => e.id) });
    case C.SIMPLE_DESCRIPTOR_REQUEST: {
      const ep = spec.endpoints.find((e) => e.id === req[2]);
      if (!ep) return { response: [Zdo.Status.NOT_ACTIVE, undefined] };
      const inClusterList = ep.inputClusters.map((c) => node.clusterId(c));
      const outClusterList = ep.outputClusters.map((c) => node.clusterId(c));
      return ok({
        nwkAddress: spec.nwk,
        length: 8 + 2 * (inClusterList.length + outClusterList.length),
        endpoint: ep.id,
        profileId: ep.profileId,
        deviceId: ep.deviceId,
        deviceVersion: 1,
        inClusterList,
        outClusterList,
        tlvs: [],
      });
    }
    case C.BIND_REQUEST:
    case C.UNBIND_REQUEST: {
      const entry: BindEntry = {
        sourceEui64: eui64(req, 0),
        sourceEndpoint: req[8] as number,
        clusterId: req.readUInt16LE(9),
        destAddrMode: req[11] as number,
        dest: req[11] === Zdo.UNICAST_BINDING ? eui64(req, 12) : req.readUInt16LE(12),
        ...(req[11] === Zdo.UNICAST_BINDING ? { destEndpoint: req[20] as number } : {}),
      };
      const same = (b: BindEntry) =>
        b.sourceEndpoint === entry.sourceEndpoint &&
        b.clusterId === entry.clusterId &&
        b.dest === entry.dest &&
        b.destEndpoint === entry.destEndpoint;
      const at = node.binds.findIndex(same);
      if (clusterId === C.BIND_REQUEST) {
        if (at < 0) node.binds.push(entry);
      } else if (at < 0) return { response: [Zdo.Status.NO_ENTRY, undefined] };
      else node.binds.splice(at, 1);
      return ok(undefined);
    }
    case C.LEAVE_REQUEST:
      return { ...ok(undefined), effect: { leave: true } };
    case C.LQI_TABLE_REQUEST: {
      const all = node.neighbours().map((n) => ({ extendedPanId, ...n, reserved1: 0, reserved2: 0 }));
      const start = req[0] ?? 0;
      return ok({ neighborTableEntries: all.length, startIndex: start, entryList: all.slice(start, start + 3) });
    }
    case C.ROUTING_TABLE_REQUEST: {
      const all = node.routes();
      const start = req[0] ?? 0;
      return ok({ routingTableEntries: all.length, startIndex: start, entryList: all.slice(start, start + 3) });
    }
    case C.BINDING_TABLE_REQUEST: {
      const start = req[0] ?? 0;
      return ok({
        bindingTableEntries: node.binds.length,
        startIndex: start,
        entryList: node.binds.slice(start, start + 3),
      });
    }
    case C.CLEAR_ALL_BINDINGS_REQUEST:
      node.binds.length = 0;
      return ok(undefined);
    case C.NETWORK_ADDRESS_REQUEST:
    case C.IEEE_ADDRESS_REQUEST:
      return ok({ eui64: spec.ieee, nwkAddress: spec.nwk, startIndex: 0, assocDevList: [] });
    default:
      return { response: [Zdo.Status.NOT_SUPPORTED, undefined] };
  }
}
