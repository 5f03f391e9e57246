/**
 * The Zigbee network map: the last scan drawn (map-view.tsx), when it was made, a scan on demand
 * with the warning that it floods a large network, and the details of the node chosen (its links
 * and their quality, its device's page).
 */
import { useEffect, useMemo, useState } from 'preact/hooks';
import { ApiError, api, wordsOf } from '../api.ts';
import { MapView } from '../components/map-view.tsx';
import { when } from '../format.ts';
import { layoutMap, QUALITY, qualityOf } from '../map-layout.ts';
import { act } from '../store.ts';
import type { NetworkMapView } from '../types.ts';
import { networks, scans } from '../zigbee.ts';

/** A node's name as the map shows it. */
function nameOf(map: NetworkMapView, ieee: string): string {
  const n = map.nodes.find((x) => x.ieee_address === ieee);
  return n?.name ?? (n?.type === 'Coordinator' || n?.network_address === 0 ? 'Coordinator' : ieee);
}

/** What the relationship of a neighbour says, from the chosen node's side. */
function relation(r: string): string {
  return r === 'parent' ? 'its parent' : r === 'child' ? 'its child' : r === 'sibling' ? 'a neighbour router' : r;
}

function NodeDetails({ map, ieee }: { map: NetworkMapView; ieee: string }) {
  const node = map.nodes.find((n) => n.ieee_address === ieee);
  // One row per neighbour: how the chosen node hears it, and how it hears the chosen node.
  const rows = new Map<string, { hears?: number; heard?: number; relationship?: string; routes: number }>();
  for (const l of map.links) {
    const mine = l.target.ieee_address === ieee;
    if (!mine && l.source.ieee_address !== ieee) continue;
    const other = mine ? l.source.ieee_address : l.target.ieee_address;
    const row = rows.get(other) ?? { routes: 0 };
    if (mine) {
      row.hears = l.lqi;
      row.relationship = l.relationship;
      row.routes += l.routes.length;
    } else {
      row.heard = l.lqi;
      // As the neighbour sees it: its child is our parent.
      row.relationship ??=
        l.relationship === 'child' ? 'parent' : l.relationship === 'parent' ? 'child' : l.relationship;
    }
    rows.set(other, row);
  }
  const lqi = (v: number | undefined) =>
    v === undefined ? <span class="muted">–</span> : <span class={`lqi ${qualityOf(v)}`}>{v}</span>;
  return (
    <section class="card node-details" aria-label="Chosen node">
      <h2>{nameOf(map, ieee)}</h2>
      <p class="muted">
        {node?.type ?? 'Device'} · {ieee} · network address 0x
        {(node?.network_address ?? 0).toString(16).padStart(4, '0')}
        {node?.last_seen !== undefined && <> · last seen {when(new Date(node.last_seen).toISOString())}</>}
        {node?.online === false && <strong class="bad"> · offline</strong>}
        {node?.failed.includes('lqi') && <strong class="bad"> · did not answer the scan</strong>}
      </p>
      {node?.serial_number && <a href={`#/devices/${encodeURIComponent(node.serial_number)}`}>Open its device page</a>}
      {rows.size === 0 ? (
        <p class="muted">No link of it was read.</p>
      ) : (
        <div class="table-wrap">
          <table class="values">
            <thead>
              <tr>
                <th>Neighbour</th>
                <th>It hears them</th>
                <th>They hear it</th>
                <th>Is</th>
              </tr>
            </thead>
            <tbody>
              {[...rows]
                .sort(([a], [b]) => nameOf(map, a).localeCompare(nameOf(map, b)))
                .map(([other, r]) => (
                  <tr key={other}>
                    <td>{nameOf(map, other)}</td>
                    <td>{lqi(r.hears)}</td>
                    <td>{lqi(r.heard)}</td>
                    <td>
                      {relation(r.relationship ?? 'none')}
                      {r.routes > 0 && <span class="muted small"> · {r.routes} routes through it</span>}
                    </td>
                  </tr>
                ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

function Legend() {
  return (
    <ul class="legend" aria-label="Legend">
      <li>
        <span class="swatch good" /> good link (quality {QUALITY.good} and above)
      </li>
      <li>
        <span class="swatch fair" /> fair ({QUALITY.fair}–{QUALITY.good - 1})
      </li>
      <li>
        <span class="swatch poor" /> poor (below {QUALITY.fair})
      </li>
      <li>
        <span class="shape coordinator" /> coordinator
      </li>
      <li>
        <span class="shape router" /> router
      </li>
      <li>
        <span class="shape end_device" /> end device
      </li>
      <li>
        <span class="shape stale" /> not seen recently, offline, or no answer to the scan
      </li>
    </ul>
  );
}

export function NetworkMapPage() {
  const list = networks.value;
  const [network, setNetwork] = useState<string | undefined>();
  const net = network ?? list[0]?.network;
  const [map, setMap] = useState<NetworkMapView | null | undefined>();
  const [error, setError] = useState('');
  const [routes, setRoutes] = useState(false);
  const [selected, setSelected] = useState<string | undefined>();
  const status = list.find((n) => n.network === net);
  const scan = net ? scans.value[net] : undefined;
  const scanning = status?.scanning !== undefined || scan?.state === 'scanning';

  const load = async () => {
    if (!net) return;
    try {
      const r = await api<{ map: NetworkMapView }>('GET', `/zigbee/map?network=${encodeURIComponent(net)}`);
      setMap(r.map);
      setError('');
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) setMap(null);
      else setError(wordsOf(err));
    }
  };
  // Read again when a scan of this network ends.
  useEffect(() => {
    void load();
  }, [net, scan?.state === 'done' ? scan : undefined]);
  const layout = useMemo(() => (map ? layoutMap(map, Date.now()) : undefined), [map]);

  const start = () =>
    act('Scanning the network: the map appears when every router has answered.', () =>
      api('POST', '/zigbee/map/scan', { network: net, routes }),
    );

  if (list.length === 0)
    return (
      <p class="empty">No Zigbee network runs here (the setting zigbee.mode is off, or its driver is starting).</p>
    );
  return (
    <>
      <div class="toolbar">
        {list.length > 1 && (
          <select aria-label="Network" value={net} onChange={(e) => setNetwork((e.target as HTMLSelectElement).value)}>
            {list.map((n) => (
              <option key={n.network} value={n.network}>
                {n.network}
              </option>
            ))}
          </select>
        )}
        <button
          type="button"
          class="primary"
          disabled={scanning || status?.reachable === false}
          onClick={() => void start()}
        >
          {scanning ? 'Scanning…' : 'Scan the network'}
        </button>
        <label class="check">
          <input type="checkbox" checked={routes} onChange={(e) => setRoutes((e.target as HTMLInputElement).checked)} />
          Also read the routes
        </label>
      </div>
      <p class="notice" role="note">
        A scan asks every router for its neighbours, one after another. On a large network it takes minutes and floods
        it with requests (devices may answer slowly meanwhile), so it runs only when you ask, one at a time.
      </p>
      {status?.reachable === false && <p class="error">{status.reason}</p>}
      {scan?.state === 'failed' && <p class="error">The last scan failed: {scan.reason}</p>}
      {scanning && <p class="muted">Scanning since {when(status?.scanning)}…</p>}
      {error && <p class="error">{error}</p>}
      {map === undefined ? (
        <p class="muted">Loading the map…</p>
      ) : map === null || !layout ? (
        <p class="empty">No map of {net} yet: scan the network.</p>
      ) : (
        <>
          <p class="muted">
            Scanned {when(map.scanned_at)} · {map.nodes.length} nodes · {layout.links.length} links
            {map.routes ? ' · with routes' : ''}. Drag to move, pinch or scroll to zoom, tap a device for its links.
          </p>
          <MapView layout={layout} selected={selected} onSelect={setSelected} />
          <Legend />
          {selected && <NodeDetails map={map} ieee={selected} />}
        </>
      )}
    </>
  );
}
