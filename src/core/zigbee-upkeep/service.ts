/**
 * The Zigbee upkeep service: firmware updates, groups, bindings and the network map, in every
 * Zigbee mode, through the optional `zigbee` ability of the drivers (contract.ts). It checks what
 * callers ask (messages `path: rule`; a device that has no update, a member that does not exist,
 * clusters that do not match), runs one firmware update at a time per network, refuses a second
 * network scan while one runs (a scan floods a large network), keeps groups in the device
 * registry as devices (groups.ts), and publishes each step on the bus (`zigbee#firmware`,
 * `zigbee#group`, `zigbee#bindings`, `zigbee#networkMap`). It knows no HTTP: phase 2's routes and
 * console call it.
 *
 * Wiring: register `groupDriver` with the device service before it starts, and call start()
 * once the drivers have started (stop() before they stop).
 */
import { failure } from '../../catalog/errors.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import type { DeviceRegistry } from '../devices/registry.ts';
import type { DeviceService } from '../devices/service.ts';
import type { BusEvent, EventBus } from '../event-bus.ts';
import { bindingsView, resolveBind } from './bind-requests.ts';
import { type Answer, type FoundGroup, quoted, UpkeepContext } from './context.ts';
import { FirmwareUpdates } from './firmware.ts';
import { FirmwareRequests } from './firmware-requests.ts';
import { changeMember, createGroup, deleteGroup, renameGroup } from './group-requests.ts';
import { GROUP_DRIVER, GroupDevices, GroupDriver } from './groups.ts';
import { type MapStore, NetworkMaps } from './maps.ts';
import type { BindingView, FirmwareView, GroupView, NetworkMapView, ScanStarted } from './views.ts';

export interface ZigbeeUpkeepDeps {
  registry: DeviceRegistry;
  devices: DeviceService;
  bus: EventBus;
  clock?: Clock;
  log?: Log;
  /** Where the last map of each network is kept across restarts (memory only without it). */
  maps?: MapStore;
}

/** A network as the service lists it. */
export interface NetworkStatus {
  network: string;
  driver: string;
  reachable: boolean;
  reason?: string;
  /** A map scan runs (since, ISO 8601). */
  scanning?: string;
  /** The device whose firmware is being installed. */
  updating?: string;
}

export class ZigbeeUpkeepService {
  /** The driver of the group devices: register it with the device service. */
  readonly groupDriver: GroupDriver;
  private readonly ctx: UpkeepContext;
  private readonly groupDevices: GroupDevices;
  private readonly firmware: FirmwareUpdates;
  private readonly maps: NetworkMaps;
  private readonly requests: FirmwareRequests;
  private readonly unwatch = new Map<string, () => void>();
  private unsubscribe?: () => void;
  /** Each group's view as last published, to tell what changed on the network's side. */
  private published = new Map<string, string>();

  constructor(private readonly deps: ZigbeeUpkeepDeps) {
    const clock = deps.clock ?? systemClock;
    this.groupDevices = new GroupDevices(deps.registry);
    this.ctx = new UpkeepContext(deps.registry, deps.devices, this.groupDevices);
    this.groupDriver = new GroupDriver((id) => this.ctx.ability(id));
    this.firmware = new FirmwareUpdates({
      registry: deps.registry,
      bus: deps.bus,
      clock,
      log: deps.log,
      ability: (id) => this.ctx.ability(id),
    });
    this.requests = new FirmwareRequests({ ctx: this.ctx, firmware: this.firmware, log: deps.log });
    this.maps = new NetworkMaps({ ctx: this.ctx, bus: deps.bus, clock, log: deps.log, store: deps.maps });
  }

  /** Follows the running Zigbee drivers: their groups listed as devices, their firmware reports. */
  start(): void {
    for (const s of this.ctx.sources()) {
      if (this.unwatch.has(s.driverId)) continue;
      const driverId = s.driverId;
      this.unwatch.set(
        driverId,
        s.ability.watch({
          firmware: (device, info) => this.firmware.reported(device, info),
          groupsChanged: () => this.groupsChanged(),
          groupState: (key, state) => this.groupDevices.state(driverId, key, state),
        }),
      );
    }
    this.unsubscribe ??= this.deps.bus.subscribe((e) => this.onEvent(e));
    this.groupsChanged();
  }

  stop(): void {
    for (const off of this.unwatch.values()) off();
    this.unwatch.clear();
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.firmware.stop();
  }

  /** The networks, whether they answer, and what runs on them. */
  networks(): NetworkStatus[] {
    return this.ctx.networks().map(({ network, driverId, ability }) => {
      const reach = ability.reachable(network);
      const since = this.maps.scanning(driverId, network);
      const updating = this.ctx.registry
        .listByDriver(driverId)
        .find((d) => this.firmware.place(d.serial_number)?.state === 'updating');
      return {
        network,
        driver: driverId,
        reachable: reach.ok,
        ...(reach.ok ? {} : { reason: reach.message }),
        ...(since !== undefined ? { scanning: new Date(since).toISOString() } : {}),
        ...(updating ? { updating: updating.serial_number } : {}),
      };
    });
  }

  // ---- firmware ----

  /** The firmware of every Zigbee device of the running drivers. */
  firmwareList(): FirmwareView[] {
    return this.ctx
      .sources()
      .flatMap((s) => this.ctx.registry.listByDriver(s.driverId).map((d) => this.firmware.view(d, s.ability)));
  }

  /** A device's firmware. */
  firmwareOf(serial: string): Answer<FirmwareView> {
    const z = this.ctx.device(serial, 'serial_number');
    return z.ok ? { ok: true, value: this.firmware.view(z.value.device, z.value.ability) } : z;
  }

  /** Asks a device what it runs and the index what there is (events `checking`, then `idle`/`available` or `failed`). */
  checkFirmware(body: unknown): Promise<Answer<FirmwareView>> {
    return this.requests.check(body);
  }

  /** Checks every device that takes updates and is online, one after the other; answers at once with them. */
  checkAllFirmware(): Answer<{ serial_numbers: string[] }> {
    return this.requests.checkAll();
  }

  /** Queues the update of a device (at once when its network runs none); the progress comes as events. */
  updateFirmware(body: unknown): Answer<FirmwareView> {
    return this.requests.update(body);
  }

  /** Stops a device's update: a queued one leaves the queue, a running one is stopped by its backend. */
  cancelFirmwareUpdate(body: unknown): Promise<Answer<FirmwareView>> {
    return this.requests.cancel(body);
  }

  // ---- groups ----

  /** Every group of every network. */
  groups(): GroupView[] {
    return this.ctx
      .sources()
      .flatMap(({ driverId, ability }) => ability.groups().map((g) => this.ctx.groupView(driverId, ability, g)));
  }

  /** One group, by `<network>/<id>` or its device's serial number. */
  group(ref: string): Answer<GroupView> {
    const found = this.ctx.group(ref);
    return found.ok ? { ok: true, value: this.view(found.value) } : found;
  }

  /** `{name, network?, id?, members?: [{serial_number, channel?}]}`. */
  async createGroup(body: unknown): Promise<Answer<GroupView>> {
    return this.groupDone(await createGroup(this.ctx, body), 'created');
  }

  /** `{name}`: the group's name on its network (and the name of its device). */
  async renameGroup(ref: string, body: unknown): Promise<Answer<GroupView>> {
    const r = await renameGroup(this.ctx, ref, body);
    if (r.ok) {
      this.groupsChanged();
      const d = this.groupDevices.deviceOf(r.value.driverId, r.value.group.key);
      if (d) this.ctx.registry.updateLocal(d.serial_number, { userName: r.value.group.name });
    }
    return this.groupDone(r, 'changed');
  }

  async deleteGroup(ref: string): Promise<Answer<GroupView>> {
    return this.groupDone(await deleteGroup(this.ctx, ref), 'removed');
  }

  /** `{serial_number, channel?}`. */
  async addGroupMember(ref: string, body: unknown): Promise<Answer<GroupView>> {
    return this.groupDone(await changeMember(this.ctx, ref, body, 'add'), 'changed');
  }

  async removeGroupMember(ref: string, body: unknown): Promise<Answer<GroupView>> {
    return this.groupDone(await changeMember(this.ctx, ref, body, 'remove'), 'changed');
  }

  private view(f: FoundGroup): GroupView {
    return this.ctx.groupView(f.driverId, f.ability, f.group);
  }

  private groupDone(r: Answer<FoundGroup>, action: 'created' | 'changed' | 'removed'): Answer<GroupView> {
    if (!r.ok) return r;
    // The device list first: the view then names the group's device.
    this.groupsChanged();
    const view = this.view(r.value);
    if (action === 'removed') this.published.delete(view.group);
    else this.published.set(view.group, JSON.stringify(view));
    this.deps.bus.publish('zigbee#group', { payload: { action, group: view } });
    this.deps.log?.info({ group: view.group }, `zigbee group ${quoted(view.name)}: ${action}`);
    return { ok: true, value: view };
  }

  /** The groups changed on a network (or one was asked for): the device list follows, changes are told. */
  private groupsChanged(): void {
    const sources = this.ctx.sources();
    this.groupDevices.sync(sources);
    const seen = new Set<string>();
    for (const { driverId, ability } of sources)
      for (const g of ability.groups()) {
        const view = this.ctx.groupView(driverId, ability, g);
        seen.add(view.group);
        const json = JSON.stringify(view);
        const before = this.published.get(view.group);
        if (before === json) continue;
        this.published.set(view.group, json);
        this.deps.bus.publish('zigbee#group', { payload: { action: before ? 'changed' : 'created', group: view } });
      }
    for (const [id, json] of this.published)
      if (!seen.has(id)) {
        this.published.delete(id);
        this.deps.bus.publish('zigbee#group', { payload: { action: 'removed', group: JSON.parse(json) as GroupView } });
      }
  }

  private onEvent(e: BusEvent): void {
    // A group's device deleted while the group is still there (a factory reset clears the device
    // list; the network keeps its groups): it is listed again, as the network's devices are.
    if (e.name === 'device#deleteDevice') {
      this.groupDevices.sync(this.ctx.sources());
      return;
    }
    if (e.name !== 'device#updateDeviceOnline') return;
    const serial = (e.data as { endpoint: { serial_number: string } }).endpoint.serial_number;
    const d = this.ctx.registry.get(serial);
    if (!d || d.driver === GROUP_DRIVER || d.protocol !== 'zigbee') return;
    this.groupDevices.refreshOnline(this.ctx.sources());
  }

  // ---- bindings ----

  /** A device's bindings (its binding table as its network last read it). */
  bindings(serial: string): Answer<BindingView[]> {
    const z = this.ctx.device(serial, 'serial_number');
    return z.ok ? { ok: true, value: bindingsView(this.ctx, z.value) } : z;
  }

  /** `{source, source_channel?, target, target_channel?, clusters?}`: answers with the source's bindings. */
  async bind(body: unknown): Promise<Answer<BindingView[]>> {
    return this.binding(body, 'bind');
  }

  async unbind(body: unknown): Promise<Answer<BindingView[]>> {
    return this.binding(body, 'unbind');
  }

  private async binding(body: unknown, action: 'bind' | 'unbind'): Promise<Answer<BindingView[]>> {
    const resolved = resolveBind(this.ctx, body, action);
    if (!resolved.ok) return resolved;
    const { request, source } = resolved.value;
    const r = action === 'bind' ? await source.ability.bind(request) : await source.ability.unbind(request);
    if (!r.ok) return { ok: false, ...failure(r.code, r.message) };
    const now = this.ctx.device(source.device.serial_number, 'source');
    const bindings = bindingsView(this.ctx, now.ok ? now.value : source);
    this.deps.bus.publish('zigbee#bindings', { payload: { serial_number: source.device.serial_number, bindings } });
    this.deps.log?.info(
      { serial_number: source.device.serial_number, clusters: r.value.clusters, failed: r.value.failed },
      `zigbee ${action} of ${source.device.name}: ${r.value.clusters.join(', ') || 'nothing'}`,
    );
    return { ok: true, value: bindings };
  }

  // ---- the network map ----

  /** The last map scanned of a network (the only one when none is named). */
  networkMap(network?: string): Answer<NetworkMapView> {
    return this.maps.last(network);
  }

  /**
   * `{network?, routes?}`: scans a network (every router's neighbours, and routes with `routes`)
   * and answers with its map; refused while a scan of the same network runs. Events `scanning`,
   * then `done` or `failed`.
   */
  scanNetwork(body: unknown = {}): Promise<Answer<NetworkMapView>> {
    return this.maps.scan(body);
  }

  /** As scanNetwork, but answers as soon as the scan has started (a large network takes minutes). */
  startScan(body: unknown = {}): Answer<ScanStarted> {
    return this.maps.start(body);
  }
}
