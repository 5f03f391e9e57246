/**
 * The Home Assistant bridge: keeps the broker's retained discovery configs, states and
 * availability in step with the device registry (every device event on the bus), and turns
 * Home Assistant's commands into D4 calls of the device service, in order per device. A refused
 * or failed command is published on the device's error topic and logged. After every (re)connect
 * and on Home Assistant's birth message, everything is published again. Cameras get pictures
 * (camera-feed.ts): the only payloads that are bytes, never retained.
 */

import { ErrorCode } from '../../catalog/errors.ts';
import type { DeviceRecord } from '../../core/devices/contract.ts';
import { stateWith } from '../../core/devices/reading.ts';
import type { Done } from '../../core/devices/service.ts';
import type { BusEvent, EventBus, EventName } from '../../core/event-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import { CAMERA_KEY } from './camera.ts';
import { CameraFeed, type SnapshotFn } from './camera-feed.ts';
import { type BridgeLog, Connection } from './connection.ts';
import { bridgeDiscovery, entityDiscovery, type Origin } from './discovery.ts';
import { entitiesOf } from './entities.ts';
import type { Entity } from './entity.ts';
import { SCENE_ON, type ScenesPort, type SceneView, sceneOf, sceneTopics } from './scenes.ts';
import { type TopicSettings, Topics, topicSafe } from './topics.ts';
import { shown } from './values.ts';

/** The biggest command payload read; a light's JSON command is well under 1 KB. */
const MAX_COMMAND_BYTES = 16 * 1024;

export interface BridgeOptions extends TopicSettings {
  mqtt_url: string;
  gatewayName: string;
  version: string;
  registry: { list(): DeviceRecord[]; get(serial: string): DeviceRecord | undefined };
  devices: { update(serial: string, body: Record<string, unknown>): Promise<Done> };
  bus: EventBus;
  log: BridgeLog;
  /** Seconds between two pictures of a camera entity; 0: only on announce, online and the button. */
  camera_interval_seconds: number;
  /** The gateway's snapshot of a camera (the Open API's: same cache, one ffmpeg per camera). */
  snapshot: SnapshotFn;
  /** The clock of the cameras' picture timers. */
  clock: Clock;
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** The gateway's scenes, each a scene entity that runs it (scenes.ts); absent: none shown. */
  scenes?: ScenesPort;
}

function is<N extends EventName>(e: BusEvent, name: N): e is BusEvent<N> {
  return e.name === name;
}

/** What the bridge keeps of one published device. */
interface Known {
  entities: Map<string, Entity>;
  /** Discovery topic -> config JSON. */
  configs: Map<string, string>;
  /** Command topic key -> the entity and its command sub-part. */
  commands: Map<string, { entity: Entity; sub: string }>;
  /** Entity key -> the retained state topics published for it. */
  stateTopics: Map<string, Set<string>>;
}

export class HomeAssistantBridge {
  readonly topics: Topics;
  private readonly conn: Connection;
  private readonly origin: Origin;
  private readonly known = new Map<string, Known>();
  /** Retained topic -> last payload published (so an unchanged state is not sent again). */
  private readonly published = new Map<string, string>();
  private readonly queues = new Map<string, Promise<void>>();
  /** Every discovery topic the bridge publishes now (its own device's and every known device's). */
  private readonly configTopics = new Set<string>();
  private readonly feed: CameraFeed;
  private unsubscribe?: () => void;
  /** Command topics whose retained message was already reported as ignored. */
  private readonly toldRetained = new Set<string>();
  /** The name of the gateway's own device in Home Assistant: the gateway's, also after a rename. */
  private gatewayName: string;
  /** The scenes published: retained topic -> payload (configs and availabilities). */
  private sceneRetained = new Map<string, string>();
  /** Reads of the scene list, one at a time (a change while one runs reads again after it). */
  private sceneTurn: Promise<void> = Promise.resolve();

  constructor(private readonly opts: BridgeOptions) {
    this.topics = new Topics(opts);
    this.origin = { name: 'opencube', sw_version: opts.version };
    this.gatewayName = opts.gatewayName;
    this.configTopics.add(bridgeDiscovery(this.topics, this.origin, opts.gatewayName).topic);
    this.feed = new CameraFeed({
      snapshot: opts.snapshot,
      intervalMs: opts.camera_interval_seconds * 1000,
      clock: opts.clock,
      log: opts.log,
      online: (serial) => opts.registry.get(serial)?.online === true,
      publish: (topic, jpeg) => this.conn.publish(topic, jpeg, false),
    });
    this.conn = new Connection({
      url: opts.mqtt_url,
      will: { topic: this.topics.bridgeAvailability, payload: 'offline' },
      reconnectMinMs: opts.reconnectMinMs ?? 1000,
      reconnectMaxMs: opts.reconnectMaxMs ?? 30_000,
      log: opts.log,
      onConnect: () => this.connected(),
      onMessage: (topic, payload, retained) => this.message(topic, payload, retained),
    });
  }

  /** Follows the registry from now on and connects (without waiting for the broker). */
  start(): void {
    for (const d of this.opts.registry.list()) this.sync(d.serial_number);
    this.unsubscribe = this.opts.bus.subscribe((e) => this.event(e));
    this.refreshScenes();
    this.conn.start();
  }

  /**
   * The gateway was renamed (the console): its device in Home Assistant takes the new name at once
   * (its retained config again; a broker out of reach gets it with everything at the reconnect).
   */
  rename(name: string): void {
    this.gatewayName = name;
    const bridge = bridgeDiscovery(this.topics, this.origin, name);
    this.retained(bridge.topic, JSON.stringify(bridge.config));
  }

  /** Stops following, lets commands under way finish, marks the bridge offline and disconnects. */
  async stop(): Promise<void> {
    this.unsubscribe?.();
    this.feed.stop();
    await Promise.allSettled([...this.queues.values(), this.sceneTurn]);
    await this.conn.stop({ topic: this.topics.bridgeAvailability, payload: 'offline' });
  }

  // ---- publishing ----

  private retained(topic: string, payload: string, force = false): void {
    if (!force && this.published.get(topic) === payload) return;
    this.published.set(topic, payload);
    void this.conn.publish(topic, payload, true);
  }

  /** Clears a retained topic (an empty retained message deletes it at the broker). */
  private clear(topic: string): void {
    this.published.delete(topic);
    void this.conn.publish(topic, '', true);
  }

  private connected(): void {
    const t = this.topics;
    this.conn.subscribe([t.status, t.commandFilter, t.discoveryFilter]);
    this.publishAll();
  }

  /** Every config, availability and state, sent whatever was sent before. */
  private publishAll(): void {
    this.retained(this.topics.bridgeAvailability, 'online', true);
    const bridge = bridgeDiscovery(this.topics, this.origin, this.gatewayName);
    this.retained(bridge.topic, JSON.stringify(bridge.config), true);
    for (const serial of this.known.keys()) this.publishDevice(serial, true);
    for (const [topic, payload] of this.sceneRetained) this.retained(topic, payload, true);
    // Pictures are not retained: a Home Assistant that (re)reads the configs gets one now.
    for (const serial of this.feed.serials()) this.shootIfOnline(serial, 'announced');
  }

  private shootIfOnline(serial: string, why: string): void {
    if (this.opts.registry.get(serial)?.online) void this.feed.shoot(serial, why);
  }

  private publishDevice(serial: string, force: boolean): void {
    const k = this.known.get(serial);
    const device = this.opts.registry.get(serial);
    if (!k || !device) return;
    for (const [topic, json] of k.configs) this.retained(topic, json, force);
    this.retained(this.topics.availability(serial), device.online ? 'online' : 'offline', force);
    for (const e of k.entities.values()) this.publishStates(serial, k, e, device, undefined, force);
  }

  private publishStates(
    serial: string,
    k: Known,
    e: Entity,
    device: DeviceRecord,
    changed: Record<string, unknown> | undefined,
    force: boolean,
  ): void {
    const t = this.topics.entity(serial, e.topicKey ?? e.key);
    const topics = k.stateTopics.get(e.key) ?? new Set<string>();
    k.stateTopics.set(e.key, topics);
    for (const m of e.states(device, changed)) {
      const topic = t.state(m.sub);
      topics.add(topic);
      this.retained(topic, m.payload, force);
    }
  }

  // ---- the registry ----

  private event(e: BusEvent): void {
    if (is(e, 'device#addDevice')) this.sync(String(e.data.payload.serial_number));
    else if (is(e, 'device#updateDeviceInfo')) this.sync(e.data.endpoint.serial_number);
    else if (is(e, 'device#updateDeviceState')) this.stateChanged(e.data.endpoint.serial_number, e.data.payload);
    else if (is(e, 'device#deleteDevice')) this.forget(e.data.endpoint.serial_number);
    else if (is(e, 'automation#changed')) this.refreshScenes();
    else if (is(e, 'device#updateDeviceOnline')) {
      const serial = e.data.endpoint.serial_number;
      if (this.known.has(serial))
        this.retained(this.topics.availability(serial), e.data.payload.online ? 'online' : 'offline');
      if (e.data.payload.online) this.shootIfOnline(serial, 'online');
    }
  }

  /** (Re)builds a device's entities and publishes what changed: new configs, removed ones cleared. */
  private sync(serial: string): void {
    const device = this.opts.registry.get(serial);
    if (!device) {
      this.forget(serial);
      return;
    }
    if (!topicSafe(serial)) {
      this.opts.log.warn({ serial }, 'homeassistant: a serial number that cannot be a topic level is not published');
      return;
    }
    const old = this.known.get(serial);
    const next: Known = { entities: new Map(), configs: new Map(), commands: new Map(), stateTopics: new Map() };
    for (const e of entitiesOf(device, this.topics.availability(serial))) {
      const topicKeys = e.commands.map((sub) => Topics.topicKey(e.topicKey ?? e.key, sub));
      if (next.entities.has(e.key) || topicKeys.some((tk) => next.commands.has(tk))) {
        this.opts.log.warn(
          { serial, key: e.key },
          'homeassistant: two entities of one device share a key; the second is left out',
        );
        continue;
      }
      next.entities.set(e.key, e);
      for (const [i, sub] of e.commands.entries()) next.commands.set(topicKeys[i] as string, { entity: e, sub });
      const { topic, config } = entityDiscovery(e, device, this.topics, this.origin);
      next.configs.set(topic, JSON.stringify(config));
    }
    this.known.set(serial, next);
    for (const topic of old?.configs.keys() ?? []) this.configTopics.delete(topic);
    for (const topic of next.configs.keys()) this.configTopics.add(topic);
    // Publishing fills in the state topics the device has now; what it had besides is cleared.
    this.publishDevice(serial, false);
    if (old) this.clearGone(old, next);
    this.followCamera(serial, next);
  }

  /** A camera entity announced for the first time gets a picture (when it can be sent now). */
  private followCamera(serial: string, k: Known): void {
    if (k.entities.get(CAMERA_KEY)?.component !== 'camera') {
      this.feed.forget(serial);
      return;
    }
    const fresh = this.feed.follow(serial, this.topics.entity(serial, CAMERA_KEY).state());
    // Before the first connect, the connect publishes everything, pictures included.
    if (fresh && this.conn.connected) this.shootIfOnline(serial, 'announced');
  }

  /** Clears the configs and states of entities (or parts of them) a device no longer has. */
  private clearGone(old: Known, next: Known): void {
    for (const topic of old.configs.keys()) if (!next.configs.has(topic)) this.clear(topic);
    for (const [key, topics] of old.stateTopics) {
      const kept = next.stateTopics.get(key);
      for (const topic of topics) if (!kept?.has(topic)) this.clear(topic);
    }
  }

  /** A removed device: its configs, states and availability are cleared. */
  private forget(serial: string): void {
    const k = this.known.get(serial);
    if (!k) return;
    this.known.delete(serial);
    this.feed.forget(serial);
    for (const topic of k.configs.keys()) {
      this.configTopics.delete(topic);
      this.clear(topic);
    }
    for (const topics of k.stateTopics.values()) for (const topic of topics) this.clear(topic);
    this.clear(this.topics.availability(serial));
  }

  private stateChanged(serial: string, changed: Record<string, unknown>): void {
    const k = this.known.get(serial);
    const stored = this.opts.registry.get(serial);
    if (!k || !stored) return;
    const state = stateWith(stored.state, changed);
    const device = { ...stored, state };
    const t = (e: Entity) => this.topics.entity(serial, e.topicKey ?? e.key);
    for (const e of k.entities.values()) {
      if ([...e.sources].some((s) => s in changed)) this.publishStates(serial, k, e, device, changed, false);
      for (const m of e.events?.(changed) ?? []) void this.conn.publish(t(e).state(m.sub), m.payload, false);
    }
  }

  // ---- scenes ----

  /** Reads the scenes again (after the reads under way) and publishes what changed. */
  private refreshScenes(): void {
    const port = this.opts.scenes;
    if (!port) return;
    this.sceneTurn = this.sceneTurn
      .then(async () => this.syncScenes(await port.list()))
      .catch((err) => this.opts.log.warn({ err }, 'homeassistant: the scenes could not be read'));
  }

  /** Publishes each scene's config and availability; clears those of scenes gone. */
  private syncScenes(list: readonly SceneView[]): void {
    const next = new Map<string, string>();
    for (const scene of list) {
      const { config, availability } = sceneTopics(scene, this.topics, this.origin);
      next.set(...config);
      next.set(...availability);
      this.configTopics.add(config[0]);
    }
    for (const [topic, payload] of next) this.retained(topic, payload);
    for (const topic of this.sceneRetained.keys())
      if (!next.has(topic)) {
        this.configTopics.delete(topic);
        this.clear(topic);
      }
    this.sceneRetained = next;
  }

  /** Home Assistant activated a scene entity: the scene runs (refused ones on the bridge's error topic). */
  private async sceneCommand(topic: string, key: string, payload: Buffer): Promise<void> {
    const text = payload.length > MAX_COMMAND_BYTES ? undefined : payload.toString('utf8');
    const id = sceneOf(key);
    const port = this.opts.scenes;
    if (!id || !port) return this.refused(topic, 'bridge', text, ErrorCode.INVALID_PARAMETERS, `${key}: no such scene`);
    if (text !== SCENE_ON)
      return this.refused(topic, 'bridge', text, ErrorCode.INVALID_PARAMETERS, `payload: a scene takes ${SCENE_ON}`);
    const r = await port.run(id);
    if (!r.ok) return this.refused(topic, 'bridge', text, ErrorCode.CONFLICT, r.message);
    this.opts.log.debug({ scene: id }, 'homeassistant: scene run');
  }

  // ---- from the broker ----

  private message(topic: string, payload: Buffer, retained: boolean): void {
    const t = this.topics;
    if (topic === t.status) {
      // A retained birth is an old one replayed at subscription, not Home Assistant starting now.
      if (!retained && payload.toString() === 'online') {
        this.opts.log.info({}, 'homeassistant: Home Assistant started; publishing every config and state again');
        this.publishAll();
      }
      return;
    }
    if (t.isOwnDiscovery(topic)) {
      // Only what the broker replays at subscription (retained) is left over; the rest are echoes
      // of configs being published now.
      if (retained && payload.length > 0 && !this.configTopics.has(topic)) {
        this.opts.log.info({ topic }, 'homeassistant: clearing the config of an entity that no longer exists');
        this.clear(topic);
      }
      return;
    }
    const cmd = t.parseCommand(topic);
    if (!cmd) return;
    // A command is an act of its moment. One published retained is handed again by the broker at
    // every subscription (each start, each reconnect) and would switch the heater on again days
    // later: only live ones run (a live one reaches a subscriber unretained, however it was sent).
    if (retained) {
      if (payload.length > 0) this.ignoredRetained(topic);
      return;
    }
    if (cmd.serial === 'bridge') this.enqueue('bridge', () => this.sceneCommand(topic, cmd.key, payload));
    else this.enqueue(cmd.serial, () => this.command(topic, cmd.serial, cmd.key, payload));
  }

  /** Says once per topic and connection that a retained command was not run (a broker replays it at each one). */
  private ignoredRetained(topic: string): void {
    if (this.toldRetained.has(topic) || this.toldRetained.size >= 1000) return;
    this.toldRetained.add(topic);
    this.opts.log.warn(
      { topic },
      'homeassistant: a retained command was ignored (commands are never retained; clear it at the broker)',
    );
  }

  /** Runs commands of one device one after another, in the order they came. */
  private enqueue(serial: string, run: () => Promise<void>): void {
    const prev = this.queues.get(serial) ?? Promise.resolve();
    const next = prev.then(run).catch((err) => this.opts.log.error({ err, serial }, 'homeassistant: command failed'));
    this.queues.set(serial, next);
    void next.then(() => {
      if (this.queues.get(serial) === next) this.queues.delete(serial);
    });
  }

  private async command(topic: string, serial: string, key: string, payload: Buffer): Promise<void> {
    const text = payload.length > MAX_COMMAND_BYTES ? undefined : payload.toString('utf8');
    const k = this.known.get(serial);
    const target = k?.commands.get(key);
    const device = this.opts.registry.get(serial);
    if (!k || !device)
      return this.refused(topic, serial, text, ErrorCode.DEVICE_NOT_FOUND, 'no device with this serial number');
    if (!target)
      return this.refused(
        topic,
        serial,
        text,
        ErrorCode.INVALID_PARAMETERS,
        `${key}: the device takes no command here`,
      );
    if (text === undefined)
      return this.refused(
        topic,
        serial,
        text,
        ErrorCode.INVALID_PARAMETERS,
        `payload: longer than ${MAX_COMMAND_BYTES} bytes`,
      );
    const r = target.entity.command?.(target.sub, text, device);
    if (!r)
      return this.refused(
        topic,
        serial,
        text,
        ErrorCode.INVALID_PARAMETERS,
        `${key}: the device takes no command here`,
      );
    if (!r.ok) return this.refused(topic, serial, text, ErrorCode.INVALID_PARAMETERS, r.message);
    if ('snapshot' in r) return this.feed.shoot(serial, 'button');
    let done: Done;
    try {
      done = await this.opts.devices.update(serial, { state: r.state });
    } catch (err) {
      this.opts.log.error({ err, serial, topic }, 'homeassistant: the device service failed on a command');
      return this.refused(topic, serial, text, ErrorCode.SERVER_ERROR, 'server exception');
    }
    if (!done.ok) return this.refused(topic, serial, text, done.code, done.message);
    this.opts.log.debug({ serial, topic }, 'homeassistant: command done');
  }

  /** A refused or failed command: on the device's error topic (the bridge's when unknown) and in the log. */
  private refused(topic: string, serial: string, text: string | undefined, error: number, message: string): void {
    const known = this.known.has(serial);
    const body = { error, message, topic, payload: text === undefined ? null : text.slice(0, 1000) };
    this.opts.log.warn(
      { serial, topic, error, payload: text === undefined ? undefined : shown(text) },
      `homeassistant: command refused: ${message}`,
    );
    void this.conn.publish(known ? this.topics.error(serial) : this.topics.bridgeError, JSON.stringify(body), false);
  }
}
