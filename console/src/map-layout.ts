/**
 * Where the network map draws each node: the coordinator in the middle, the routers on rings by
 * their hops from it (each near the router it is reached through), the end devices around the
 * router that is their parent. A link is drawn once per pair of nodes, with the weaker of the two
 * qualities they measured of each other (the one that drops first). Pure: the same map gives the
 * same picture.
 */
import type { MapLink, NetworkMapNode, NetworkMapView } from './types.ts';

export type NodeKind = 'coordinator' | 'router' | 'end_device';

export interface PlacedNode {
  node: NetworkMapNode;
  kind: NodeKind;
  x: number;
  y: number;
  /** Why it is marked: offline, not heard for long, or it did not answer the scan; undefined when fine. */
  stale?: string;
}

export interface PlacedLink {
  a: PlacedNode;
  b: PlacedNode;
  /** The weaker of the two measurements (0-255). */
  lqi: number;
  /** How each end measured the other, as `a -> b` text for a tooltip. */
  measured: string;
  relationship: MapLink['relationship'];
}

export interface MapLayout {
  nodes: PlacedNode[];
  links: PlacedLink[];
  bounds: { x: number; y: number; w: number; h: number };
}

/** Link quality bands (LQI 0-255), as the legend names them. */
export const QUALITY = { good: 170, fair: 85 } as const;
export type Quality = 'good' | 'fair' | 'poor';
export const qualityOf = (lqi: number): Quality =>
  lqi >= QUALITY.good ? 'good' : lqi >= QUALITY.fair ? 'fair' : 'poor';

/** A device not heard for this long is marked (battery devices check in at least daily). */
export const STALE_MS = 25 * 3_600_000;

/** The distance between rings, at least: more routers on a ring make it wider (room for their names). */
const RING = 170;
/** Along a ring, this much room for each router (its name and its end devices). */
export const PER_ROUTER = 190;
const CHILD = 95;

function kindOf(n: NetworkMapNode): NodeKind {
  const t = n.type.toLowerCase();
  if (t === 'coordinator' || n.network_address === 0) return 'coordinator';
  return t === 'router' ? 'router' : 'end_device';
}

function hoursText(ms: number): string {
  const h = Math.round(ms / 3_600_000);
  return h >= 48 ? `${Math.round(h / 24)} days` : `${h} h`;
}

/** Why a node is marked, if it is. */
export function staleness(n: NetworkMapNode, now: number): string | undefined {
  if (n.online === false) return 'offline';
  if (n.last_seen !== undefined && now - n.last_seen > STALE_MS) return `not seen for ${hoursText(now - n.last_seen)}`;
  if (n.failed.includes('lqi')) return 'did not answer the scan';
  return undefined;
}

export function layoutMap(map: NetworkMapView, now: number): MapLayout {
  const byIeee = new Map<string, PlacedNode>();
  for (const node of map.nodes)
    byIeee.set(node.ieee_address, {
      node,
      kind: kindOf(node),
      x: 0,
      y: 0,
      ...(staleness(node, now) ? { stale: staleness(node, now) } : {}),
    });
  // Neighbours seen only in a table (not scanned themselves) are nodes too.
  for (const l of map.links)
    for (const [end, type] of [
      [l.source, l.device_type],
      [l.target, undefined],
    ] as const)
      if (!byIeee.has(end.ieee_address))
        byIeee.set(end.ieee_address, {
          node: { ieee_address: end.ieee_address, network_address: end.network_address, type: 'EndDevice', failed: [] },
          kind: type === 'router' ? 'router' : type === 'coordinator' ? 'coordinator' : 'end_device',
          x: 0,
          y: 0,
        });

  // One link per pair: the weaker quality, both measurements kept for the tooltip.
  const pairs = new Map<string, PlacedLink>();
  const parentOf = new Map<string, string>();
  for (const l of map.links) {
    const s = l.source.ieee_address;
    const t = l.target.ieee_address;
    if (s === t) continue;
    if (l.relationship === 'child') parentOf.set(s, t);
    if (l.relationship === 'parent' && !parentOf.has(t)) parentOf.set(t, s);
    const key = s < t ? `${s}|${t}` : `${t}|${s}`;
    const seen = pairs.get(key);
    const a = byIeee.get(s) as PlacedNode;
    const b = byIeee.get(t) as PlacedNode;
    const text = `${b.node.name ?? t} hears ${a.node.name ?? s} at ${l.lqi}`;
    if (seen) {
      seen.lqi = Math.min(seen.lqi, l.lqi);
      seen.measured = `${seen.measured}; ${text}`;
      if (l.relationship !== 'sibling' && l.relationship !== 'none') seen.relationship = l.relationship;
    } else pairs.set(key, { a, b, lqi: l.lqi, measured: text, relationship: l.relationship });
  }

  const nodes = [...byIeee.values()];
  const coordinator = nodes.find((n) => n.kind === 'coordinator');
  const routers = nodes.filter((n) => n.kind === 'router');
  const ends = nodes.filter((n) => n.kind === 'end_device');

  // Hops from the coordinator over the links between routers, each with the router it is reached through.
  const depth = new Map<PlacedNode, number>();
  const via = new Map<PlacedNode, PlacedNode>();
  const neighbours = new Map<PlacedNode, PlacedNode[]>();
  for (const p of pairs.values()) {
    if (p.a.kind === 'end_device' || p.b.kind === 'end_device') continue;
    neighbours.set(p.a, [...(neighbours.get(p.a) ?? []), p.b]);
    neighbours.set(p.b, [...(neighbours.get(p.b) ?? []), p.a]);
  }
  if (coordinator) {
    depth.set(coordinator, 0);
    const queue = [coordinator];
    while (queue.length > 0) {
      const n = queue.shift() as PlacedNode;
      for (const m of neighbours.get(n) ?? [])
        if (!depth.has(m)) {
          depth.set(m, (depth.get(n) ?? 0) + 1);
          via.set(m, n);
          queue.push(m);
        }
    }
  }
  const maxDepth = Math.max(1, ...depth.values());
  // Routers no link reaches go on a ring of their own, outside.
  for (const r of routers) if (!depth.has(r)) depth.set(r, maxDepth + 1);

  const angle = new Map<PlacedNode, number>();
  if (coordinator) angle.set(coordinator, 0);
  const rings = new Map<number, PlacedNode[]>();
  for (const r of routers) rings.set(depth.get(r) as number, [...(rings.get(depth.get(r) as number) ?? []), r]);
  // Each ring wide enough for its routers, and outside the ring before it.
  let radius = 0;
  for (const d of [...rings.keys()].sort((x, y) => x - y)) {
    const ring = rings.get(d) as PlacedNode[];
    radius = Math.max(radius + RING, (PER_ROUTER * ring.length) / (2 * Math.PI));
    // Near the router each is reached through: sorted by that one's angle, then spread evenly.
    ring.sort(
      (x, y) =>
        (angle.get(via.get(x) as PlacedNode) ?? 0) - (angle.get(via.get(y) as PlacedNode) ?? 0) ||
        x.node.ieee_address.localeCompare(y.node.ieee_address),
    );
    ring.forEach((r, i) => {
      const a = (2 * Math.PI * i) / ring.length - Math.PI / 2;
      angle.set(r, a);
      r.x = Math.cos(a) * radius;
      r.y = Math.sin(a) * radius;
    });
  }

  // End devices around their parent, fanned away from the middle.
  const children = new Map<PlacedNode | undefined, PlacedNode[]>();
  for (const e of ends) {
    const p = byIeee.get(parentOf.get(e.node.ieee_address) ?? '');
    children.set(p, [...(children.get(p) ?? []), e]);
  }
  for (const [parent, list] of children) {
    list.sort((x, y) => x.node.ieee_address.localeCompare(y.node.ieee_address));
    if (!parent) {
      // Parent unknown (it did not answer the scan): on a ring outside everything else.
      const r = radius + RING + CHILD;
      list.forEach((e, i) => {
        const a = (2 * Math.PI * i) / list.length;
        e.x = Math.cos(a) * r;
        e.y = Math.sin(a) * r;
      });
      continue;
    }
    const out = parent.kind === 'coordinator' ? -Math.PI / 2 : Math.atan2(parent.y, parent.x);
    const spread = parent.kind === 'coordinator' ? 2 * Math.PI : Math.min(Math.PI * 1.2, 0.55 * list.length);
    const away = parent.kind === 'coordinator' ? RING * 0.55 : CHILD + 6 * Math.max(0, list.length - 4);
    list.forEach((e, i) => {
      const a = list.length === 1 ? out : out - spread / 2 + (spread * (i + 0.5)) / list.length;
      e.x = parent.x + Math.cos(a) * away;
      e.y = parent.y + Math.sin(a) * away;
    });
  }

  const xs = nodes.map((n) => n.x);
  const ys = nodes.map((n) => n.y);
  const pad = 90;
  const x = Math.min(0, ...xs) - pad;
  const y = Math.min(0, ...ys) - pad;
  return {
    nodes,
    links: [...pairs.values()],
    bounds: { x, y, w: Math.max(0, ...xs) + pad - x, h: Math.max(0, ...ys) + pad - y },
  };
}
