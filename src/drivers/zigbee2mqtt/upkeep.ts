/**
 * Firmware updates, groups, bindings and the network map through Zigbee2MQTT's own bridge
 * requests (`device/ota_update/check|update`, `group/add|rename|remove`, `group/members/add|remove`,
 * `device/bind|unbind`, `networkmap` of type `raw`), as Zigbee2MQTT 2.x answers them
 * (test/z2m/OBSERVED.md): the retained `bridge/groups` is the list of groups, the endpoints of
 * `bridge/devices` hold each device's clusters and bindings, and a device's `update` state its
 * firmware (`installed_version`, `latest_version`, `progress`, `remaining`). A group is commanded
 * with one publish to its own set topic; its state follows its members' (src/zigbee/groups.ts).
 */
import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { ErrorCode, type ErrorCodeValue } from '../../catalog/errors.ts';
import type { DeviceRecord, DriverHost, Outcome } from '../../core/devices/contract.ts';
import type {
  BindRequest,
  BindResult,
  FirmwareInfo,
  FirmwareProgress,
  FirmwareState,
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
import { isObject } from '../../lib/object.ts';
import {
  type DeviceMapping,
  type Expose,
  fromZigbee2mqttRaw,
  groupMapping,
  groupState,
  planSet,
  reportedState,
  resolveOtaIndex,
} from '../../zigbee/index.ts';
import { type Bridge, DRIVER_ID, type Entry, splitRef } from './bridge.ts';
import { literalTopic } from './link.ts';
import type { Z2mGroup, Z2mResponse } from './types.ts';

/** How long Zigbee2MQTT has to answer: a check waits on the device (60 s when it does not answer). */
const CHECK_MS = 75_000;
/** An update takes minutes on a real network (a block every 250 ms); the answer comes at its end. */
const UPDATE_MS = 3 * 3_600_000;
const GROUP_MS = 15_000;
const BIND_MS = 30_000;
/** A scan asks every router in turn (a second apart, more when one does not answer). */
const MAP_MS = 30 * 60_000;
/** How long the list that shows a change (bridge/groups, bridge/devices) may come after the answer. */
const SETTLE_MS = 5000;

export interface Zigbee2mqttUpkeepDeps {
  bridges: ReadonlyMap<string, Bridge>;
  host(): DriverHost | undefined;
  connected(): boolean;
  request(base: string, what: string, body: Record<string, unknown>, waitMs: number): Promise<Z2mResponse>;
  publish(topic: string, payload: string): Promise<Error | undefined>;
  clock: Clock;
  log: Log;
  /** `zigbee.ota_index`: where firmware comes from ('' leaves it to Zigbee2MQTT). */
  otaIndex?: string;
  /** Where a resolved index is written (the gateway's data folder). */
  dataDir?: string;
}

interface FoundGroup {
  bridge: Bridge;
  group: Z2mGroup;
}

const fail = <T>(code: ErrorCodeValue, message: string): Result<T> => ({ ok: false, code, message });
const said = (r: Z2mResponse) => `Zigbee2MQTT: ${r.error ?? 'no reason given'}`;
const num = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined);

/** A device's `update` state (Zigbee2MQTT's form) as firmware information. */
function updateInfo(entry: Entry): FirmwareInfo {
  const u = entry.last.update;
  const info: FirmwareInfo = { supported: entry.supportsOta };
  if (!isObject(u)) return info;
  const state =
    u.state === 'updating' || u.state === 'available' || u.state === 'idle' ? (u.state as FirmwareState) : undefined;
  const installed = num(u.installed_version);
  const latest = num(u.latest_version);
  return {
    ...info,
    ...(state ? { state } : {}),
    ...(installed !== undefined ? { installed_version: installed } : {}),
    ...(latest !== undefined ? { latest_version: latest } : {}),
    ...(num(u.progress) !== undefined ? { progress: num(u.progress) } : {}),
    ...(num(u.remaining) !== undefined ? { remaining: num(u.remaining) } : {}),
  };
}

export class Zigbee2mqttUpkeep implements ZigbeeUpkeep {
  private readonly listeners = new Set<UpkeepListener>();
  private readonly waiters = new Set<{ test: () => boolean; done: () => void }>();
  /** Progress of the updates running, by device ref. */
  private readonly progress = new Map<string, (p: FirmwareProgress) => void>();
  private readonly exposesCache = new WeakMap<Entry, Expose[]>();
  private readonly entryIds = new WeakMap<Entry, number>();
  private lastId = 0;
  private readonly mappings = new Map<string, { exposes: Expose[]; mapping: DeviceMapping }>();
  /** Each group's last state told (JSON), by key. */
  private readonly groupStates = new Map<string, string>();

  constructor(private readonly d: Zigbee2mqttUpkeepDeps) {}

  // ---- told by the bridges ----

  /** A device's state message: its firmware, and the groups it is in. */
  deviceState(bridge: Bridge, entry: Entry, msg: Record<string, unknown>): void {
    if (isObject(msg.update)) {
      const info = updateInfo(entry);
      const record = this.record(bridge, entry.ieee);
      if (record) for (const l of this.listeners) l.firmware(record, info);
      if (info.state === 'updating' && info.progress !== undefined)
        this.progress.get(entry.ref)?.({
          percent: info.progress,
          ...(info.remaining !== undefined ? { remaining: info.remaining } : {}),
        });
    }
    for (const g of bridge.groups)
      if (g.members.some((m) => m.ieee_address === entry.ieee)) this.tellGroupState(bridge, g);
  }

  /** The instance's groups, devices or online state changed. */
  changed(bridge: Bridge): void {
    for (const w of [...this.waiters]) if (w.test()) w.done();
    for (const l of this.listeners) l.groupsChanged();
    for (const g of bridge.groups) this.tellGroupState(bridge, g);
  }

  watch(listener: UpkeepListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  // ---- networks and devices ----

  networks(): string[] {
    return [...this.d.bridges.keys()];
  }

  networkOf(device: DeviceRecord): string | undefined {
    if (device.driver !== DRIVER_ID) return undefined;
    const { base } = splitRef(device.driver_ref);
    return this.d.bridges.has(base) ? base : undefined;
  }

  reachable(network: string): { ok: true } | { ok: false; message: string } {
    const b = this.d.bridges.get(network);
    if (!b) return { ok: false, message: `no Zigbee2MQTT on ${network}` };
    if (!this.d.connected()) return { ok: false, message: 'the MQTT broker of Zigbee2MQTT is unreachable' };
    if (b.online !== true) return { ok: false, message: `Zigbee2MQTT (${network}) is offline` };
    return { ok: true };
  }

  private entry(device: DeviceRecord): { bridge: Bridge; entry: Entry } | undefined {
    if (device.driver !== DRIVER_ID) return undefined;
    const { base, ieee } = splitRef(device.driver_ref);
    const bridge = this.d.bridges.get(base);
    const entry = bridge?.entryOf(ieee);
    return bridge && entry ? { bridge, entry } : undefined;
  }

  private record(bridge: Bridge, ieee: string): DeviceRecord | undefined {
    return this.d.host()?.findByRef(DRIVER_ID, `${bridge.base}/${ieee}`);
  }

  endpoints(device: DeviceRecord): ZigbeeEndpoint[] | undefined {
    const e = this.entry(device)?.entry;
    if (!e) return undefined;
    const channels = new Map(Object.entries(e.mapping.channelLabels).map(([ch, name]) => [name, ch]));
    const eps = Object.entries(e.endpoints).map(([id, ep]) => {
      const channel = ep.name !== undefined ? channels.get(ep.name) : undefined;
      return { id: Number(id), ...(channel ? { channel } : {}), input: ep.clusters.input, output: ep.clusters.output };
    });
    return eps.length > 0 ? eps : undefined;
  }

  sleepy(device: DeviceRecord): boolean {
    return this.entry(device)?.entry.sleepy ?? false;
  }

  // ---- firmware ----

  firmware(device: DeviceRecord): FirmwareInfo | undefined {
    const e = this.entry(device)?.entry;
    return e ? updateInfo(e) : undefined;
  }

  /** The `url` Zigbee2MQTT is given: the user's index (a file resolved here first), or none. */
  private async indexUrl(): Promise<Result<{ url?: string }>> {
    const location = this.d.otaIndex ?? '';
    if (location === '') return { ok: true, value: {} };
    if (/^https?:\/\//i.test(location)) return { ok: true, value: { url: location } };
    // Absolute: Zigbee2MQTT reads a relative path from its own data folder.
    const dir = resolve(this.d.dataDir ?? '.');
    mkdirSync(dir, { recursive: true });
    const r = await resolveOtaIndex(location, resolve(dir, 'zigbee-ota-index.json'), this.d.clock);
    return r.ok ? { ok: true, value: { url: r.file } } : fail(ErrorCode.SERVER_ERROR, `zigbee.ota_index: ${r.message}`);
  }

  async checkFirmware(
    device: DeviceRecord,
  ): Promise<Result<{ available: boolean; installed_version?: number; latest_version?: number }>> {
    const found = this.entry(device);
    if (!found) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'Zigbee2MQTT does not list this device (yet)');
    const index = await this.indexUrl();
    if (!index.ok) return index;
    const r = await this.d.request(
      found.bridge.base,
      'device/ota_update/check',
      { id: found.entry.ieee, ...index.value },
      CHECK_MS,
    );
    if (r.status !== 'ok') return fail(ErrorCode.DEVICE_UPDATE_FAILED, said(r));
    const info = updateInfo(found.entry);
    return {
      ok: true,
      value: {
        available: r.data?.update_available === true,
        ...(info.installed_version !== undefined ? { installed_version: info.installed_version } : {}),
        ...(info.latest_version !== undefined ? { latest_version: info.latest_version } : {}),
      },
    };
  }

  async updateFirmware(device: DeviceRecord, progress: (p: FirmwareProgress) => void) {
    const found = this.entry(device);
    if (!found) return fail<never>(ErrorCode.DEVICE_UPDATE_FAILED, 'Zigbee2MQTT does not list this device (yet)');
    const index = await this.indexUrl();
    if (!index.ok) return index;
    this.progress.set(found.entry.ref, progress);
    try {
      const r = await this.d.request(
        found.bridge.base,
        'device/ota_update/update',
        { id: found.entry.ieee, ...index.value },
        UPDATE_MS,
      );
      if (r.status !== 'ok') return fail<never>(ErrorCode.DEVICE_UPDATE_FAILED, said(r));
      const from = isObject(r.data?.from) ? r.data.from : {};
      const to = isObject(r.data?.to) ? r.data.to : {};
      return {
        ok: true as const,
        value: {
          ...(num(from.file_version) !== undefined ? { from_version: num(from.file_version) } : {}),
          ...(num(to.file_version) !== undefined ? { to_version: num(to.file_version) } : {}),
          ...(typeof to.software_build_id === 'string' ? { firmware_version: to.software_build_id } : {}),
        },
      };
    } finally {
      this.progress.delete(found.entry.ref);
    }
  }

  /**
   * Zigbee2MQTT 2.x stops an update with `device/ota_update/update/abort` (answered at once; the
   * update itself then fails at the device's next block request). Only an update this driver
   * runs is stopped (with none, Zigbee2MQTT refuses: `No OTA in progress to abort for device ...`).
   */
  async cancelFirmware(device: DeviceRecord): Promise<Result<null>> {
    const found = this.entry(device);
    if (!found || !this.progress.has(found.entry.ref))
      return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'no update of this device runs through Zigbee2MQTT');
    const r = await this.d.request(
      found.bridge.base,
      'device/ota_update/update/abort',
      { id: found.entry.ieee },
      GROUP_MS,
    );
    return r.status === 'ok' ? { ok: true, value: null } : fail(ErrorCode.DEVICE_UPDATE_FAILED, said(r));
  }

  // ---- groups ----

  private exposesOf(e: Entry): Expose[] {
    let x = this.exposesCache.get(e);
    if (!x) {
      x = JSON.parse(e.exposes) as Expose[];
      this.exposesCache.set(e, x);
    }
    return x;
  }

  private mappingOf(bridge: Bridge, members: readonly GroupMember[]): { exposes: Expose[]; mapping: DeviceMapping } {
    const found = members.flatMap((m) => {
      const e = bridge.entryOf(m.ieee);
      return e ? [{ e, endpoint: e.endpoints[String(m.endpoint)]?.name }] : [];
    });
    // An entry is replaced when its exposes change: its identity and the endpoint name the mapping.
    const cacheKey = found.map(({ e, endpoint }) => `${this.idOf(e)}:${endpoint ?? ''}`).join(',');
    let m = this.mappings.get(cacheKey);
    if (!m) {
      m = groupMapping(found.map(({ e, endpoint }) => ({ exposes: this.exposesOf(e), endpoint })));
      if (this.mappings.size > 500) this.mappings.clear();
      this.mappings.set(cacheKey, m);
    }
    return m;
  }

  private idOf(e: Entry): number {
    let id = this.entryIds.get(e);
    if (id === undefined) {
      id = ++this.lastId;
      this.entryIds.set(e, id);
    }
    return id;
  }

  private toGroup(bridge: Bridge, g: Z2mGroup): ZigbeeGroup {
    const members = g.members.map((m) => ({ ieee: m.ieee_address, endpoint: m.endpoint }));
    const { mapping } = this.mappingOf(bridge, members);
    return {
      network: bridge.base,
      key: `${bridge.base}/${g.id}`,
      id: g.id,
      name: g.friendly_name,
      members,
      capabilities: mapping.capabilities,
      display_category: mapping.display_category,
      ...(members.some((m) => !bridge.entryOf(m.ieee)) ? { pending: true } : {}),
    };
  }

  groups(): ZigbeeGroup[] {
    return [...this.d.bridges.values()].flatMap((b) => b.groups.map((g) => this.toGroup(b, g)));
  }

  shared(network: string, members: readonly GroupMember[]) {
    const b = this.d.bridges.get(network);
    return b ? this.mappingOf(b, members).mapping.capabilities : [];
  }

  private findGroup(key: string): FoundGroup | undefined {
    const i = key.lastIndexOf('/');
    const bridge = this.d.bridges.get(key.slice(0, i));
    const group = bridge?.groups.find((g) => String(g.id) === key.slice(i + 1));
    return bridge && group ? { bridge, group } : undefined;
  }

  private tellGroupState(bridge: Bridge, g: Z2mGroup): void {
    const members = g.members.map((m) => ({ ieee: m.ieee_address, endpoint: m.endpoint }));
    const { exposes, mapping } = this.mappingOf(bridge, members);
    if (exposes.length === 0) return;
    const states = g.members.flatMap((m) => {
      const e = bridge.entryOf(m.ieee_address);
      return e ? [{ state: e.last, endpoint: e.endpoints[String(m.endpoint)]?.name }] : [];
    });
    const z = groupState(exposes, states);
    const api = reportedState(mapping, z, () => {});
    const key = `${bridge.base}/${g.id}`;
    const json = JSON.stringify(api);
    if (Object.keys(api).length === 0 || this.groupStates.get(key) === json) return;
    this.groupStates.set(key, json);
    for (const l of this.listeners) l.groupState(key, api);
  }

  /** Waits (at most SETTLE_MS) for the lists to show a change Zigbee2MQTT has answered for. */
  private settle(test: () => boolean): Promise<void> {
    if (test()) return Promise.resolve();
    return new Promise((resolve) => {
      const w = {
        test,
        done: () => {
          cancel();
          this.waiters.delete(w);
          resolve();
        },
      };
      const cancel = this.d.clock.setTimer(SETTLE_MS, w.done);
      this.waiters.add(w);
    });
  }

  private groupResult(bridge: Bridge, test: (g: Z2mGroup) => boolean, id: number): Result<ZigbeeGroup> {
    const g = bridge.groups.find((x) => x.id === id);
    if (!g || !test(g))
      return fail(
        ErrorCode.GROUP_UPDATE_FAILED,
        'Zigbee2MQTT answered, but its list of groups does not show the change',
      );
    return { ok: true, value: this.toGroup(bridge, g) };
  }

  async createGroup(network: string, name: string, id?: number): Promise<Result<ZigbeeGroup>> {
    const bridge = this.d.bridges.get(network);
    if (!bridge) return fail(ErrorCode.GROUP_UPDATE_FAILED, `no Zigbee2MQTT on ${network}`);
    const r = await this.d.request(
      network,
      'group/add',
      { friendly_name: name, ...(id !== undefined ? { id } : {}) },
      GROUP_MS,
    );
    if (r.status !== 'ok') return fail(ErrorCode.GROUP_UPDATE_FAILED, said(r));
    const made = num(r.data?.id);
    if (made === undefined)
      return fail(ErrorCode.GROUP_UPDATE_FAILED, 'Zigbee2MQTT made the group but did not say its id');
    await this.settle(() => bridge.groups.some((g) => g.id === made));
    return this.groupResult(bridge, () => true, made);
  }

  async renameGroup(key: string, name: string): Promise<Result<ZigbeeGroup>> {
    const f = this.findGroup(key);
    if (!f) return fail(ErrorCode.DEVICE_NOT_FOUND, 'Zigbee2MQTT does not list this group (any more)');
    const r = await this.d.request(f.bridge.base, 'group/rename', { from: f.group.friendly_name, to: name }, GROUP_MS);
    if (r.status !== 'ok') return fail(ErrorCode.GROUP_UPDATE_FAILED, said(r));
    const test = (g: Z2mGroup) => g.friendly_name === name;
    await this.settle(() => f.bridge.groups.some((g) => g.id === f.group.id && test(g)));
    return this.groupResult(f.bridge, test, f.group.id);
  }

  async removeGroup(key: string): Promise<Result<null>> {
    const f = this.findGroup(key);
    if (!f) return { ok: true, value: null };
    const r = await this.d.request(f.bridge.base, 'group/remove', { id: f.group.friendly_name }, GROUP_MS);
    if (r.status !== 'ok' && !/does not exist/i.test(r.error ?? ''))
      return fail(ErrorCode.GROUP_UPDATE_FAILED, said(r));
    await this.settle(() => !f.bridge.groups.some((g) => g.id === f.group.id));
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
    const f = this.findGroup(key);
    if (!f) return fail(ErrorCode.DEVICE_NOT_FOUND, 'Zigbee2MQTT does not list this group (any more)');
    const { ieee } = splitRef(device.driver_ref);
    const body = { group: f.group.friendly_name, device: ieee, endpoint };
    const r = await this.d.request(f.bridge.base, `group/members/${action}`, body, GROUP_MS);
    if (r.status !== 'ok') return fail(ErrorCode.DEVICE_UPDATE_FAILED, said(r));
    const isIn = (g: Z2mGroup) => g.members.some((m) => m.ieee_address === ieee && m.endpoint === endpoint);
    const test = (g: Z2mGroup) => (action === 'add' ? isIn(g) : !isIn(g));
    // Its answer comes before the new bridge/groups.
    await this.settle(() => f.bridge.groups.some((g) => g.id === f.group.id && test(g)));
    return this.groupResult(f.bridge, test, f.group.id);
  }

  async groupCommand(key: string, state: Record<string, unknown>): Promise<Outcome> {
    const f = this.findGroup(key);
    if (!f)
      return {
        ok: false,
        code: ErrorCode.GROUP_UPDATE_FAILED,
        message: 'Zigbee2MQTT does not list this group (any more)',
      };
    const reach = this.reachable(f.bridge.base);
    if (!reach.ok) return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: reach.message };
    const members = f.group.members.map((m) => ({ ieee: m.ieee_address, endpoint: m.endpoint }));
    const plan = planSet(this.mappingOf(f.bridge, members).mapping, state);
    if (!plan.ok) return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: plan.message };
    const topic = `${f.bridge.base}/${f.group.friendly_name}/set`;
    if (!literalTopic(topic))
      return { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: 'the group name is not a usable MQTT topic' };
    // One publish: Zigbee2MQTT sends one group command per cluster; the members' states follow.
    const err = await this.d.publish(topic, JSON.stringify(plan.payload));
    return err
      ? { ok: false, code: ErrorCode.GROUP_UPDATE_FAILED, message: `publish failed: ${err.message}` }
      : { ok: true };
  }

  // ---- bindings ----

  bindings(device: DeviceRecord): ZigbeeBinding[] | undefined {
    const found = this.entry(device);
    if (!found) return undefined;
    return Object.entries(found.entry.endpoints).flatMap(([id, ep]) =>
      ep.bindings.map(
        (b): ZigbeeBinding => ({
          source_endpoint: Number(id),
          cluster: b.cluster,
          target:
            b.target.type === 'group'
              ? { type: 'group', id: b.target.id }
              : b.target.ieee_address === found.bridge.coordinatorIeee
                ? { type: 'coordinator' }
                : { type: 'endpoint', ieee: b.target.ieee_address, endpoint: b.target.endpoint },
        }),
      ),
    );
  }

  bind(request: BindRequest) {
    return this.binding(request, 'bind');
  }

  unbind(request: BindRequest) {
    return this.binding(request, 'unbind');
  }

  private async binding(req: BindRequest, action: 'bind' | 'unbind'): Promise<Result<BindResult>> {
    const found = this.entry(req.source);
    if (!found) return fail(ErrorCode.DEVICE_UPDATE_FAILED, 'Zigbee2MQTT does not list this device (yet)');
    const { bridge, entry } = found;
    let to: Record<string, unknown>;
    let bound: (b: ZigbeeBinding) => boolean;
    if ('group' in req.target) {
      const g = this.findGroup(req.target.group);
      if (!g) return fail(ErrorCode.DEVICE_NOT_FOUND, 'Zigbee2MQTT does not list this group (any more)');
      to = { to: g.group.friendly_name };
      bound = (b) => b.target.type === 'group' && b.target.id === g.group.id;
    } else {
      const ieee = splitRef(req.target.device.driver_ref).ieee;
      const ep = req.target.endpoint;
      to = { to: ieee, to_endpoint: ep };
      bound = (b) => b.target.type === 'endpoint' && b.target.ieee === ieee && b.target.endpoint === ep;
    }
    const body = { from: entry.ieee, from_endpoint: req.source_endpoint, ...to, clusters: req.clusters };
    const r = await this.d.request(bridge.base, `device/${action}`, body, BIND_MS);
    if (r.status !== 'ok') return fail(ErrorCode.DEVICE_UPDATE_FAILED, said(r));
    const strings = (v: unknown) => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []);
    const clusters = strings(r.data?.clusters);
    const failed = strings(r.data?.failed);
    const shows = () => {
      const list = (this.bindings(req.source) ?? []).filter(
        (b) => b.source_endpoint === req.source_endpoint && bound(b),
      );
      return clusters.every((c) => list.some((b) => b.cluster === c) === (action === 'bind'));
    };
    // bridge/devices, with the new bindings, comes after the answer.
    await this.settle(shows);
    return { ok: true, value: { clusters, failed } };
  }

  // ---- the network map ----

  async networkMap(network: string, routes: boolean): Promise<Result<NetworkMap>> {
    if (!this.d.bridges.has(network)) return fail(ErrorCode.SERVER_ERROR, `no Zigbee2MQTT on ${network}`);
    const r = await this.d.request(network, 'networkmap', { type: 'raw', routes }, MAP_MS);
    if (r.status !== 'ok') return fail(ErrorCode.SERVER_ERROR, said(r));
    const map = fromZigbee2mqttRaw(r.data?.value);
    if (!map) return fail(ErrorCode.SERVER_ERROR, 'Zigbee2MQTT answered a network map that cannot be read');
    return { ok: true, value: map };
  }
}
