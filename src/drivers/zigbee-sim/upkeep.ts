/**
 * The simulated Zigbee2MQTT's firmware updates, groups, bindings and network map: the bridge
 * requests real Zigbee2MQTT 2.x answers (`device/ota_update/check|update`, `group/add|remove|rename`,
 * `group/members/add|remove`, `device/bind|unbind`, `networkmap`), with its answers, errors and
 * publishes (test/z2m/OBSERVED.md; test/z2m/fidelity.test.ts holds the two to the same), so that
 * integrators and the console have all four without hardware. What is simulated:
 *
 * - firmware: every model that takes updates has one newer image waiting (the installed version
 *   plus 0x100, a software build one higher), installed in ten steps of `otaStepMs`;
 * - groups: a command to a group's set topic reaches every member (its endpoint);
 * - bindings: a remote's on, off and toggle reach what it is bound to (devices, groups), with no
 *   command of anyone else, as a bound remote does;
 * - the network: map.ts.
 */
import { BINDABLE_CLUSTERS } from '../../core/zigbee-upkeep/index.ts';
import type { ModelFixture } from '../../zigbee/index.ts';
import type { Z2mBinding, Z2mGroup } from '../zigbee2mqtt/types.ts';
import { type SimEndpoint, simEndpoints } from './clusters.ts';
import { SimMap } from './map.ts';

/** A binding of a simulated device: as bridge/devices lists it, with its source endpoint. */
export type SimBinding = Z2mBinding & { endpoint: number };

/** A group of the simulated network, as bridge/groups lists it. */
export type SimGroup = Z2mGroup;

/** What the upkeep part needs of a simulated device. */
export interface UpkeepDevice {
  ieee: string;
  friendly: string;
  fixture: ModelFixture;
  state: Record<string, unknown>;
  online: boolean;
  interviewing: boolean;
  nwk: number;
  bindings: SimBinding[];
  /** The OTA file version it runs, and the software build. */
  firmware: { version: number; build: string; updated?: boolean };
  /** Test hook: its next update fails (the image refused as invalid). */
  failOta?: boolean;
  /** Test hook: its next update waits after its first tenth until `resumeOta` is called. */
  holdOta?: boolean;
  resumeOta?: () => void;
}

/** What the upkeep part needs of the simulator. */
export interface SimHost {
  readonly base: string;
  readonly coordinatorIeee: string;
  list(): UpkeepDevice[];
  /** A device by IEEE address or friendly name. */
  find(id: string): UpkeepDevice | undefined;
  publishState(d: UpkeepDevice, extra?: Record<string, unknown>): void;
  publishDevices(): void;
  pub(topic: string, payload: string, retain?: boolean): void;
  respond(what: string, body: Record<string, unknown>, transaction: unknown): void;
  event(type: string, data: Record<string, unknown>): void;
  later(ms: number, fn: () => void): void;
  /** Applies one `/set` key to a device as it would; false when nothing takes it. */
  apply(d: UpkeepDevice, key: string, value: unknown): boolean;
  rand(): number;
}

const REQUESTS = new Set([
  'device/ota_update/check',
  'device/ota_update/update',
  'device/ota_update/update/abort',
  'group/add',
  'group/remove',
  'group/rename',
  'group/members/add',
  'group/members/remove',
  'device/bind',
  'device/unbind',
  'networkmap',
]);

/** The properties a group command carries to its members (Zigbee2MQTT's group state properties, and covers). */
const GROUP_KEYS = ['state', 'brightness', 'color_temp', 'color', 'position'];

const str = (v: unknown) => (typeof v === 'string' ? v : v === undefined || v === null ? '' : String(v));

/** The build after `build`: its last number one higher (`1.0.7` -> `1.0.8`). */
function nextBuild(build: string): string {
  const m = /^(.*?)(\d+)(\D*)$/.exec(build);
  return m ? `${m[1]}${Number(m[2]) + 1}${m[3]}` : `${build}.1`;
}

export class SimUpkeep {
  groups: SimGroup[] = [];
  private readonly eps = new Map<string, SimEndpoint[]>();
  private readonly busy = new Set<string>();
  /** Updates asked to stop: they end at their next block, as zigbee-herdsman's do. */
  private readonly aborted = new Set<string>();
  private readonly map: SimMap;

  constructor(
    private readonly h: SimHost,
    private readonly opts: { otaStepMs?: number; mapStepMs?: number } = {},
  ) {
    this.map = new SimMap(h.coordinatorIeee, () => h.rand());
  }

  /** Whether `what` is a request of this part. */
  handles(what: string): boolean {
    return REQUESTS.has(what);
  }

  /** A device's endpoints (by model). */
  endpoints(d: UpkeepDevice): SimEndpoint[] {
    let e = this.eps.get(d.fixture.model);
    if (!e) {
      e = simEndpoints(d.fixture);
      this.eps.set(d.fixture.model, e);
    }
    return e;
  }

  /** The `endpoints` of a device's bridge/devices entry. */
  devicesEntry(d: UpkeepDevice): Record<string, unknown> {
    const out: Record<string, unknown> = {};
    for (const e of this.endpoints(d))
      out[String(e.id)] = {
        bindings: d.bindings.filter((b) => b.endpoint === e.id).map((b) => ({ cluster: b.cluster, target: b.target })),
        clusters: { input: e.input, output: e.output },
        configured_reportings: [],
        ...(e.name !== undefined ? { name: e.name } : {}),
        scenes: [],
      };
    return out;
  }

  /** The firmware `update` state of a device, as Zigbee2MQTT publishes it. */
  private update(d: UpkeepDevice, state: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
    const latest = d.firmware.updated ? d.firmware.version : d.firmware.version + 0x100;
    return {
      update: {
        installed_version: d.firmware.version,
        latest_release_notes: null,
        latest_source: state === 'idle' ? null : `sim://${d.fixture.model}/${latest.toString(16)}.ota`,
        latest_version: state === 'idle' ? d.firmware.version : latest,
        state,
        ...extra,
      },
    };
  }

  publishGroups(): void {
    const list = this.groups.map((g) => ({ friendly_name: g.friendly_name, id: g.id, members: g.members, scenes: [] }));
    this.h.pub(`${this.h.base}/bridge/groups`, JSON.stringify(list), true);
  }

  /** A bridge request of this part. */
  onRequest(asked: string, msg: unknown, transaction: unknown): void {
    const body = typeof msg === 'object' && msg !== null ? (msg as Record<string, unknown>) : {};
    // An abort with no update running is answered on the update's topic, as Zigbee2MQTT does.
    const what = asked === 'device/ota_update/update/abort' && !this.updating(msg) ? 'device/ota_update/update' : asked;
    if (what !== asked) {
      const id = typeof msg === 'string' ? msg : body.id;
      const d = typeof id === 'string' ? this.h.find(id) : undefined;
      const message = d
        ? `No OTA in progress to abort for device '${d.friendly}'`
        : `Device '${String(id)}' does not exist`;
      this.h.respond(what, { data: {}, status: 'error', error: message }, transaction);
      return;
    }
    const ok = (data: Record<string, unknown>) => this.h.respond(what, { data, status: 'ok' }, transaction);
    const error = (message: string) => this.h.respond(what, { data: {}, status: 'error', error: message }, transaction);
    const r = this.handle(what, body, typeof msg === 'string' ? msg : undefined, ok, error);
    if (r !== undefined) error(r);
  }

  /** Handles a request; returns an error message, or undefined once answered. */
  private handle(
    what: string,
    body: Record<string, unknown>,
    text: string | undefined,
    ok: (data: Record<string, unknown>) => void,
    error: (message: string) => void,
  ): string | undefined {
    switch (what) {
      case 'device/ota_update/check':
      case 'device/ota_update/update':
        return this.ota(what.endsWith('check') ? 'check' : 'update', body, text, ok, error);
      case 'device/ota_update/update/abort':
        return this.abort(body, text, ok);
      case 'group/add': {
        const name = typeof text === 'string' ? text : body.friendly_name;
        if (typeof name !== 'string') return 'Invalid payload';
        if (this.h.find(name) || this.group(name)) return `friendly_name '${name}' is already in use`;
        const id = typeof body.id === 'number' ? body.id : this.freeId();
        if (this.groups.some((g) => g.id === id)) return `Group ID '${id}' is already in use`;
        this.groups.push({ id, friendly_name: name, members: [] });
        this.publishGroups();
        ok({ friendly_name: name, id });
        return undefined;
      }
      case 'group/remove': {
        const id = str(typeof text === 'string' ? text : body.id).trim();
        const g = this.group(id);
        if (!g) return `Group '${id}' does not exist`;
        this.groups = this.groups.filter((x) => x !== g);
        for (const d of this.h.list())
          d.bindings = d.bindings.filter((b) => !(b.target.type === 'group' && b.target.id === g.id));
        this.h.pub(`${this.h.base}/${g.friendly_name}`, '', true);
        this.publishGroups();
        ok({ force: body.force === true, id });
        return undefined;
      }
      case 'group/rename': {
        if (body.from === undefined || typeof body.to !== 'string') return 'Invalid payload';
        const g = this.group(str(body.from));
        if (!g) return `Group '${str(body.from)}' does not exist`;
        const from = g.friendly_name;
        const to = body.to.trim();
        this.h.pub(`${this.h.base}/${from}`, '', true);
        g.friendly_name = to;
        this.publishGroups();
        ok({ from, homeassistant_rename: body.homeassistant_rename === true, to });
        return undefined;
      }
      case 'group/members/add':
      case 'group/members/remove':
        return this.member(what.endsWith('add') ? 'add' : 'remove', body, ok);
      case 'device/bind':
      case 'device/unbind':
        return this.bind(what === 'device/bind' ? 'bind' : 'unbind', body, ok);
      case 'networkmap':
        return this.networkMap(body, text, ok);
      default:
        return `Request '${what}' is not supported by the simulator`;
    }
  }

  private group(id: string): SimGroup | undefined {
    return this.groups.find((g) => g.friendly_name === id || String(g.id) === id);
  }

  private freeId(): number {
    let id = 1;
    while (this.groups.some((g) => g.id === id)) id++;
    return id;
  }

  /** A device's endpoint by Zigbee2MQTT's key: a number, an endpoint name, or none (the first). */
  private endpoint(d: UpkeepDevice, key: unknown): SimEndpoint | undefined {
    const eps = this.endpoints(d);
    if (key === undefined || key === null || key === 'default') return eps[0];
    const k = str(key);
    return /^\d+$/.test(k) ? eps.find((e) => e.id === Number(k)) : eps.find((e) => e.name === k);
  }

  // ---- firmware ----

  private ota(
    kind: 'check' | 'update',
    body: Record<string, unknown>,
    text: string | undefined,
    ok: (data: Record<string, unknown>) => void,
    error: (message: string) => void,
  ): string | undefined {
    const id = typeof text === 'string' ? text : body.id;
    if (typeof id !== 'string') return 'Invalid payload';
    const d = this.h.find(id);
    if (!d) return `Device '${id}' does not exist`;
    if (this.busy.has(d.ieee)) return `OTA update or check for update already in progress for '${d.friendly}'`;
    if (!d.fixture.supports_ota) return `Device '${d.friendly}' does not support OTA updates`;
    const available = !d.firmware.updated;
    if (kind === 'check') {
      this.h.publishState(d, this.update(d, available ? 'available' : 'idle'));
      const source = available
        ? { source: `sim://${d.fixture.model}/${(d.firmware.version + 0x100).toString(16)}.ota` }
        : {};
      ok({ downgrade: false, id, ...source, update_available: available });
      return undefined;
    }
    if (!available) {
      this.h.publishState(d, this.update(d, 'idle'));
      return `Update of '${d.friendly}' failed (No image currently available)`;
    }
    this.busy.add(d.ieee);
    const step = this.opts.otaStepMs ?? 1000;
    const run = (percent: number) => {
      if (percent === 10 && d.holdOta) {
        d.holdOta = false;
        d.resumeOta = () => run(10);
        return;
      }
      this.h.publishState(
        d,
        this.update(d, 'updating', {
          progress: percent,
          remaining: Math.round(((100 - percent) / 10) * (step / 1000)),
        }),
      );
      if (this.aborted.delete(d.ieee)) {
        d.resumeOta = undefined;
        this.busy.delete(d.ieee);
        this.h.publishState(d, this.update(d, 'available'));
        error(`OTA update of '${d.friendly}' failed (OTA for device ${d.ieee} was aborted)`);
        return;
      }
      if (percent === 50 && d.failOta) {
        d.failOta = false;
        this.busy.delete(d.ieee);
        this.h.publishState(d, this.update(d, 'available'));
        error(`OTA update of '${d.friendly}' failed (OTA update of ${d.ieee} failed with reason: INVALID_IMAGE)`);
        return;
      }
      if (percent < 100) {
        this.h.later(step, () => run(percent + 10));
        return;
      }
      const from = { date_code: '20240101', file_version: d.firmware.version, software_build_id: d.firmware.build };
      d.firmware = { version: d.firmware.version + 0x100, build: nextBuild(d.firmware.build), updated: true };
      this.busy.delete(d.ieee);
      this.h.publishState(d, this.update(d, 'idle'));
      this.h.event('device_announce', { friendly_name: d.friendly, ieee_address: d.ieee });
      this.h.publishDevices();
      ok({
        from,
        id,
        to: { date_code: '20240101', file_version: d.firmware.version, software_build_id: d.firmware.build },
      });
    };
    run(0);
    return undefined;
  }

  /** Whether the device a request names is being updated. */
  private updating(msg: unknown): boolean {
    const id =
      typeof msg === 'string'
        ? msg
        : typeof msg === 'object' && msg !== null
          ? (msg as { id?: unknown }).id
          : undefined;
    const d = typeof id === 'string' ? this.h.find(id) : undefined;
    return d !== undefined && this.busy.has(d.ieee);
  }

  /**
   * `device/ota_update/update/abort`: an update running stops at its next block (its own request
   * then fails, the device keeps its firmware); Zigbee2MQTT 2.x answers at once and shows the
   * image available again. With no update running it refuses (onRequest).
   */
  private abort(
    body: Record<string, unknown>,
    text: string | undefined,
    ok: (data: Record<string, unknown>) => void,
  ): string | undefined {
    const id = typeof text === 'string' ? text : body.id;
    if (typeof id !== 'string') return 'Invalid payload';
    const d = this.h.find(id);
    if (!d) return `Device '${id}' does not exist`;
    this.aborted.add(d.ieee);
    this.h.publishState(d, this.update(d, 'available'));
    ok({ id });
    return undefined;
  }

  // ---- groups ----

  private member(action: 'add' | 'remove', body: Record<string, unknown>, ok: (data: Record<string, unknown>) => void) {
    if (body.device === undefined || body.group === undefined || body.group === null) return 'Invalid payload';
    const g = this.group(str(body.group));
    if (!g) return `Group '${str(body.group)}' does not exist`;
    const d = this.h.find(str(body.device));
    if (!d) return `Device '${str(body.device)}' does not exist`;
    const ep = this.endpoint(d, body.endpoint);
    const key = body.endpoint ?? 'default';
    if (!ep) return `Device '${d.friendly}' does not have endpoint '${str(key)}'`;
    if (!ep.input.includes('genGroups'))
      return `Failed to ${action} ${action === 'add' ? 'to' : 'from'} group (ZCL command ${d.ieee}/${ep.id} genGroups.${action}({"groupid":${g.id}}) failed (Status 'UNSUPPORTED_CLUSTER'))`;
    const isIn = (m: SimGroup['members'][number]) => m.ieee_address === d.ieee && m.endpoint === ep.id;
    if (action === 'add' && !g.members.some(isIn)) g.members.push({ ieee_address: d.ieee, endpoint: ep.id });
    if (action === 'remove') g.members = g.members.filter((m) => !isIn(m));
    // As Zigbee2MQTT: the answer first, then the list of groups.
    ok({ device: body.device, endpoint: key, group: body.group });
    this.publishGroups();
    return undefined;
  }

  /** A command to a group's set topic; false when `friendly` names no group. */
  onGroupSet(friendly: string, msg: Record<string, unknown>): boolean {
    const g = this.groups.find((x) => x.friendly_name === friendly);
    if (!g) return false;
    const change: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(msg)) if (GROUP_KEYS.includes(k)) change[k] = v;
    this.toMembers(g.members, change);
    this.h.pub(`${this.h.base}/${g.friendly_name}`, JSON.stringify(change));
    return true;
  }

  /** Applies a change to member endpoints (each key with the endpoint's suffix on a model that names them). */
  private toMembers(
    members: readonly { ieee_address: string; endpoint: number }[],
    change: Record<string, unknown>,
  ): void {
    for (const m of members) {
      const d = this.h.find(m.ieee_address);
      if (!d?.online || d.interviewing) continue;
      const name = this.endpoint(d, m.endpoint)?.name;
      let any = false;
      for (const [k, v] of Object.entries(change))
        any = this.h.apply(d, name !== undefined ? `${k}_${name}` : k, v) || any;
      if (any) this.h.publishState(d);
    }
  }

  // ---- bindings ----

  private bind(action: 'bind' | 'unbind', body: Record<string, unknown>, ok: (data: Record<string, unknown>) => void) {
    if (body.from === undefined || body.from === null || body.to === undefined || body.to === null)
      return 'Invalid payload';
    const src = this.h.find(str(body.from));
    if (!src) return `Source device '${str(body.from)}' does not exist`;
    const group = this.group(str(body.to));
    const dst = group ? undefined : this.h.find(str(body.to));
    if (!group && !dst) return `Target device or group '${str(body.to)}' does not exist`;
    const srcEp = this.endpoint(src, body.from_endpoint);
    if (!srcEp)
      return `Source device '${src.friendly}' does not have endpoint '${str(body.from_endpoint ?? 'default')}'`;
    const dstEp = dst ? this.endpoint(dst, body.to_endpoint) : undefined;
    if (dst && !dstEp) return `Target device '${dst.friendly}' does not have endpoint '${str(body.to_endpoint)}'`;
    // Without clusters, Zigbee2MQTT tries every one a binding carries.
    const candidates = Array.isArray(body.clusters) ? body.clusters.map(str) : BINDABLE_CLUSTERS;
    const target: SimBinding['target'] = group
      ? { type: 'group', id: group.id }
      : { type: 'endpoint', ieee_address: (dst as UpkeepDevice).ieee, endpoint: (dstEp as SimEndpoint).id };
    const same = (b: SimBinding, c: string) =>
      b.endpoint === srcEp.id && b.cluster === c && JSON.stringify(b.target) === JSON.stringify(target);
    const attempted: string[] = [];
    const failed: string[] = [];
    for (const c of candidates) {
      const sourceValid = srcEp.input.includes(c) || srcEp.output.includes(c);
      const matching =
        group !== undefined ||
        (dstEp !== undefined &&
          ((dstEp.input.includes(c) && srcEp.output.includes(c)) ||
            (srcEp.input.includes(c) && dstEp.output.includes(c))));
      if (!sourceValid || !matching) continue;
      attempted.push(c);
      if (action === 'bind') {
        if (!src.bindings.some((b) => same(b, c))) src.bindings.push({ endpoint: srcEp.id, cluster: c, target });
      } else if (src.bindings.some((b) => same(b, c))) src.bindings = src.bindings.filter((b) => !same(b, c));
      else failed.push(c); // the device answers NO_ENTRY
    }
    if (attempted.length === 0) return `Nothing to ${action}`;
    if (failed.length === attempted.length) return `Failed to ${action}`;
    ok({
      clusters: attempted.filter((c) => !failed.includes(c)),
      failed,
      from: body.from,
      from_endpoint: body.from_endpoint ?? 'default',
      to: body.to,
      ...(body.to_endpoint !== undefined ? { to_endpoint: body.to_endpoint } : {}),
    });
    this.h.publishDevices();
    return undefined;
  }

  /** A device's action: what its bindings reach takes it (a bound remote switches a light directly). */
  pressed(d: UpkeepDevice, action: string): void {
    const onOff = /^(on|off|toggle)$/.exec(action)?.[1];
    if (!onOff) return;
    for (const b of d.bindings) {
      if (b.cluster !== 'genOnOff') continue;
      const members =
        b.target.type === 'group'
          ? (this.groups.find((g) => g.id === (b.target as { id: number }).id)?.members ?? [])
          : [b.target];
      for (const m of members) {
        const t = this.h.find(m.ieee_address);
        if (!t) continue;
        const name = this.endpoint(t, m.endpoint)?.name;
        const key = name !== undefined ? `state_${name}` : 'state';
        const next =
          onOff === 'toggle' ? (str(t.state[key]).toUpperCase() === 'ON' ? 'OFF' : 'ON') : onOff.toUpperCase();
        this.toMembers([m], { state: next });
      }
    }
  }

  // ---- the network map ----

  private networkMap(
    body: Record<string, unknown>,
    text: string | undefined,
    ok: (data: Record<string, unknown>) => void,
  ): string | undefined {
    const type = typeof text === 'string' ? text : body.type;
    if (!['raw', 'graphviz', 'plantuml'].includes(str(type)))
      return `Type '${str(type)}' not supported, allowed are: raw,graphviz,plantuml`;
    if (type !== 'raw') return `Type '${str(type)}' is not offered by the simulator (raw is)`;
    const routes = body.routes === true;
    const devices = this.h.list().filter((d) => !d.interviewing);
    const routers = devices.filter((d) => d.fixture.type === 'Router');
    // A scan asks router after router: the answer comes after all of them.
    this.h.later((this.opts.mapStepMs ?? 200) * (routers.length + 1), () =>
      ok({ routes, type: 'raw', value: this.map.raw(devices, routers, routes) }),
    );
    return undefined;
  }
}
