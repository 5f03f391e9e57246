/**
 * The network map in one form whichever Zigbee driver scanned it: from the neighbour (LQI) and
 * routing tables zigbee-herdsman reads off each router (ZDO Mgmt_Lqi_rsp, Mgmt_Rtg_rsp), or from
 * Zigbee2MQTT's `networkmap` answer of type `raw` (which is made of the same tables). A link is a
 * neighbour as the scanned node sees it: the neighbour is the `source`, the scanned node the
 * `target`, with the quality the scanned node measured; its routes are the scanned node's routes
 * whose next hop is that neighbour. Neighbours whose relationship is not active (above 3) are left
 * out, as Zigbee2MQTT does.
 */
import type { MapLink, MapNode, MapRoute, NetworkMap } from '../core/zigbee-upkeep/contract.ts';
import { isObject } from '../lib/object.ts';

const RELATIONSHIP = ['parent', 'child', 'sibling', 'none', 'previous_child'] as const;
const DEVICE_TYPE = ['coordinator', 'router', 'end_device', 'unknown'] as const;

/** A neighbour table entry as zigbee-herdsman parses it. */
export interface LqiNeighbour {
  eui64: string;
  nwkAddress: number;
  deviceType: number;
  relationship: number;
  depth: number;
  lqi: number;
}

/** A routing table entry as zigbee-herdsman parses it. */
export interface RoutingEntry {
  destinationAddress: number;
  nextHopAddress: number;
  status: string;
}

const num = (v: unknown, fallback = 0) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback);
const route = (r: RoutingEntry): MapRoute => ({
  destination_address: num(r.destinationAddress),
  next_hop_address: num(r.nextHopAddress),
  status: typeof r.status === 'string' ? r.status : 'UNKNOWN',
});

/** The links of one scanned node, from its neighbour and routing tables. */
export function linksOf(
  target: { ieee_address: string; network_address: number },
  neighbours: readonly LqiNeighbour[],
  routes: readonly RoutingEntry[],
  ieeeOfNwk: (nwk: number) => string | undefined,
): MapLink[] {
  const out: MapLink[] = [];
  for (const n of neighbours) {
    if (!(n.relationship >= 0 && n.relationship <= 3)) continue;
    // Some devices list a neighbour with an all-zero address: its network address names it.
    const ieee = n.eui64 === '0x0000000000000000' ? (ieeeOfNwk(n.nwkAddress) ?? n.eui64) : n.eui64;
    out.push({
      source: { ieee_address: ieee, network_address: num(n.nwkAddress) },
      target: { ...target },
      lqi: num(n.lqi),
      depth: num(n.depth),
      relationship: RELATIONSHIP[n.relationship] ?? 'none',
      device_type: DEVICE_TYPE[n.deviceType] ?? 'unknown',
      routes: routes.filter((r) => r.nextHopAddress === n.nwkAddress).map(route),
    });
  }
  return out;
}

/** Zigbee2MQTT's `raw` network map in this form; undefined when it is not one. */
export function fromZigbee2mqttRaw(raw: unknown): NetworkMap | undefined {
  if (!isObject(raw) || !Array.isArray(raw.nodes) || !Array.isArray(raw.links)) return undefined;
  const nodes: MapNode[] = raw.nodes.filter(isObject).map((n) => ({
    ieee_address: String(n.ieeeAddr ?? ''),
    network_address: num(n.networkAddress),
    type: typeof n.type === 'string' ? n.type : 'Unknown',
    failed: Array.isArray(n.failed) ? n.failed.map((f) => (f === 'routingTable' ? 'routing_table' : String(f))) : [],
    ...(typeof n.lastSeen === 'number' ? { last_seen: n.lastSeen } : {}),
  }));
  const links: MapLink[] = raw.links.filter(isObject).map((l) => {
    const source = isObject(l.source) ? l.source : {};
    const target = isObject(l.target) ? l.target : {};
    const rel = num(l.relationship, 3);
    return {
      source: {
        ieee_address: String(source.ieeeAddr ?? l.sourceIeeeAddr ?? ''),
        network_address: num(source.networkAddress),
      },
      target: {
        ieee_address: String(target.ieeeAddr ?? l.targetIeeeAddr ?? ''),
        network_address: num(target.networkAddress),
      },
      lqi: num(l.lqi ?? l.linkquality),
      depth: num(l.depth),
      relationship: RELATIONSHIP[rel] ?? 'none',
      device_type: DEVICE_TYPE[num(l.deviceType, 3)] ?? 'unknown',
      routes: Array.isArray(l.routes) ? l.routes.filter(isObject).map((r) => route(r as unknown as RoutingEntry)) : [],
    };
  });
  return { nodes, links };
}
