/**
 * The simulated network as a network map scans it: every router hears the coordinator and the
 * other routers (siblings), each end device joined through one of the routers in turn (the
 * coordinator when there is none), and a router has a route to what is below its children. Link
 * qualities are drawn once per pair from the simulator's seed (a parent's link stronger than a
 * sibling's), so two scans agree. A router that is offline answers nothing (`failed`, as Zigbee2MQTT
 * marks it); the others still list it as a neighbour. The answer has the form of Zigbee2MQTT's
 * `raw` map.
 */
import type { UpkeepDevice } from './upkeep.ts';

export class SimMap {
  private readonly lqi = new Map<string, number>();

  constructor(
    private readonly coordinatorIeee: string,
    private readonly rand: () => number,
  ) {}

  private linkQuality(a: string, b: string, parent: boolean): number {
    const key = a < b ? `${a}|${b}` : `${b}|${a}`;
    let q = this.lqi.get(key);
    if (q === undefined) {
      q = parent ? 120 + Math.floor(this.rand() * 135) : 40 + Math.floor(this.rand() * 120);
      this.lqi.set(key, q);
    }
    return q;
  }

  /** Zigbee2MQTT's `raw` map of these devices (`routers` among them), with routes when asked. */
  raw(devices: UpkeepDevice[], routers: UpkeepDevice[], routes: boolean): Record<string, unknown> {
    const coordinator = { ieee: this.coordinatorIeee, nwk: 0, type: 'Coordinator' };
    type Node = { ieee: string; nwk: number; type: string; parent?: Node };
    const top: Node = coordinator;
    const routerNodes: Node[] = routers.map((r) => ({ ieee: r.ieee, nwk: r.nwk, type: 'Router', parent: top }));
    const nodes: Node[] = [top, ...routerNodes];
    // End devices joined through the routers in turn (through the coordinator when there is none).
    devices
      .filter((d) => d.fixture.type !== 'Router')
      .forEach((d, i) => {
        const parent = routerNodes.length > 0 ? (routerNodes[i % routerNodes.length] as Node) : top;
        nodes.push({ ieee: d.ieee, nwk: d.nwk, type: 'EndDevice', parent });
      });
    const links: Record<string, unknown>[] = [];
    const depth = (n: Node) => (n.parent ? (n.parent.parent ? 2 : 1) : 0);
    const byIeee = new Map(devices.map((d) => [d.ieee, d]));
    const silent = (n: Node) => n.type === 'Router' && byIeee.get(n.ieee)?.online === false;
    for (const self of nodes.filter((n) => n.type !== 'EndDevice' && !silent(n))) {
      const table = nodes
        .filter((n) => n !== self && (n.parent === self || self.parent === n || n.type !== 'EndDevice'))
        .map((n) => ({
          n,
          relationship: self.parent === n ? 0 : n.parent === self ? 1 : 2,
        }));
      for (const { n, relationship } of table) {
        const lqi = this.linkQuality(self.ieee, n.ieee, relationship < 2);
        const below = (x: Node): Node[] => nodes.filter((m) => m.parent === x).flatMap((m) => [m, ...below(m)]);
        const linkRoutes =
          routes && relationship === 1 && n.type !== 'EndDevice'
            ? below(n).map((m) => ({
                destinationAddress: m.nwk,
                manyToOne: 0,
                memoryConstrained: 0,
                nextHopAddress: n.nwk,
                reserved1: 0,
                routeRecordRequired: 0,
                status: 'ACTIVE',
              }))
            : [];
        links.push({
          depth: depth(n),
          deviceType: n.type === 'Coordinator' ? 0 : n.type === 'Router' ? 1 : 2,
          linkquality: lqi,
          lqi,
          permitJoining: 0,
          relationship,
          routes: linkRoutes,
          rxOnWhenIdle: n.type === 'EndDevice' ? 0 : 1,
          source: { ieeeAddr: n.ieee, networkAddress: n.nwk },
          sourceIeeeAddr: n.ieee,
          sourceNwkAddr: n.nwk,
          target: { ieeeAddr: self.ieee, networkAddress: self.nwk },
          targetIeeeAddr: self.ieee,
        });
      }
    }
    return {
      links,
      nodes: nodes.map((n) => {
        const d = byIeee.get(n.ieee);
        return {
          ...(d
            ? {
                definition: {
                  description: d.fixture.description,
                  model: d.fixture.model,
                  supports: [...new Set(d.fixture.exposes.map((e) => e.name ?? e.type))].join(', '),
                  vendor: d.fixture.vendor,
                },
              }
            : {}),
          failed: silent(n) ? (routes ? ['lqi', 'routingTable'] : ['lqi']) : [],
          friendlyName: d ? d.friendly : 'Coordinator',
          ieeeAddr: n.ieee,
          lastSeen: null,
          manufacturerName: d ? d.fixture.vendor : undefined,
          modelID: d ? d.fixture.zigbee_model : undefined,
          networkAddress: n.nwk,
          type: n.type,
        };
      }),
    };
  }
}
