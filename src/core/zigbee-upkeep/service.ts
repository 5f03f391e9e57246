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
import { ErrorCode, failure } from '../../catalog/errors.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import type { DeviceRegistry } from '../devices/registry.ts';
import type { DeviceService } from '../devices/service.ts';
import type { BusEvent, EventBus } from '../event-bus.ts';
import { bindingsView, resolveBind } from './bind-requests.ts';
import { checkSerial, invalid } from './checks.ts';
import { type Answer, type FoundGroup, quoted, UpkeepContext, type ZigbeeDevice } from './context.ts';
import { FirmwareUpdates } from './firmware.ts';
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
  async checkFirmware(body: unknown): Promise<Answer<FirmwareView>> {
    const z = this.updatable(body);
    if (!z.ok) return z;
    const { device, ability } = z.value;
    const serial = device.serial_number;
    const { checking } = this.firmware;
    if (checking.has(serial)) return invalid(`serial_number: a check of ${quoted(device.name)} is running`);
    checking.add(serial);
    let r: Awaited<ReturnType<typeof ability.checkFirmware>>;
    try {
      this.firmware.publish({ serial_number: serial, state: 'checking' });
      r = await ability.checkFirmware(device);
    } finally {
      // Before the events that end it: a console that reads the firmware on them sees it checked.
      checking.delete(serial);
    }
    const now = this.ctx.registry.get(serial) ?? device;
    if (!r.ok) {
      this.firmware.publish({ serial_number: serial, state: 'failed', reason: r.message });
      return { ok: false, ...failure(r.code, r.message) };
    }
    const info = {
      supported: true,
      state: r.value.available ? ('available' as const) : ('idle' as const),
      ...r.value,
    };
    this.firmware.remember(now, info, true);
    this.firmware.publish({
      serial_number: serial,
      state: info.state,
      ...(r.value.installed_version !== undefined ? { installed_version: r.value.installed_version } : {}),
      ...(r.value.latest_version !== undefined ? { latest_version: r.value.latest_version } : {}),
    });
    return { ok: true, value: this.firmware.view(this.ctx.registry.get(serial) ?? now, ability) };
  }

  /**
   * Checks every device that takes updates and is online, one after the other (mains-powered
   * first: a sleeping one answers only when it wakes, if at all); answers at once with the devices
   * it will check, the results come as events.
   */
  checkAllFirmware(): Answer<{ serial_numbers: string[] }> {
    const devices = this.ctx.sources().flatMap((s) =>
      this.ctx.registry
        .listByDriver(s.driverId)
        .filter((d) => d.online && s.ability.firmware(d)?.supported === true && !this.firmware.place(d.serial_number))
        .sort((a, b) => Number(s.ability.sleepy(a)) - Number(s.ability.sleepy(b))),
    );
    const serials = devices.map((d) => d.serial_number);
    void (async () => {
      for (const serial of serials) await this.checkFirmware({ serial_number: serial });
    })().catch((err) => this.deps.log?.error({ err }, 'zigbee: checking every device for firmware failed'));
    return { ok: true, value: { serial_numbers: serials } };
  }

  /**
   * Queues the update of a device (it starts at once when its network has none running); answers
   * with where it stands, the progress comes as events. Refused for a device that takes no
   * updates, is offline, is queued already, or whose last check found nothing newer.
   */
  updateFirmware(body: unknown): Answer<FirmwareView> {
    const z = this.updatable(body);
    if (!z.ok) return z;
    const { device, ability, network } = z.value;
    const name = quoted(device.name);
    const place = this.firmware.place(device.serial_number);
    if (place?.state === 'updating') return invalid(`serial_number: ${name} is being updated`);
    if (place) return invalid(`serial_number: an update of ${name} is queued already (place ${place.position})`);
    const view = this.firmware.view(device, ability);
    if (view.state === 'idle' && view.checked_at)
      return invalid(
        `serial_number: there is no newer firmware for ${name}: the check of ${view.checked_at} found ${view.installed_version ?? 'its version'} installed and nothing newer (check again after adding images)`,
      );
    this.firmware.enqueue(device, network);
    return { ok: true, value: this.firmware.view(device, ability) };
  }

  /**
   * Stops a device's update: one queued leaves the queue; one running is stopped by its backend
   * (the device keeps the firmware it runs, the image stays available), answered once the backend
   * has taken the stop (the device hears it at its next block request: the event `cancelled`
   * follows). Refused when none is queued or running, or when the backend cannot stop one that
   * has started.
   */
  async cancelFirmwareUpdate(body: unknown): Promise<Answer<FirmwareView>> {
    const errors = checkSerial(body);
    if (errors.length > 0) return invalid(...errors);
    const z = this.ctx.device((body as { serial_number: string }).serial_number, 'serial_number');
    if (!z.ok) return z;
    const { device, ability } = z.value;
    const serial = device.serial_number;
    const name = quoted(device.name);
    const place = this.firmware.place(serial);
    if (!place) return invalid(`serial_number: no update of ${name} is queued or running`);
    if (place.state === 'updating') {
      if (!ability.cancelFirmware)
        return invalid(`serial_number: the update of ${name} has started, and its network cannot stop one that runs`);
      this.firmware.cancel(serial);
      const r = await ability.cancelFirmware(device);
      if (!r.ok) {
        this.firmware.uncancel(serial);
        return { ok: false, ...failure(r.code, r.message) };
      }
    } else this.firmware.cancel(serial);
    return { ok: true, value: this.firmware.view(this.ctx.registry.get(serial) ?? device, ability) };
  }

  /** A device named in `body` that can be checked or updated: it takes updates and is online. */
  private updatable(body: unknown): Answer<ZigbeeDevice> {
    const errors = checkSerial(body);
    if (errors.length > 0) return invalid(...errors);
    const z = this.ctx.device((body as { serial_number: string }).serial_number, 'serial_number');
    if (!z.ok) return z;
    const { device, ability } = z.value;
    if (ability.firmware(device)?.supported !== true)
      return invalid(`serial_number: ${quoted(device.name)} (${device.model}) does not take firmware updates`);
    if (!device.online) return { ok: false, ...failure(ErrorCode.DEVICE_OFFLINE) };
    return z;
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
