/**
 * The shape of the fake network as a network map sees it: each device joined through a parent
 * (`FakeDeviceSpec.parent`, the coordinator by default), routers hear each other, and the
 * neighbour (LQI) and routing tables a real node answers follow from that (ZDO Mgmt_Lqi_rsp and
 * Mgmt_Rtg_rsp, Zigbee spec 2.4.4.3.2 and 2.4.4.3.3):
 *
 * - a node lists its parent (relationship 0), its children (1), and every other router or the
 *   coordinator as a sibling (2); an end device lists its parent only;
 * - the link quality of a parent-child link is the child's `lqi`; between two routers that are
 *   not parent and child it is a weaker value made from their addresses (always the same);
 * - a router (or the coordinator) has a route to every node below one of its children, through
 *   that child, and every router a route to the coordinator through its parent.
 */
import type { LqiEntry, RouteEntry } from './zdo.ts';

export interface TopologyNode {
  ieee: string;
  nwk: number;
  type: 'Coordinator' | 'Router' | 'EndDevice';
  /** Its parent (absent for the coordinator). */
  parent?: string;
  /** Link quality to its parent. */
  lqi?: number;
}

const DEVICE_TYPE = { Coordinator: 0, Router: 1, EndDevice: 2 } as const;

/** The weaker link quality two routers in range measure, the same every scan. */
function siblingLqi(a: TopologyNode, b: TopologyNode): number {
  return 90 + ((a.nwk ^ b.nwk) % 80);
}

function entry(node: TopologyNode, relationship: number, lqi: number, depth: number): LqiEntry {
  return {
    eui64: node.ieee,
    nwkAddress: node.nwk,
    deviceType: DEVICE_TYPE[node.type],
    rxOnWhenIdle: node.type === 'EndDevice' ? 0 : 1,
    relationship,
    permitJoining: 0,
    depth,
    lqi,
  };
}

function depthOf(nodes: readonly TopologyNode[], node: TopologyNode): number {
  let depth = 0;
  let at: TopologyNode | undefined = node;
  while (at?.parent && depth < nodes.length) {
    const parent: string = at.parent;
    at = nodes.find((n) => n.ieee === parent);
    depth++;
  }
  return depth;
}

/** The neighbour table of `ieee`. */
export function lqiTable(nodes: readonly TopologyNode[], ieee: string): LqiEntry[] {
  const self = nodes.find((n) => n.ieee === ieee);
  if (!self) return [];
  const out: LqiEntry[] = [];
  const parent = nodes.find((n) => n.ieee === self.parent);
  if (parent) out.push(entry(parent, 0, self.lqi ?? 200, depthOf(nodes, parent)));
  if (self.type === 'EndDevice') return out;
  for (const n of nodes) {
    if (n === self || n === parent) continue;
    if (n.parent === self.ieee) out.push(entry(n, 1, n.lqi ?? 200, depthOf(nodes, n)));
    else if (n.type !== 'EndDevice') out.push(entry(n, 2, siblingLqi(self, n), depthOf(nodes, n)));
  }
  return out;
}

/** The routing table of `ieee`. */
export function routingTable(nodes: readonly TopologyNode[], ieee: string): RouteEntry[] {
  const self = nodes.find((n) => n.ieee === ieee);
  if (!self || self.type === 'EndDevice') return [];
  const route = (destination: number, nextHop: number): RouteEntry => ({
    destinationAddress: destination,
    status: 'ACTIVE',
    memoryConstrained: 0,
    manyToOne: 0,
    routeRecordRequired: 0,
    reserved1: 0,
    nextHopAddress: nextHop,
  });
  const out: RouteEntry[] = [];
  const parent = nodes.find((n) => n.ieee === self.parent);
  if (parent) out.push(route(0, parent.nwk));
  for (const child of nodes.filter((n) => n.parent === self.ieee && n.type !== 'EndDevice')) {
    const below = (n: TopologyNode): TopologyNode[] =>
      nodes.filter((m) => m.parent === n.ieee).flatMap((m) => [m, ...below(m)]);
    for (const d of below(child)) out.push(route(d.nwk, child.nwk));
  }
  return out;
}
