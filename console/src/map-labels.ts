/**
 * Which names the network map writes: on a crowded map names drawn over each other read as
 * neither, so each is written only where it overlaps no name already written, the most useful
 * first (the chosen node, a marked one, the coordinator, routers, then end devices). Zooming in
 * makes names smaller on the map and leaves room for more; a device whose name is hidden still
 * has it in its tooltip and in the details shown when it is tapped. Pure: the same map, size and
 * choice give the same names.
 */
import type { PlacedNode } from './map-layout.ts';

export const NODE_RADIUS = { coordinator: 22, router: 15, end_device: 10 } as const;

/** The average width of a character of the map's font, in ems (a little generous). */
const CHAR_EM = 0.6;

export interface LabelPlan {
  /** The nodes whose name is written, by IEEE address. */
  shown: Set<string>;
  /** The baseline of a node's name, from its centre (outside: above a node of the upper half). */
  nameY(n: PlacedNode): number;
  /** The baseline of its mark (offline, not seen), beyond its name. */
  markY(n: PlacedNode): number;
}

interface Box {
  left: number;
  right: number;
  top: number;
  bottom: number;
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * `text`: the font size in map units; `name(n)`: the name as it would be written; `wanted(n)`:
 * whether the node's name is asked for at all (end devices go unnamed on a crowded phone).
 */
export function planLabels(
  nodes: readonly PlacedNode[],
  text: number,
  name: (n: PlacedNode) => string,
  wanted: (n: PlacedNode) => boolean,
  selected?: string,
): LabelPlan {
  const r = (n: PlacedNode) => NODE_RADIUS[n.kind];
  const nameY = (n: PlacedNode) => (n.y < 0 ? -r(n) - text * 0.5 : r(n) + text * 1.1);
  const markY = (n: PlacedNode) => (n.y < 0 ? -r(n) - text * 1.6 : r(n) + text * 2.1);
  const rank = (n: PlacedNode) =>
    n.node.ieee_address === selected ? 0 : n.stale ? 1 : n.kind === 'coordinator' ? 2 : n.kind === 'router' ? 3 : 4;
  const order = nodes.filter((n) => wanted(n) || rank(n) < 2).sort((a, b) => rank(a) - rank(b));

  const placed: Box[] = [];
  const shown = new Set<string>();
  for (const n of order) {
    const half = (name(n).length * CHAR_EM * text) / 2;
    const base = n.y + nameY(n);
    // With the mark, the box reaches one more line outwards.
    const extra = n.stale ? text * 1.1 : 0;
    const box: Box = {
      left: n.x - half,
      right: n.x + half,
      top: base - text * 0.85 - (n.y < 0 ? extra : 0),
      bottom: base + text * 0.25 + (n.y < 0 ? 0 : extra),
    };
    // The chosen and the marked are always named: the marking is what a user looks for.
    if (rank(n) >= 2 && placed.some((p) => overlaps(p, box))) continue;
    placed.push(box);
    shown.add(n.node.ieee_address);
  }
  return { shown, nameY, markY };
}
