/**
 * The network map drawn: links coloured by quality, the coordinator, routers and end devices, a
 * device not seen recently marked, names that would overlap left out (map-labels.ts; each node's
 * full name is its tooltip). Zoom with the wheel, the buttons or two fingers; pan by dragging (one
 * finger on a phone); a node tapped is selected (its details are the page's).
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { planLabels, NODE_RADIUS as RADIUS } from '../map-labels.ts';
import { type MapLayout, PER_ROUTER, type PlacedNode, qualityOf } from '../map-layout.ts';

interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The smallest and largest part of the whole map a view shows. */
const MIN_W = 120;

function label(n: PlacedNode, max = 22): string {
  const name = n.node.name ?? (n.kind === 'coordinator' ? 'Coordinator' : n.node.ieee_address);
  return name.length > max ? `${name.slice(0, max - 1)}…` : name;
}

/** Below this much room per router on screen (a phone showing the whole map), end devices go unnamed until zoomed in. */
const CROWDED_PX = 70;

export function MapView({
  layout,
  selected,
  onSelect,
}: {
  layout: MapLayout;
  selected?: string;
  onSelect(ieee: string | undefined): void;
}) {
  const [view, setView] = useState<Box>(layout.bounds);
  const svg = useRef<SVGSVGElement>(null);
  const viewRef = useRef(view);
  viewRef.current = view;
  const pointers = useRef(new Map<number, { x: number; y: number }>());
  const gesture = useRef<{ start: Map<number, { x: number; y: number }>; view: Box; moved: boolean } | null>(null);

  // A new map is shown whole.
  useEffect(() => setView(layout.bounds), [layout]);
  // The drawing's size on screen: names keep a readable size when the whole map is shown.
  const [size, setSize] = useState({ w: 800, h: 600 });
  useEffect(() => {
    const el = svg.current;
    if (!el) return;
    const seen = new ResizeObserver(() => setSize({ w: el.clientWidth || 800, h: el.clientHeight || 600 }));
    seen.observe(el);
    return () => seen.disconnect();
  }, []);

  /** SVG units per screen pixel, and where the drawing starts on screen (the view keeps its aspect). */
  const scale = () => {
    const el = svg.current;
    const v = viewRef.current;
    if (!el) return { s: 1, left: 0, top: 0, ox: 0, oy: 0 };
    const r = el.getBoundingClientRect();
    const s = Math.max(v.w / Math.max(1, r.width), v.h / Math.max(1, r.height));
    return { s, left: r.left, top: r.top, ox: (r.width * s - v.w) / 2, oy: (r.height * s - v.h) / 2 };
  };
  const toMap = (cx: number, cy: number, v = viewRef.current) => {
    const { s, left, top, ox, oy } = scale();
    return { x: v.x - ox + (cx - left) * s, y: v.y - oy + (cy - top) * s };
  };
  const limit = (v: Box): Box => {
    const maxW = layout.bounds.w * 4;
    const w = Math.min(maxW, Math.max(MIN_W, v.w));
    const f = w / v.w;
    return { x: v.x, y: v.y, w, h: v.h * f };
  };
  /** Zooms by `factor` (above 1: closer) keeping the map point under (cx, cy) in place. */
  const zoomAt = (factor: number, at?: { x: number; y: number }) => {
    const v = viewRef.current;
    const p = at ?? { x: v.x + v.w / 2, y: v.y + v.h / 2 };
    const next = limit({ ...v, w: v.w / factor, h: v.h / factor });
    const f = next.w / v.w;
    setView({ x: p.x - (p.x - v.x) * f, y: p.y - (p.y - v.y) * f, w: next.w, h: next.h });
  };

  useEffect(() => {
    const el = svg.current;
    if (!el) return;
    // Not passive: the page must not scroll while the map zooms.
    const wheel = (e: WheelEvent) => {
      e.preventDefault();
      zoomAt(Math.exp(-e.deltaY * 0.0015), toMap(e.clientX, e.clientY));
    };
    el.addEventListener('wheel', wheel, { passive: false });
    return () => el.removeEventListener('wheel', wheel);
  });

  const onDown = (e: PointerEvent) => {
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    gesture.current = { start: new Map(pointers.current), view: viewRef.current, moved: false };
  };
  const onMove = (e: PointerEvent) => {
    if (!pointers.current.has(e.pointerId) || !gesture.current) return;
    pointers.current.set(e.pointerId, { x: e.clientX, y: e.clientY });
    const g = gesture.current;
    const { s } = scale();
    const now = [...pointers.current.values()];
    const was = [...g.start.values()];
    if (now.length === 1 && was.length === 1) {
      const dx = (now[0]?.x ?? 0) - (was[0]?.x ?? 0);
      const dy = (now[0]?.y ?? 0) - (was[0]?.y ?? 0);
      if (!g.moved && Math.hypot(dx, dy) < 4) return;
      if (!g.moved) svg.current?.setPointerCapture(e.pointerId);
      g.moved = true;
      setView({ ...g.view, x: g.view.x - dx * s, y: g.view.y - dy * s });
    } else if (now.length >= 2 && was.length >= 2) {
      // Two fingers: the distance between them zooms, their middle pans.
      const [a, b] = now as [{ x: number; y: number }, { x: number; y: number }];
      const [a0, b0] = was as [{ x: number; y: number }, { x: number; y: number }];
      const factor = Math.hypot(a.x - b.x, a.y - b.y) / Math.max(1, Math.hypot(a0.x - b0.x, a0.y - b0.y));
      const mid0 = toMap((a0.x + b0.x) / 2, (a0.y + b0.y) / 2, g.view);
      const next = limit({ ...g.view, w: g.view.w / factor, h: g.view.h / factor });
      const f = next.w / g.view.w;
      const panX = ((a.x + b.x) / 2 - (a0.x + b0.x) / 2) * s;
      const panY = ((a.y + b.y) / 2 - (a0.y + b0.y) / 2) * s;
      g.moved = true;
      setView({
        x: mid0.x - (mid0.x - g.view.x) * f - panX * f,
        y: mid0.y - (mid0.y - g.view.y) * f - panY * f,
        w: next.w,
        h: next.h,
      });
    }
  };
  const onUp = (e: PointerEvent) => {
    pointers.current.delete(e.pointerId);
    const g = gesture.current;
    if (pointers.current.size === 0) {
      gesture.current = null;
      // A tap (no drag) on the background clears the selection; on a node, the node's click selects it.
      if (g && !g.moved && (e.target as Element).closest?.('.node') === null) onSelect(undefined);
    } else gesture.current = { start: new Map(pointers.current), view: viewRef.current, moved: true };
  };

  const zoomLabel = Math.round((layout.bounds.w / view.w) * 100);
  // About 13 px on screen however far out; larger with the drawing when zoomed in.
  const perPixel = Math.max(view.w / Math.max(1, size.w), view.h / Math.max(1, size.h));
  const text = Math.max(13, 13 * perPixel);
  const crowded = PER_ROUTER / perPixel < CROWDED_PX;
  const nameOf = (n: PlacedNode) => label(n, crowded ? 14 : 22);
  const labels = planLabels(layout.nodes, text, nameOf, (n) => !crowded || n.kind !== 'end_device', selected);
  return (
    <div class="map-wrap">
      <svg
        ref={svg}
        class="network-map"
        viewBox={`${view.x} ${view.y} ${view.w} ${view.h}`}
        role="img"
        aria-label={`Network map: ${layout.nodes.length} nodes, ${layout.links.length} links`}
        onPointerDown={onDown}
        onPointerMove={onMove}
        onPointerUp={onUp}
        onPointerCancel={onUp}
        style={{ fontSize: `${text}px` }}
      >
        {layout.links.map((l) => (
          <line
            key={`${l.a.node.ieee_address}|${l.b.node.ieee_address}`}
            class={`link ${qualityOf(l.lqi)} ${l.relationship === 'parent' || l.relationship === 'child' ? 'tree' : 'mesh'}${selected && (l.a.node.ieee_address === selected || l.b.node.ieee_address === selected) ? ' chosen' : ''}`}
            x1={l.a.x}
            y1={l.a.y}
            x2={l.b.x}
            y2={l.b.y}
          >
            <title>{`Link quality ${l.lqi} (${l.measured})`}</title>
          </line>
        ))}
        {layout.nodes.map((n) => (
          // biome-ignore lint/a11y/useSemanticElements: an SVG group cannot be a <button>
          <g
            key={n.node.ieee_address}
            class={`node ${n.kind}${n.stale ? ' stale' : ''}${selected === n.node.ieee_address ? ' chosen' : ''}`}
            data-ieee={n.node.ieee_address}
            transform={`translate(${n.x} ${n.y})`}
            role="button"
            tabIndex={0}
            aria-label={`${label(n)}${n.stale ? ` (${n.stale})` : ''}`}
            onClick={() => onSelect(n.node.ieee_address)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' || e.key === ' ') onSelect(n.node.ieee_address);
            }}
          >
            <title>{`${label(n, 200)}${n.stale ? ` (${n.stale})` : ''}`}</title>
            {n.kind === 'coordinator' ? (
              <rect
                x={-RADIUS.coordinator}
                y={-RADIUS.coordinator}
                width={RADIUS.coordinator * 2}
                height={RADIUS.coordinator * 2}
                rx={6}
              />
            ) : (
              <circle r={RADIUS[n.kind]} />
            )}
            {n.stale && <circle class="stale-ring" r={RADIUS[n.kind] + 6} />}
            {/* The name on the outer side: above a node of the upper half, away from the links inside. */}
            {labels.shown.has(n.node.ieee_address) && <text y={labels.nameY(n)}>{nameOf(n)}</text>}
            {n.stale && (
              <text class="stale-text" y={labels.markY(n)}>
                {n.stale}
              </text>
            )}
          </g>
        ))}
      </svg>
      <div class="map-zoom">
        <button type="button" class="small" aria-label="Zoom in" onClick={() => zoomAt(1.4)}>
          +
        </button>
        <button type="button" class="small" aria-label="Zoom out" onClick={() => zoomAt(1 / 1.4)}>
          −
        </button>
        <button type="button" class="small" onClick={() => setView(layout.bounds)}>
          Fit
        </button>
        <span class="map-scale" aria-live="polite">
          {zoomLabel} %
        </span>
      </div>
    </div>
  );
}
