/**
 * Firmware updates (ota.ts), groups, bindings and the network map on the gateway's own
 * coordinator, through zigbee-herdsman: groups are herdsman's (kept in its database, their names
 * in the group's meta), a member is added by the Groups cluster's `add` sent to its endpoint, a
 * group is commanded with one group command per converter (its members' models' converters, as
 * Zigbee2MQTT does), a binding is a ZDO bind request per cluster to the source, and the map is
 * read router by router (scan.ts). The one network of this driver is `herdsman`.
 */
import type { Controller } from 'zigbee-herdsman';
import { ErrorCode, type ErrorCodeValue } from '../../catalog/errors.ts';
import type { DeviceRecord, Outcome } from '../../core/devices/contract.ts';
import type {
  BindRequest,
  BindResult,
  FirmwareProgress,
  GroupMember,
  NetworkMap,
  Result,
  UpkeepListener,
  ZigbeeBinding,
  ZigbeeEndpoint,
  ZigbeeGroup,
  ZigbeeUpkeep,
} from '../../core/zigbee-upkeep/contract.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import {
  type DeviceMapping,
  type Expose,
  groupMapping,
  groupState,
  planSet,
  reportedState,
} from '../../zigbee/index.ts';
import { type KeyValue, toGroupSet } from './converters.ts';
import { type Devices, DRIVER_ID } from './devices.ts';
import type { Node } from './nodes.ts';
import type { HerdsmanOta } from './ota.ts';
import { scanNetwork } from './scan.ts';
import { type Within, within } from './within.ts';

type ZhEndpoint = Node['device']['endpoints'][number];

/** The network of this driver, as groups and maps name it. */
export const NETWORK = DRIVER_ID;

type ZhGroup = NonNullable<ReturnType<Controller['getGroupByID']>>;

/**
 * What a device reports once a remote commands it directly (a binding): without it, the gateway
 * would not learn that the remote switched the light. Zigbee2MQTT sets up the same reports after
 * a bind (its defaults: at most every 5 s, at least hourly; on/off at once).
 */
const REPORTS: Readonly<Record<string, readonly { attribute: string; min: number; change: number }[]>> = {
  genOnOff: [{ attribute: 'onOff', min: 0, change: 0 }],
  genLevelCtrl: [{ attribute: 'currentLevel', min: 5, change: 1 }],
  lightingColorCtrl: [
    { attribute: 'colorTemperature', min: 5, change: 1 },
    { attribute: 'currentX', min: 5, change: 1 },
    { attribute: 'currentY', min: 5, change: 1 },
  ],
  closuresWindowCovering: [{ attribute: 'currentPositionLiftPercentage', min: 5, change: 1 }],
};

/** The properties of a member's state a group command changes (what the group's state is made of). */
const GROUP_PROPERTIES = ['state', 'brightness', 'color_temp', 'color', 'color_mode', 'position'];

export interface HerdsmanUpkeepDeps {
  controller(): Controller | undefined;
  /** Why the coordinator does not run. */
  reason(): string;
  devices: Devices;
  ota: HerdsmanOta;
  clock: Clock;
  log: Log;
  /** Pause between two routers of a scan, and before the one retry of a router that did not answer. */
  scanPaceMs: number;
  scanRetryMs: number;
  /** How long a device has to answer a group or binding request. */
  requestMs: number;
  /** After a firmware update, the pause before the device is interviewed again. */
  reinterviewDelayMs: number;
}

const fail = <T>(code: ErrorCodeValue, message: string): Result<T> => ({ ok: false, code, message });

/** A group's name, kept in its meta (herdsman's groups have no names of their own). */
function nameOf(g: ZhGroup): string {
  const n = g.meta.friendly_name;
  return typeof n === 'string' && n !== '' ? n : `Group ${g.groupID}`;
}

/** The names of a device's endpoints (`l1` -> 1), inverted: number -> name. */
function endpointNames(node: Node): Map<number, string> {
  let map: Record<string, number> = {};
  try {
    map = node.definition.endpoint?.(node.device as never) ?? {};
  } catch {
    map = {};
  }
  return new Map(Object.entries(map).map(([name, id]) => [id, name]));
}

export class HerdsmanUpkeep implements ZigbeeUpkeep {
  private readonly listeners = new Set<UpkeepListener>();
  /** The groups as last read, kept while the coordinator is down (they are in its database). */
  private cached: ZigbeeGroup[] = [];
  private readonly groupStates = new Map<string, string>();

  constructor(private readonly d: HerdsmanUpkeepDeps) {}

  watch(listener: UpkeepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** The coordinator started or stopped, or the groups changed: listeners are told. */
  changed(): void {
    this.cached = this.readGroups();
    for (const l of this.listeners) l.groupsChanged();
    for (const g of this.cached) this.tellGroupState(g);
  }

  /** A device's state changed: the groups it is in follow. */
  stateChanged(node: Node): void {
    for (const g of this.cached) if (g.members.some((m) => m.ieee === node.ieee)) this.tellGroupState(g);
  }

  // ---- networks and devices ----

  networks(): string[] {
    return [NETWORK];
  }

  networkOf(device: DeviceRecord): string | undefined {
    return device.driver === DRIVER_ID && this.d.devices.get(device.driver_ref) ? NETWORK : undefined;
  }

  reachable(): { ok: true } | { ok: false; message: string } {
    return this.d.controller()
      ? { ok: true }
      : { ok: false, message: `the Zigbee coordinator is not running: ${this.d.reason()}` };
  }

  private node(device: DeviceRecord): Node | undefined {
    return device.driver === DRIVER_ID ? this.d.devices.get(device.driver_ref) : undefined;
  }

  endpoints(device: DeviceRecord): ZigbeeEndpoint[] | undefined {
    const node = this.node(device);
    if (!node) return undefined;
    const names = endpointNames(node);
    const channels = new Map(Object.entries(node.mapping.channelLabels).map(([ch, name]) => [name, ch]));
    return node.device.endpoints.map((e) => {
      const name = names.get(e.ID);
      const channel = name !== undefined ? channels.get(name) : undefined;
      return {
        id: e.ID,
        ...(channel ? { channel } : {}),
        input: e.getInputClusters().map((c) => c.name),
        output: e.getOutputClusters().map((c) => c.name),
      };
    });
  }

  sleepy(device: DeviceRecord): boolean {
    return this.node(device)?.sleepy ?? false;
  }

  /** The device as the running coordinator has it, or why it cannot be reached. */
  private zh(device: DeviceRecord): Result<{ node: Node; zh: Node['device']; controller: Controller }> {
    const controller = this.d.controller();
    if (!controller) return fail(ErrorCode.DEVICE_OFFLINE, `the Zigbee coordinator is not running: ${this.d.reason()}`);
    const node = this.node(device);
    const zh = controller.getDeviceByIeeeAddr(device.driver_ref);
    if (!node || !zh)
      return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'the Zigbee network does not know this device (any more)');
    node.device = zh;
    return { ok: true, value: { node, zh, controller } };
  }

  // ---- firmware ----

  firmware(device: DeviceRecord) {
    const node = this.node(device);
    return node ? this.d.ota.info(node) : undefined;
  }

  async checkFirmware(device: DeviceRecord) {
    const z = this.zh(device);
    return z.ok ? this.d.ota.check(z.value.node, z.value.zh) : z;
  }

  async updateFirmware(device: DeviceRecord, progress: (p: FirmwareProgress) => void) {
    const z = this.zh(device);
    if (!z.ok) return z;
    const r = await this.d.ota.update(z.value.node, z.value.zh, progress);
    for (const l of this.listeners) l.firmware(device, this.d.ota.info(z.value.node));
    // New firmware may bring new endpoints, clusters, even another model: once the device has
    // rebooted into it, it is interviewed and configured again, as Zigbee2MQTT does.
    if (r.ok) {
      const ieee = z.value.node.ieee;
      this.d.clock.setTimer(this.d.reinterviewDelayMs, () => void this.d.devices.reinterview(ieee));
    }
    return r;
  }

  async cancelFirmware(device: DeviceRecord): Promise<Result<null>> {
    const z = this.zh(device);
    if (!z.ok) return z;
    return this.d.ota.abort(z.value.node, z.value.zh)
      ? { ok: true, value: null }
      : { ok: false, code: ErrorCode.DEVICE_UPDATE_FAILED, message: 'no update of this device runs' };
  }

  // ---- groups ----

  private members(g: ZhGroup): GroupMember[] {
    return g.members.map((e) => ({ ieee: e.deviceIeeeAddress, endpoint: e.ID }));
  }

  /** The member devices known, with the name of their endpoint in the group. */
  private memberNodes(members: readonly GroupMember[]): { node: Node; endpoint?: string }[] {
    return members.flatMap((m) => {
      const node = this.d.devices.get(m.ieee);
      return node ? [{ node, endpoint: endpointNames(node).get(m.endpoint) }] : [];
    });
  }

  private mappingOf(members: readonly GroupMember[]): { exposes: Expose[]; mapping: DeviceMapping } {
    return groupMapping(this.memberNodes(members).map(({ node, endpoint }) => ({ exposes: node.exposes, endpoint })));
  }

  private toGroup(g: ZhGroup): ZigbeeGroup {
    const members = this.members(g);
    const { mapping } = this.mappingOf(members);
    return {
      network: NETWORK,
      key: String(g.groupID),
      id: g.groupID,
      name: nameOf(g),
      members,
      capabilities: mapping.capabilities,
      display_category: mapping.display_category,
      ...(members.some((m) => !this.d.devices.get(m.ieee)) ? { pending: true } : {}),
    };
  }

  private readGroups(): ZigbeeGroup[] {
    const c = this.d.controller();
    return c ? [...c.getGroupsIterator()].map((g) => this.toGroup(g)) : this.cached;
  }

  groups(): ZigbeeGroup[] {
    return this.cached;
  }

  shared(_network: string, members: readonly GroupMember[]) {
    return this.mappingOf(members).mapping.capabilities;
  }

  private group(key: string): Result<{ controller: Controller; group: ZhGroup }> {
    const controller = this.d.controller();
    if (!controller)
      return fail(ErrorCode.GROUP_UPDATE_FAILED, `the Zigbee coordinator is not running: ${this.d.reason()}`);
    const group = controller.getGroupByID(Number(key));
    return group
      ? { ok: true, value: { controller, group } }
      : fail(ErrorCode.DEVICE_NOT_FOUND, 'the coordinator has no such group (any more)');
  }

  private done(group: ZhGroup): Result<ZigbeeGroup> {
    this.changed();
    return { ok: true, value: this.toGroup(group) };
  }

  async createGroup(_network: string, name: string, id?: number): Promise<Result<ZigbeeGroup>> {
    const controller = this.d.controller();
    if (!controller)
      return fail(ErrorCode.GROUP_UPDATE_FAILED, `the Zigbee coordinator is not running: ${this.d.reason()}`);
    const taken = new Set([...controller.getGroupsIterator()].map((g) => g.groupID));
    let gid = id ?? 1;
    while (id === undefined && taken.has(gid)) gid++;
    if (taken.has(gid)) return fail(ErrorCode.GROUP_UPDATE_FAILED, `the group ${gid} exists already`);
    const group = controller.createGroup(gid);
    group.meta.friendly_name = name;
    group.save();
    return this.done(group);
  }

  async renameGroup(key: string, name: string): Promise<Result<ZigbeeGroup>> {
    const g = this.group(key);
    if (!g.ok) return g;
    g.value.group.meta.friendly_name = name;
    g.value.group.save();
    return this.done(g.value.group);
  }

  async removeGroup(key: string): Promise<Result<null>> {
    const g = this.group(key);
    if (!g.ok) return g.code === ErrorCode.DEVICE_NOT_FOUND ? { ok: true, value: null } : g;
    // Each member is told to leave the group; one that does not answer keeps it (as in Zigbee2MQTT).
    const r = await this.within(g.value.group.removeFromNetwork());
    if (!r.ok) {
      this.changed();
      return fail(ErrorCode.GROUP_UPDATE_FAILED, `Zigbee: the group could not be removed: ${r.message}`);
    }
    this.changed();
    return { ok: true, value: null };
  }

  addGroupMember(key: string, device: DeviceRecord, endpoint: number) {
    return this.member(key, device, endpoint, 'add');
  }

  removeGroupMember(key: string, device: DeviceRecord, endpoint: number) {
    return this.member(key, device, endpoint, 'remove');
  }

  private async member(
    key: string,
    device: DeviceRecord,
    endpoint: number,
    action: 'add' | 'remove',
  ): Promise<Result<ZigbeeGroup>> {
    const g = this.group(key);
    if (!g.ok) return g;
    const z = this.zh(device);
    if (!z.ok) return z;
    const ep = z.value.zh.getEndpoint(endpoint);
    if (!ep) return fail(ErrorCode.DEVICE_UPDATE_FAILED, `the device has no endpoint ${endpoint}`);
    const r = await this.within(action === 'add' ? ep.addToGroup(g.value.group) : ep.removeFromGroup(g.value.group));
    if (!r.ok) return fail(ErrorCode.DEVICE_UPDATE_FAILED, `Zigbee: ${r.message}`);
    return this.done(g.value.group);
  }

  async groupCommand(key: string, state: Record<string, unknown>, deadline?: number): Promise<Outcome> {
    const g = this.group(key);
    if (!g.ok) return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: g.message };
    const members = this.members(g.value.group);
    const nodes = this.memberNodes(members);
    const plan = planSet(this.mappingOf(members).mapping, state);
    if (!plan.ok) return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: plan.message };
    const definitions = [...new Set(nodes.map((n) => n.node.definition))];
    const membersState = Object.fromEntries(nodes.map((n) => [n.node.ieee, n.node.last]));
    const ms = deadline ? Math.max(0, deadline - this.d.clock.now()) : this.d.requestMs;
    const r = await this.within(toGroupSet(g.value.group, definitions, plan.payload as KeyValue, {}, membersState), ms);
    if (!r.ok) return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: `Zigbee: ${r.message}` };
    // Nothing acknowledges a group command: the members take the state the command gives, as in
    // Zigbee2MQTT (their reports, when they make some, follow).
    for (const { node, endpoint } of nodes) {
      const z: KeyValue = {};
      for (const [k, v] of Object.entries(r.value)) {
        if (!GROUP_PROPERTIES.includes(k)) continue;
        const property =
          endpoint !== undefined && node.mapping.byProperty.has(`${k}_${endpoint}`) ? `${k}_${endpoint}` : k;
        if (node.mapping.byProperty.has(property)) z[property] = v;
      }
      if (Object.keys(z).length > 0) this.d.devices.publish(node, z);
    }
    return { ok: true };
  }

  private tellGroupState(g: ZigbeeGroup): void {
    const { exposes, mapping } = this.mappingOf(g.members);
    if (exposes.length === 0) return;
    const states = this.memberNodes(g.members).map(({ node, endpoint }) => ({ state: node.last, endpoint }));
    const api = reportedState(mapping, groupState(exposes, states), () => {});
    const json = JSON.stringify(api);
    if (Object.keys(api).length === 0 || this.groupStates.get(g.key) === json) return;
    this.groupStates.set(g.key, json);
    for (const l of this.listeners) l.groupState(g.key, api);
  }

  // ---- bindings ----

  bindings(device: DeviceRecord): ZigbeeBinding[] | undefined {
    const node = this.node(device);
    if (!node) return undefined;
    const coordinator = this.d.controller()?.getDevicesByType('Coordinator')[0]?.ieeeAddr;
    return node.device.endpoints.flatMap((e) =>
      e.binds.map((b): ZigbeeBinding => {
        const t = b.target as { groupID?: number; deviceIeeeAddress?: string; ID?: number };
        return {
          source_endpoint: e.ID,
          cluster: b.cluster.name,
          target:
            typeof t.groupID === 'number'
              ? { type: 'group', id: t.groupID }
              : t.deviceIeeeAddress === coordinator
                ? { type: 'coordinator' }
                : { type: 'endpoint', ieee: String(t.deviceIeeeAddress), endpoint: Number(t.ID) },
        };
      }),
    );
  }

  bind(request: BindRequest) {
    return this.binding(request, 'bind');
  }

  unbind(request: BindRequest) {
    return this.binding(request, 'unbind');
  }

  private async binding(req: BindRequest, action: 'bind' | 'unbind'): Promise<Result<BindResult>> {
    const z = this.zh(req.source);
    if (!z.ok) return z;
    const source = z.value.zh.getEndpoint(req.source_endpoint);
    if (!source) return fail(ErrorCode.DEVICE_UPDATE_FAILED, `the device has no endpoint ${req.source_endpoint}`);
    let target: Parameters<typeof source.bind>[1];
    /** The endpoints the source will command: the target's, or the group's members'. */
    let commanded: ZhEndpoint[];
    if ('group' in req.target) {
      const g = this.group(req.target.group);
      if (!g.ok) return g;
      target = g.value.group;
      commanded = g.value.group.members;
    } else {
      const t = this.zh(req.target.device);
      if (!t.ok) return t;
      const ep = t.value.zh.getEndpoint(req.target.endpoint);
      if (!ep) return fail(ErrorCode.DEVICE_UPDATE_FAILED, `the target has no endpoint ${req.target.endpoint}`);
      target = ep;
      commanded = [ep];
    }
    const clusters: string[] = [];
    const failed: string[] = [];
    let reason = '';
    for (const cluster of req.clusters) {
      const r = await this.within(action === 'bind' ? source.bind(cluster, target) : source.unbind(cluster, target));
      if (r.ok) clusters.push(cluster);
      else {
        failed.push(cluster);
        reason ||= r.message;
      }
    }
    if (clusters.length === 0)
      return fail(
        ErrorCode.DEVICE_UPDATE_FAILED,
        `Zigbee: the device did not ${action} ${failed.join(', ')}: ${reason}`,
      );
    if (action === 'bind') await this.setUpReports(commanded, clusters);
    return { ok: true, value: { clusters, failed } };
  }

  /** The commanded endpoints report what the source changes (to the coordinator), unless they do already. */
  private async setUpReports(endpoints: readonly ZhEndpoint[], clusters: readonly string[]): Promise<void> {
    const coordinator = this.d.controller()?.getDevicesByType('Coordinator')[0]?.getEndpoint(1);
    if (!coordinator) return;
    for (const ep of endpoints)
      for (const cluster of clusters) {
        const reports = REPORTS[cluster];
        if (!reports || !ep.supportsInputCluster(cluster)) continue;
        if (ep.configuredReportings.some((r) => r.cluster.name === cluster)) continue;
        const bound = await this.within(ep.bind(cluster, coordinator));
        for (const r of reports) {
          const done = await this.within(
            ep.configureReporting(cluster, [
              {
                attribute: r.attribute,
                minimumReportInterval: r.min,
                maximumReportInterval: 3600,
                reportableChange: r.change,
              },
            ] as never),
          );
          // A light without colour temperature refuses that one: the others still report.
          if (!bound.ok || !done.ok)
            this.d.log.debug(
              { ieee_address: ep.deviceIeeeAddress, cluster, attribute: r.attribute },
              'zigbee: report not set up',
            );
        }
      }
  }

  // ---- the network map ----

  async networkMap(_network: string, routes: boolean): Promise<Result<NetworkMap>> {
    const controller = this.d.controller();
    if (!controller) return fail(ErrorCode.SERVER_ERROR, `the Zigbee coordinator is not running: ${this.d.reason()}`);
    const map = await scanNetwork(controller, routes, {
      clock: this.d.clock,
      paceMs: this.d.scanPaceMs,
      retryMs: this.d.scanRetryMs,
      requestMs: this.d.requestMs,
    });
    return { ok: true, value: map };
  }

  /** A request bounded by `ms` (requestMs by default) of the gateway's clock. */
  private within<T>(p: Promise<T>, ms = this.d.requestMs): Promise<Within<T>> {
    return within(this.d.clock, p, ms);
  }
}
