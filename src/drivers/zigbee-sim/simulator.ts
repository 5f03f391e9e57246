/**
 * A simulated Zigbee2MQTT instance: an MQTT client on the broker that behaves like Zigbee2MQTT
 * on one base topic. It publishes retained bridge/state, bridge/info, bridge/devices and
 * availability; answers bridge/request/permit_join, device/remove and device/rename, `/set`
 * and `/get` as Zigbee2MQTT does; lets devices join (with an interview) while joining is open;
 * reports drifting sensor values on a schedule; and has hooks for tests (offline, leave, failures).
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import mqtt, { type MqttClient } from 'mqtt';
import { noDelay } from '../../lib/mqtt.ts';
import { isObject } from '../../lib/object.ts';
import { ACCESS_SET, hsToRgb, type ModelFixture, rgbToHs, rgbToXy, xyToRgb } from '../../zigbee/index.ts';
import type { Z2mDevice } from '../zigbee2mqtt/index.ts';
import { type SimBinding, type SimGroup, SimUpkeep, type UpkeepDevice } from './upkeep.ts';
import { drift, initialState, type SimMemory, type SimProperty, seeded, simProperties, switchedOn } from './values.ts';

export interface SimulatorOptions {
  url: string;
  baseTopic: string;
  /** The models of the devices present at start, in order. */
  devices: ModelFixture[];
  /** Models that join, one per joining window, while permit_join is open (cycled). */
  joinCandidates?: ModelFixture[];
  /** Seed of the random source (values, addresses). */
  seed?: number;
  /** Interval of sensor reports; 0 turns scheduled reports off. */
  reportIntervalMs?: number;
  /** MQTT keep-alive in seconds (mqtt.js's 60 by default). */
  keepaliveSeconds?: number;
  /** Delay from opening permit_join to a device joining; and the interview's length. */
  joinDelayMs?: number;
  interviewMs?: number;
  /** Devices that join per permit_join window (DEFAULT_JOINS_PER_WINDOW). */
  joinsPerWindow?: number;
  /** Delay before a set is answered (a real network takes some tens of ms). */
  responseDelayMs?: number;
  /** A firmware update's pace: one tenth of it this often. */
  otaStepMs?: number;
  /** A network map scan's pace: this long per router. */
  mapStepMs?: number;
  /**
   * Where the network keeps itself between runs (as a real Zigbee2MQTT and its devices would):
   * devices that left stay gone, joined devices stay joined, devices keep their state. Absent:
   * the network starts afresh every time (tests).
   */
  stateFile?: string;
}

/** What the simulated network keeps between runs. */
interface SavedNetwork {
  version: 1;
  serial: number;
  nextJoin: number;
  devices: {
    ieee: string;
    friendly: string;
    model: string;
    state: Record<string, unknown>;
    online: boolean;
    nwk?: number;
    bindings?: SimBinding[];
    firmware?: UpkeepDevice['firmware'];
  }[];
  groups?: SimGroup[];
}

export interface SimDevice extends UpkeepDevice {
  ieee: string;
  friendly: string;
  fixture: ModelFixture;
  props: SimProperty[];
  state: Record<string, unknown>;
  /** What its readings settle around, its load, its exact meter count (values.ts). */
  memory: SimMemory;
  online: boolean;
  interviewing: boolean;
  /** Test hooks: the next sets fail (as a device that does not answer), removal fails. */
  failSet?: boolean;
  /** Test hook: only the next this many sets fail (as the fake coordinator's fail-next). */
  failNext?: number;
  failRemove?: boolean;
  /** Milliseconds the device takes to confirm its leave (a sleepy end device); 0 by default. */
  removeDelayMs?: number;
}

/** Devices "in range" that join when joining opens, one after the other (docs/zigbee.md). */
export const DEFAULT_JOINS_PER_WINDOW = 3;

const ROOMS = [
  'Living room',
  'Kitchen',
  'Bedroom',
  'Hallway',
  'Office',
  'Bathroom',
  'Garage',
  'Nursery',
  'Attic',
  'Porch',
];

export class Z2mSimulator {
  readonly base: string;
  private client?: MqttClient;
  private readonly devices = new Map<string, SimDevice>();
  private readonly rand: () => number;
  private readonly timers = new Set<NodeJS.Timeout>();
  private reportTimer?: NodeJS.Timeout;
  private saveTimer?: NodeJS.Timeout;
  private permitJoinEnd = 0;
  private permitTimer?: NodeJS.Timeout;
  private nextJoin = 0;
  private serial = 0;
  /** Test hook: the next permit_join request fails. */
  failPermitJoin = false;
  /** Zigbee2MQTT is away (setInstanceOnline): it answers nothing. */
  private away = false;
  /** Firmware updates, groups, bindings and the network map (upkeep.ts). */
  private readonly upkeep: SimUpkeep;

  constructor(private readonly opts: SimulatorOptions) {
    this.base = opts.baseTopic;
    this.rand = seeded(opts.seed ?? hash(opts.baseTopic));
    this.upkeep = new SimUpkeep(
      {
        base: this.base,
        coordinatorIeee: COORDINATOR_IEEE,
        list: () => this.list(),
        find: (id) => this.device(id),
        publishState: (d, extra) => this.publishState(d as SimDevice, extra),
        publishDevices: () => this.publishDevices(),
        pub: (topic, payload, retain) => this.pub(topic, payload, retain),
        respond: (what, body, transaction) => this.respond(what, body, transaction),
        event: (type, data) => this.event(type, data),
        later: (ms, fn) => this.later(ms, fn),
        apply: (d, key, value) => this.apply(d as SimDevice, key, value),
        rand: () => this.rand(),
      },
      { otaStepMs: opts.otaStepMs, mapStepMs: opts.mapStepMs },
    );
    if (this.restore()) return;
    const names = new Map<string, number>();
    for (const fx of opts.devices) {
      const label = `${ROOMS[this.serial % ROOMS.length]} ${fx.family}`;
      const n = (names.get(label) ?? 0) + 1;
      names.set(label, n);
      this.add(fx, n > 1 ? `${label} ${n}` : label, false);
    }
  }

  /** Brings the network back as it was saved; false when there is nothing (readable) to bring back. */
  private restore(): boolean {
    const file = this.opts.stateFile;
    if (!file || !existsSync(file)) return false;
    let saved: SavedNetwork;
    try {
      saved = JSON.parse(readFileSync(file, 'utf8')) as SavedNetwork;
    } catch {
      return false; // a damaged file: the network starts afresh (and is saved again)
    }
    if (saved?.version !== 1 || !Array.isArray(saved.devices)) return false;
    const models = new Map([...this.opts.devices, ...(this.opts.joinCandidates ?? [])].map((f) => [f.model, f]));
    for (const s of saved.devices) {
      const fixture = models.get(s.model);
      if (!fixture || typeof s.ieee !== 'string') continue;
      const props = simProperties(fixture.exposes);
      const state = { ...initialState(props, this.rand), ...(isObject(s.state) ? s.state : {}) };
      this.devices.set(s.ieee, {
        ieee: s.ieee,
        friendly: typeof s.friendly === 'string' ? s.friendly : s.ieee,
        fixture,
        props,
        state,
        memory: {},
        online: s.online !== false,
        interviewing: false,
        nwk: Number.isInteger(s.nwk) ? (s.nwk as number) : this.devices.size + 1,
        bindings: Array.isArray(s.bindings) ? s.bindings : [],
        firmware: isObject(s.firmware) ? s.firmware : firstFirmware(s.ieee),
      });
    }
    this.upkeep.groups = Array.isArray(saved.groups) ? saved.groups : [];
    this.serial = Number.isInteger(saved.serial) ? saved.serial : this.devices.size;
    this.nextJoin = Number.isInteger(saved.nextJoin) ? saved.nextJoin : 0;
    return true;
  }

  /** Saves the network soon (changes come in bursts: one write for a burst). */
  private persist(): void {
    if (!this.opts.stateFile || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.saveNow(), 200);
    this.saveTimer.unref();
  }

  private saveNow(): void {
    clearTimeout(this.saveTimer);
    this.saveTimer = undefined;
    const file = this.opts.stateFile;
    if (!file) return;
    const saved: SavedNetwork = {
      version: 1,
      serial: this.serial,
      nextJoin: this.nextJoin,
      devices: this.list()
        .filter((d) => !d.interviewing)
        .map((d) => ({
          ieee: d.ieee,
          friendly: d.friendly,
          model: d.fixture.model,
          state: d.state,
          online: d.online,
          nwk: d.nwk,
          bindings: d.bindings,
          firmware: d.firmware,
        })),
      groups: this.upkeep.groups,
    };
    mkdirSync(dirname(file), { recursive: true });
    // Written aside, then renamed: a stop in the middle never leaves half a file.
    writeFileSync(`${file}.tmp`, JSON.stringify(saved));
    renameSync(`${file}.tmp`, file);
  }

  private add(fixture: ModelFixture, friendly: string | undefined, interviewing: boolean): SimDevice {
    const ieee = `0x${(hash(this.base) >>> 0).toString(16).padStart(8, '0')}${(this.serial++).toString(16).padStart(8, '0')}`;
    const props = simProperties(fixture.exposes);
    const d: SimDevice = {
      ieee,
      friendly: friendly ?? ieee,
      fixture,
      props,
      state: initialState(props, this.rand),
      memory: {},
      online: true,
      interviewing,
      // Network addresses 1, 2, ... in the order devices came (the coordinator is 0).
      nwk: this.serial,
      bindings: [],
      firmware: firstFirmware(ieee),
    };
    this.devices.set(ieee, d);
    return d;
  }

  /** Connects to the broker and publishes everything Zigbee2MQTT publishes at start-up (again after every reconnect). */
  async start(): Promise<void> {
    const client = mqtt.connect(this.opts.url, {
      clientId: `z2m-sim-${this.base}-${Math.round(this.rand() * 1e9)}`,
      reconnectPeriod: 200,
      ...(this.opts.keepaliveSeconds !== undefined ? { keepalive: this.opts.keepaliveSeconds } : {}),
      will: { topic: `${this.base}/bridge/state`, payload: Buffer.from('{"state":"offline"}'), retain: true, qos: 0 },
      // No cache of 65,536 pre-built Buffers (about 6 MB of heap): see zigbee2mqtt/link.ts.
      writeCache: false,
    });
    this.client = client;
    client.on('connect', () => {
      noDelay(client);
      // One filter: overlapping ones would deliver every request twice (see broker.ts).
      client.subscribe(`${this.base}/#`);
      this.publishAll();
    });
    client.on('message', (topic, payload) => this.onMessage(topic, payload.toString()));
    client.on('error', () => {});
    await new Promise<void>((resolve) => client.once('connect', () => resolve()));
    const every = this.opts.reportIntervalMs ?? 15_000;
    if (every > 0) {
      this.reportTimer = setInterval(() => this.tick(), every);
      // Sleeping sensors are not read back by the gateway: like real ones after a while, each
      // reports its whole state once soon after the start, so nothing shows empty for long.
      this.later(Math.min(every, 2000), () => {
        if (this.away) return;
        for (const d of this.devices.values()) if (!d.interviewing && d.online) this.publishState(d);
      });
    }
  }

  async stop(): Promise<void> {
    if (this.saveTimer || this.opts.stateFile) this.saveNow();
    if (this.reportTimer) clearInterval(this.reportTimer);
    if (this.permitTimer) clearTimeout(this.permitTimer);
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    const c = this.client;
    this.client = undefined;
    if (c?.connected) {
      await c.publishAsync(`${this.base}/bridge/state`, '{"state":"offline"}', { retain: true }).catch(() => {});
    }
    await c?.endAsync(true).catch(() => {});
  }

  // ---- hooks for tests and demos ----

  /**
   * Zigbee2MQTT goes away (its process stops or crashes: the broker publishes its last will,
   * `bridge/state` offline) and, with `false`, comes back (publishing everything again).
   * While away it answers nothing.
   */
  setInstanceOnline(online: boolean): void {
    this.away = !online;
    if (online) this.publishAll();
    else this.pub(`${this.base}/bridge/state`, '{"state":"offline"}', true);
  }

  list(): SimDevice[] {
    return [...this.devices.values()];
  }

  /** Its groups (Zigbee2MQTT's bridge/groups). */
  groups(): readonly SimGroup[] {
    return this.upkeep.groups;
  }

  device(idOrName: string): SimDevice | undefined {
    return this.devices.get(idOrName) ?? this.list().find((d) => d.friendly === idOrName);
  }

  /** Makes a device go offline or come back (availability). */
  setOnline(id: string, online: boolean): void {
    const d = this.must(id);
    d.online = online;
    this.publishAvailability(d);
  }

  /** Publishes a state change as the device would report it (an action also reaches what the device is bound to). */
  report(id: string, change: Record<string, unknown>): void {
    const d = this.must(id);
    Object.assign(d.state, change);
    this.publishState(d, change);
    if (typeof change.action === 'string') this.upkeep.pressed(d, change.action);
  }

  /** Test hook: the device's next firmware update fails (its image refused as invalid). */
  failNextUpdate(id: string): void {
    this.must(id).failOta = true;
  }

  /** Test hook: the device's next update waits after its first tenth, until releaseUpdate. */
  holdNextUpdate(id: string): void {
    this.must(id).holdOta = true;
  }

  /** Whether a held update waits now. */
  updateHeld(id: string): boolean {
    return this.must(id).resumeOta !== undefined;
  }

  /** A held update goes on. */
  releaseUpdate(id: string): void {
    const d = this.must(id);
    const resume = d.resumeOta;
    d.resumeOta = undefined;
    resume?.();
  }

  /** Renames a device as `bridge/request/device/rename` does. */
  rename(id: string, to: string): void {
    const d = this.must(id);
    this.pub(`${this.base}/${d.friendly}`, '', true);
    this.pub(`${this.base}/${d.friendly}/availability`, '', true);
    d.friendly = to;
    this.publishDevices();
    this.publishAvailability(d);
    this.publishState(d);
  }

  /**
   * The device leaves the network by itself (reset). As Zigbee2MQTT 2.x does: it is deleted from
   * the database and bridge/devices is published without it BEFORE the device_leave event.
   */
  leave(id: string): void {
    const d = this.must(id);
    this.devices.delete(d.ieee);
    this.dropFromGroups(d.ieee);
    this.publishDevices();
    this.event('device_leave', { ieee_address: d.ieee, friendly_name: d.friendly });
  }

  /** A device joins now (as when joining is open), with its interview. */
  join(fixture?: ModelFixture): SimDevice {
    const pool = this.opts.joinCandidates?.length ? this.opts.joinCandidates : this.opts.devices;
    const fx = fixture ?? (pool[this.nextJoin++ % pool.length] as ModelFixture);
    const d = this.add(fx, undefined, true);
    // As Zigbee2MQTT 2.x: the list (with the entry being interviewed) and its availability come
    // before the events.
    this.publishDevices();
    this.publishAvailability(d);
    this.event('device_joined', { friendly_name: d.friendly, ieee_address: d.ieee });
    this.event('device_interview', { friendly_name: d.friendly, ieee_address: d.ieee, status: 'started' });
    this.later(this.opts.interviewMs ?? 1500, () => {
      if (!this.devices.has(d.ieee)) return;
      d.interviewing = false;
      this.event('device_interview', {
        friendly_name: d.friendly,
        ieee_address: d.ieee,
        status: 'successful',
        supported: true,
        definition: this.definition(d),
      });
      this.publishDevices();
      this.publishAvailability(d);
      this.publishState(d);
    });
    return d;
  }

  permitJoinOpen(): boolean {
    return this.permitJoinEnd > Date.now();
  }

  // ---- publishing ----

  private pub(topic: string, payload: string, retain = false): void {
    this.client?.publish(topic, payload, { retain, qos: 0 });
    // Whatever the network publishes follows a change of it (or repeats one): keep it.
    this.persist();
  }

  /** A device gone from the network is no member of any group (Zigbee2MQTT publishes the groups again). */
  private dropFromGroups(ieee: string): void {
    for (const g of this.upkeep.groups) g.members = g.members.filter((m) => m.ieee_address !== ieee);
    this.upkeep.publishGroups();
  }

  private publishAll(): void {
    this.pub(`${this.base}/bridge/state`, '{"state":"online"}', true);
    this.publishInfo();
    this.publishDevices();
    this.upkeep.publishGroups();
    for (const d of this.devices.values()) {
      if (d.interviewing) continue;
      this.publishAvailability(d);
      this.publishState(d);
    }
  }

  private publishInfo(): void {
    const open = this.permitJoinOpen();
    this.pub(
      `${this.base}/bridge/info`,
      JSON.stringify({
        version: '2.1.0-sim',
        commit: 'opencube-sim',
        coordinator: { ieee_address: COORDINATOR_IEEE, type: 'zStack3x0', meta: { revision: 20230507 } },
        network: { channel: 15, pan_id: 6754, extended_pan_id: '0xdddddddddddddddd' },
        log_level: 'info',
        permit_join: open,
        ...(open ? { permit_join_end: this.permitJoinEnd } : {}),
        restart_required: false,
        config: { mqtt: { base_topic: this.base } },
      }),
      true,
    );
  }

  private definition(d: SimDevice) {
    return {
      model: d.fixture.model,
      vendor: d.fixture.vendor,
      description: d.fixture.description,
      exposes: d.fixture.exposes,
      supports_ota: d.fixture.supports_ota === true,
      options: [],
    };
  }

  private publishDevices(): void {
    const list: Z2mDevice[] = [
      {
        ieee_address: COORDINATOR_IEEE,
        friendly_name: 'Coordinator',
        type: 'Coordinator',
        network_address: 0,
        supported: true,
        disabled: false,
        interviewing: false,
        interview_completed: true,
        interview_state: 'SUCCESSFUL',
      },
    ];
    for (const d of this.devices.values()) {
      // An entry being interviewed has no definition key and type "Unknown" (Zigbee2MQTT 2.x).
      list.push({
        ieee_address: d.ieee,
        friendly_name: d.friendly,
        type: d.interviewing ? 'Unknown' : d.fixture.type,
        network_address: d.nwk,
        supported: !d.interviewing,
        disabled: false,
        interviewing: d.interviewing,
        interview_completed: !d.interviewing,
        interview_state: d.interviewing ? 'IN_PROGRESS' : 'SUCCESSFUL',
        ...(d.interviewing ? {} : { definition: this.definition(d) }),
        manufacturer: d.fixture.vendor,
        model_id: d.fixture.zigbee_model,
        power_source: d.fixture.power_source,
        software_build_id: d.firmware.build,
        date_code: '20240101',
        ...(d.interviewing ? {} : { endpoints: this.upkeep.devicesEntry(d) }),
      });
    }
    this.pub(`${this.base}/bridge/devices`, JSON.stringify(list), true);
  }

  private publishAvailability(d: SimDevice): void {
    this.pub(
      `${this.base}/${d.friendly}/availability`,
      JSON.stringify({ state: d.online ? 'online' : 'offline' }),
      true,
    );
  }

  /**
   * Publishes the device's full state (as Zigbee2MQTT does) with `extra` one-shot fields such as
   * `action`. Not retained: Zigbee2MQTT does not retain device state unless a device is set to.
   */
  private publishState(d: SimDevice, extra: Record<string, unknown> = {}): void {
    const { action: _drop, ...rest } = d.state;
    this.pub(`${this.base}/${d.friendly}`, JSON.stringify({ ...rest, ...extra }));
  }

  private event(type: string, data: Record<string, unknown>): void {
    this.pub(`${this.base}/bridge/event`, JSON.stringify({ type, data }));
  }

  /** Zigbee2MQTT 2.x: the namespace is a prefix inside `message`; there is no namespace field. */
  private log(level: 'error' | 'warning' | 'info', message: string): void {
    this.pub(`${this.base}/bridge/logging`, JSON.stringify({ level, message: `z2m: ${message}` }));
  }

  private respond(what: string, body: Record<string, unknown>, transaction: unknown): void {
    this.pub(
      `${this.base}/bridge/response/${what}`,
      JSON.stringify({ ...body, ...(transaction !== undefined ? { transaction } : {}) }),
    );
  }

  private later(ms: number, fn: () => void): void {
    const t = setTimeout(() => {
      this.timers.delete(t);
      fn();
    }, ms);
    this.timers.add(t);
  }

  private must(id: string): SimDevice {
    const d = this.device(id);
    if (!d) throw new Error(`no simulated device ${id}`);
    return d;
  }

  // ---- the schedule ----

  private tick(): void {
    if (this.away) return;
    for (const d of this.devices.values()) {
      if (d.interviewing || !d.online || this.rand() < 0.4) continue;
      const change = drift(d.props, d.state, this.rand, { now: Date.now(), memory: d.memory });
      const action = d.props.find((p) => p.expose.name === 'action');
      if (action && this.rand() < 0.15) {
        const values = action.expose.values ?? [];
        const v = values[Math.floor(this.rand() * values.length)];
        if (v) change.action = v;
      }
      if (Object.keys(change).length === 0) continue;
      const { action: a, ...rest } = change;
      Object.assign(d.state, rest);
      this.publishState(d, a !== undefined ? { action: a } : {});
      if (typeof a === 'string') this.upkeep.pressed(d, a);
    }
  }

  // ---- requests ----

  private onMessage(topic: string, text: string): void {
    if (this.away || !topic.startsWith(`${this.base}/`)) return;
    const rest = topic.slice(this.base.length + 1);
    let msg: unknown = text;
    try {
      msg = text === '' ? '' : JSON.parse(text);
    } catch {
      // plain text payloads are allowed by Zigbee2MQTT
    }
    if (rest.startsWith('bridge/request/')) {
      const what = rest.slice(15);
      if (this.upkeep.handles(what)) this.upkeep.onRequest(what, msg, isObject(msg) ? msg.transaction : undefined);
      else this.onRequest(what, msg);
      return;
    }
    if (rest.endsWith('/set')) {
      this.onSet(rest.slice(0, -4), msg);
      return;
    }
    if (rest.endsWith('/get')) {
      this.onGet(rest.slice(0, -4), msg);
      return;
    }
  }

  private onRequest(what: string, msg: unknown): void {
    const body = isObject(msg) ? msg : {};
    const transaction = body.transaction;
    if (what === 'permit_join') {
      // Zigbee2MQTT 2.x reads `time` only (0 closes); `{"value":false}` alone is refused.
      if (typeof body.time !== 'number') {
        this.respond(what, { data: {}, status: 'error', error: 'Invalid payload' }, transaction);
        return;
      }
      const time = body.time;
      if (this.failPermitJoin) {
        this.failPermitJoin = false;
        this.respond(what, { data: {}, status: 'error', error: 'Failed to connect to the adapter' }, transaction);
        return;
      }
      if (this.permitTimer) clearTimeout(this.permitTimer);
      this.permitJoinEnd = time > 0 ? Date.now() + Math.min(time, 254) * 1000 : 0;
      // bridge/info comes before the response, as Zigbee2MQTT 2.x publishes them.
      this.publishInfo();
      this.respond(what, { data: { time }, status: 'ok' }, transaction);
      if (time > 0) {
        this.permitTimer = setTimeout(() => {
          this.permitJoinEnd = 0;
          this.publishInfo();
        }, Math.min(time, 254) * 1000);
        for (let i = 0; i < (this.opts.joinsPerWindow ?? DEFAULT_JOINS_PER_WINDOW); i++)
          this.later((this.opts.joinDelayMs ?? 3000) * (i + 1), () => {
            if (this.permitJoinOpen()) this.join();
          });
      }
      return;
    }
    if (what === 'device/remove') {
      const id = typeof msg === 'string' ? msg : String(body.id ?? '');
      const d = this.device(id);
      if (!d) {
        this.respond(what, { data: {}, status: 'error', error: `Device '${id}' does not exist` }, transaction);
        return;
      }
      if (d.failRemove) {
        this.respond(
          what,
          {
            data: {},
            status: 'error',
            error: `Failed to remove device '${d.friendly}' (block: false, force: false) (Error: Timeout - ${d.ieee} - 1 - mgmtLeaveRequest after 10000ms)`,
          },
          transaction,
        );
        return;
      }
      this.later(d.removeDelayMs ?? 0, () => {
        // As Zigbee2MQTT 2.x: the state topic is cleared and the list published before the answer;
        // the retained availability topic is left as it was.
        this.devices.delete(d.ieee);
        this.pub(`${this.base}/${d.friendly}`, '', true);
        this.dropFromGroups(d.ieee);
        this.publishDevices();
        const data = { block: false, clear_cache: false, force: body.force === true, id, keep_config: false };
        this.respond(what, { data, status: 'ok' }, transaction);
      });
      return;
    }
    if (what === 'device/rename') {
      const d = this.device(String(body.from ?? ''));
      if (!d || typeof body.to !== 'string') {
        this.respond(
          what,
          { data: {}, status: 'error', error: `Device '${String(body.from)}' does not exist` },
          transaction,
        );
        return;
      }
      const from = d.friendly;
      this.rename(d.ieee, body.to);
      this.respond(what, { data: { from, to: body.to }, status: 'ok' }, transaction);
      return;
    }
    this.respond(
      what,
      { data: {}, status: 'error', error: `Request '${what}' is not supported by the simulator` },
      transaction,
    );
  }

  /** A read: one state message per attribute read, as Zigbee2MQTT publishes one per read response. */
  private onGet(friendly: string, msg: unknown): void {
    const d = this.list().find((x) => x.friendly === friendly);
    if (!d?.online) return;
    const reads = isObject(msg) ? Math.max(1, Object.keys(msg).length) : 1;
    for (let i = 0; i < reads; i++) this.later(this.opts.responseDelayMs ?? 0, () => this.publishState(d));
  }

  private onSet(friendly: string, msg: unknown): void {
    const d = this.list().find((x) => x.friendly === friendly);
    if (!d && isObject(msg) && this.upkeep.onGroupSet(friendly, msg)) return;
    if (!d || !isObject(msg)) return;
    // The failure names the converter's key: `state` for a `state_left` set.
    const firstKey = Object.keys(msg)[0] ?? 'state';
    const first = d.props.find((p) => p.property === firstKey)?.expose.name ?? firstKey;
    const failing = (d.failNext ?? 0) > 0;
    if (failing) d.failNext = (d.failNext ?? 0) - 1;
    if (!d.online || d.failSet || failing) {
      // A device that does not answer: Zigbee2MQTT logs the failure after its own timeout.
      this.later(this.opts.responseDelayMs ?? 0, () =>
        this.log(
          'error',
          `Publish 'set' '${first}' to '${d.friendly}' failed: 'Error: ZCL command ${d.ieee}/1 failed (Timeout - ${d.ieee} - 1 - no response)'`,
        ),
      );
      return;
    }
    for (const [k, v] of Object.entries(msg)) {
      // As Zigbee2MQTT's light converter does: a light told to turn off ignores the brightness
      // sent with it (`{"state":"OFF","brightness":127}` only turns it off).
      const level = /^brightness(?:_step)?(?:_(.+))?$/.exec(k);
      const sameState = level ? (level[1] ? `state_${level[1]}` : 'state') : undefined;
      if (sameState && String(msg[sameState]).toUpperCase() === 'OFF') continue;
      if (!this.apply(d, k, v))
        this.log('error', `No converter available for 'set' '${k}' (${typeof v === 'string' ? v : JSON.stringify(v)})`);
    }
    this.later(this.opts.responseDelayMs ?? 0, () => this.publishState(d));
  }

  /** Applies one `/set` key as the device would; false when the device has no such settable property. */
  private apply(d: SimDevice, key: string, v: unknown): boolean {
    const step = /^(brightness|color_temp)_step(?:_(.+))?$/.exec(key);
    if (step && typeof v === 'number') {
      const prop = step[2] ? `${step[1]}_${step[2]}` : (step[1] as string);
      const p = d.props.find((x) => x.property === prop);
      if (!p) return false;
      return this.apply(d, prop, ((d.state[prop] as number) ?? 0) + v);
    }
    const p = d.props.find((x) => x.property === key && ((x.expose.access ?? 0) & ACCESS_SET) !== 0);
    if (!p) return false;
    const e = p.expose;
    if (e.type === 'binary') {
      const s = typeof v === 'string' ? v.toUpperCase() : v;
      const on = typeof e.value_on === 'string' ? e.value_on.toUpperCase() : e.value_on;
      const off = typeof e.value_off === 'string' ? e.value_off.toUpperCase() : e.value_off;
      if (s === 'TOGGLE') d.state[key] = d.state[key] === e.value_on ? e.value_off : e.value_on;
      else if (s === on) d.state[key] = e.value_on;
      else if (s === off) d.state[key] = e.value_off;
      else return false;
      if (e.name === 'state' && p.parent === 'switch' && d.state[key] === e.value_off) {
        if (typeof d.state.power === 'number') d.state.power = 0;
        if (typeof d.state.current === 'number') d.state.current = 0;
      } else if (e.name === 'state' && p.parent === 'switch')
        Object.assign(d.state, switchedOn(d.state, d.memory, this.rand));
      return true;
    }
    if (e.type === 'numeric' && typeof v === 'number') {
      let n = v;
      if (typeof e.value_min === 'number') n = Math.max(e.value_min, n);
      if (typeof e.value_max === 'number') n = Math.min(e.value_max, n);
      d.state[key] = n;
      if (e.name === 'position' && p.parent === 'cover') {
        const st = d.props.find((x) => x.parent === 'cover' && x.expose.name === 'state');
        if (st) d.state[st.property] = n > 0 ? 'OPEN' : 'CLOSE';
      }
      if (e.name === 'brightness' && p.parent === 'light') {
        const st = d.props.find(
          (x) => x.parent === 'light' && x.expose.name === 'state' && x.expose.endpoint === e.endpoint,
        );
        if (st) d.state[st.property] = n > 0 ? st.expose.value_on : st.expose.value_off;
      }
      return true;
    }
    if (e.type === 'enum') {
      const val = e.values?.find((x) => x.toLowerCase() === String(v).toLowerCase());
      if (val === undefined) return false;
      if (e.name === 'identify') return true;
      if (p.parent === 'cover' && e.name === 'state') {
        const pos = d.props.find((x) => x.parent === 'cover' && x.expose.name === 'position');
        if (val === 'STOP') return true;
        d.state[key] = val;
        if (pos) d.state[pos.property] = val === 'OPEN' ? 100 : 0;
        return true;
      }
      d.state[key] = val;
      return true;
    }
    if (e.type === 'composite' && key === 'color' && isObject(v)) {
      let rgb: { red: number; green: number; blue: number } | undefined;
      if (typeof v.r === 'number' && typeof v.g === 'number' && typeof v.b === 'number')
        rgb = { red: v.r, green: v.g, blue: v.b };
      else if (typeof v.x === 'number' && typeof v.y === 'number') rgb = xyToRgb(v.x, v.y);
      else if (typeof v.hue === 'number' && typeof v.saturation === 'number') rgb = hsToRgb(v.hue, v.saturation);
      else if (typeof v.hex === 'string' && /^#?[0-9a-f]{6}$/i.test(v.hex)) {
        const h = v.hex.replace('#', '');
        rgb = {
          red: Number.parseInt(h.slice(0, 2), 16),
          green: Number.parseInt(h.slice(2, 4), 16),
          blue: Number.parseInt(h.slice(4, 6), 16),
        };
      }
      if (!rgb) return false;
      const hasHs = d.props.some((x) => x.expose.name === 'color_hs');
      d.state.color = { ...rgbToXy(rgb), ...(hasHs ? rgbToHs(rgb) : {}) };
      d.state.color_mode = 'xy';
      return true;
    }
    return false;
  }
}

/** The coordinator's IEEE address. */
const COORDINATOR_IEEE = '0x00124b00000c0ffe';

/** What a device runs when it first joins: a version of its own, the build the list shows. */
function firstFirmware(ieee: string): UpkeepDevice['firmware'] {
  return { version: 0x01000000 + (hash(ieee) & 0xff00), build: '1.0.7' };
}

function hash(s: string): number {
  let h = 2166136261;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619);
  return h >>> 0;
}
