/**
 * The network map of the coordinator's network, read as Zigbee2MQTT reads it: the coordinator
 * first, then every router, one after the other `paceMs` apart (a scan floods a large network), each
 * its neighbour table (ZDO Mgmt_Lqi) and, with `routes`, its routing table (Mgmt_Rtg); a router that
 * does not answer is asked once more after `retryMs`, then named in its node's `failed`. End devices
 * keep no table worth asking: they appear as the neighbours of their parent.
 */
import type { Controller } from 'zigbee-herdsman';
import type { MapLink, MapNode, NetworkMap } from '../../core/zigbee-upkeep/contract.ts';
import { type Clock, sleep } from '../../lib/clock.ts';
import { type LqiNeighbour, linksOf, type RoutingEntry } from '../../zigbee/index.ts';
import { type Within, within } from './within.ts';

export interface ScanOptions {
  clock: Clock;
  paceMs: number;
  retryMs: number;
  /** How long a router has to answer one request. */
  requestMs: number;
}

/** Scans the network of `controller`. */
export async function scanNetwork(controller: Controller, routes: boolean, o: ScanOptions): Promise<NetworkMap> {
  const pause = (ms: number) => (ms <= 0 ? Promise.resolve() : sleep(o.clock, ms));
  /** A request, and once more after a pause when it fails (the network may be busy). */
  const retried = async <T>(request: () => Promise<T>): Promise<Within<T>> => {
    const first = await within(o.clock, request(), o.requestMs);
    if (first.ok) return first;
    await pause(o.retryMs);
    return within(o.clock, request(), o.requestMs);
  };
  const all = [...controller.getDevicesIterator((d) => d.type !== 'GreenPower')];
  const byNwk = new Map(all.map((d) => [d.networkAddress, d.ieeeAddr]));
  const links: MapLink[] = [];
  const scanned = all
    .filter((d) => d.type === 'Coordinator' || d.type === 'Router')
    .sort((a, b) => Number(b.type === 'Coordinator') - Number(a.type === 'Coordinator'));
  const failures = new Map<string, string[]>();
  for (const [i, device] of scanned.entries()) {
    if (i > 0) await pause(o.paceMs);
    const failed: string[] = [];
    const lqi = await retried(() => device.lqi());
    if (!lqi.ok) failed.push('lqi');
    let table: RoutingEntry[] = [];
    if (routes) {
      const r = await retried(() => device.routingTable());
      if (r.ok) table = r.value as unknown as RoutingEntry[];
      else failed.push('routing_table');
    }
    failures.set(device.ieeeAddr, failed);
    if (lqi.ok) {
      const target = { ieee_address: device.ieeeAddr, network_address: device.networkAddress };
      links.push(...linksOf(target, lqi.value as LqiNeighbour[], table, (n) => byNwk.get(n)));
    }
  }
  const nodes: MapNode[] = all.map((d) => ({
    ieee_address: d.ieeeAddr,
    network_address: d.networkAddress,
    type: d.type,
    failed: failures.get(d.ieeeAddr) ?? [],
    ...(d.lastSeen !== undefined ? { last_seen: d.lastSeen } : {}),
  }));
  return { nodes, links };
}
