/**
 * Network map scans, one at a time per network: a scan asks every router in turn for its
 * neighbours (and routes), which on a large network takes minutes and floods it with requests,
 * so it runs only when asked for and a second one of the same network is refused while one runs.
 * The last map of each network is kept (in the store, when the caller gives one, so that it
 * survives a restart) as the network answered it; the devices it names are looked up when it is
 * read, so a name, a removal or a device going offline since the scan shows at once.
 */
import { ErrorCode, failure } from '../../catalog/errors.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import type { EventBus } from '../event-bus.ts';
import { checkScan, invalid } from './checks.ts';
import type { Answer, UpkeepContext } from './context.ts';
import type { NetworkMap } from './contract.ts';
import type { NetworkMapView, ScanStarted } from './views.ts';

/** What is kept of a network's last scan. */
export interface StoredMap {
  network: string;
  /** When the scan finished (ISO 8601). */
  scanned_at: string;
  routes: boolean;
  map: NetworkMap;
}

/** Where the last map of each network is kept (`key` names the driver and the network). */
export interface MapStore {
  load(key: string): StoredMap | undefined;
  save(key: string, map: StoredMap): void;
}

export interface NetworkMapsDeps {
  ctx: UpkeepContext;
  bus: EventBus;
  clock: Clock;
  log?: Log;
  store?: MapStore;
}

/** A scan checked and ready to run. */
interface Begun {
  network: string;
  since: number;
  routes: boolean;
  run(): Promise<Answer<NetworkMapView>>;
}

const keyOf = (driverId: string, network: string) => `${driverId}/${network}`;

export class NetworkMaps {
  private readonly scans = new Map<string, number>();
  private readonly maps = new Map<string, StoredMap>();

  constructor(private readonly deps: NetworkMapsDeps) {}

  /** When a scan of the network started, if one runs. */
  scanning(driverId: string, network: string): number | undefined {
    return this.scans.get(keyOf(driverId, network));
  }

  /** The last map of a network (the only one when none is named), its devices as they are now. */
  last(network?: string): Answer<NetworkMapView> {
    const net = this.deps.ctx.network(network);
    if (!net.ok) return net;
    const key = keyOf(net.value.driverId, net.value.network);
    const kept = this.maps.get(key) ?? this.deps.store?.load(key);
    if (!kept)
      return { ok: false, ...failure(ErrorCode.NOT_FOUND, `no map of ${net.value.network} yet: scan it first`) };
    this.maps.set(key, kept);
    return { ok: true, value: this.view(net.value.driverId, kept) };
  }

  /** `{network?, routes?}`: scans a network and answers with its map once the scan is done. */
  async scan(body: unknown = {}): Promise<Answer<NetworkMapView>> {
    const b = this.begin(body);
    return b.ok ? b.value.run() : b;
  }

  /** `{network?, routes?}`: starts a scan and answers at once; its map comes as the event `done`. */
  start(body: unknown = {}): Answer<ScanStarted> {
    const b = this.begin(body);
    if (!b.ok) return b;
    const { network, since, routes } = b.value;
    void b.value.run().catch((err) => this.deps.log?.error({ err, network }, 'zigbee: the network scan failed'));
    return { ok: true, value: { network, state: 'scanning', since: new Date(since).toISOString(), routes } };
  }

  /** Checks what was asked and marks the network as being scanned; `run` does the scan. */
  private begin(body: unknown): Answer<Begun> {
    const errors = checkScan(body);
    if (errors.length > 0) return invalid(...errors);
    const b = body as { network?: string; routes?: boolean };
    const net = this.deps.ctx.network(b.network);
    if (!net.ok) return net;
    const { network, driverId, ability } = net.value;
    const key = keyOf(driverId, network);
    const running = this.scans.get(key);
    if (running !== undefined)
      return invalid(
        `network: a scan of ${network} has run since ${new Date(running).toISOString()} (a scan floods a large network with requests): wait for it to finish`,
      );
    const reach = ability.reachable(network);
    if (!reach.ok) return { ok: false, ...failure(ErrorCode.SERVER_ERROR, reach.message) };
    const routes = b.routes === true;
    const since = this.deps.clock.now();
    this.scans.set(key, since);
    const { bus } = this.deps;
    bus.publish('zigbee#networkMap', { payload: { network, state: 'scanning' } });
    const run = async (): Promise<Answer<NetworkMapView>> => {
      try {
        const r = await ability.networkMap(network, routes);
        if (!r.ok) {
          bus.publish('zigbee#networkMap', { payload: { network, state: 'failed', reason: r.message } });
          return { ok: false, ...failure(r.code, r.message) };
        }
        const kept: StoredMap = {
          network,
          scanned_at: new Date(this.deps.clock.now()).toISOString(),
          routes,
          map: r.value,
        };
        this.maps.set(key, kept);
        this.deps.store?.save(key, kept);
        bus.publish('zigbee#networkMap', {
          payload: { network, state: 'done', nodes: r.value.nodes.length, links: r.value.links.length },
        });
        return { ok: true, value: this.view(driverId, kept) };
      } catch (err) {
        bus.publish('zigbee#networkMap', { payload: { network, state: 'failed', reason: (err as Error).message } });
        throw err;
      } finally {
        this.scans.delete(key);
      }
    };
    return { ok: true, value: { network, since, routes, run } };
  }

  /** A kept map with the devices its nodes are in the API, as they are now. */
  private view(driverId: string, kept: StoredMap): NetworkMapView {
    const devices = this.deps.ctx.byIeee(driverId);
    return {
      network: kept.network,
      scanned_at: kept.scanned_at,
      routes: kept.routes,
      nodes: kept.map.nodes.map((n) => {
        const d = devices.get(n.ieee_address);
        return d ? { ...n, serial_number: d.serial_number, name: d.name, online: d.online } : n;
      }),
      links: kept.map.links,
    };
  }
}
