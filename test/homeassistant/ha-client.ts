/**
 * Home Assistant's side of the bridge, for tests: an MQTT client that reads the discovery topics
 * and the state topics as Home Assistant does (retained messages included), keeps the broker's
 * retained view (an empty retained message deletes), checks configs and states against the
 * documented schema (ha-schema.ts), and sends commands.
 */
import mqtt, { type MqttClient } from 'mqtt';
import { checkConfig, checkState, componentOf, stateTopics } from './ha-schema.ts';

export interface Received {
  topic: string;
  payload: string;
  /** The bytes as they came (a camera's JPEG is not text). */
  raw: Buffer;
  retain: boolean;
}

export interface Discovered {
  topic: string;
  component: string;
  config: Record<string, any>;
}

export class HaClient {
  /** What the broker retains now, as seen by this client: topic -> payload. */
  readonly retained = new Map<string, string>();
  /** Every message received, in order. */
  readonly log: Received[] = [];
  private readonly waiters = new Set<() => void>();
  /** The retained configs, parsed once when they come. */
  private readonly parsed = new Map<string, Discovered>();
  /** Topics of presses (event entities and device triggers) and of camera images: not retained. */
  private readonly eventTopics = new Set<string>();

  private constructor(
    readonly client: MqttClient,
    readonly prefix: string,
    readonly base: string,
  ) {
    client.on('message', (topic, payload, packet) => {
      const text = payload.toString('utf8');
      this.log.push({ topic, payload: text, raw: Buffer.from(payload), retain: packet.retain });
      if (topic.startsWith(`${prefix}/`) && topic.endsWith('/config')) this.configMessage(topic, text);
      // A live retained publish reaches subscribers with retain false; both update the view.
      else if (text === '' && (packet.retain || this.retained.has(topic))) this.retained.delete(topic);
      else if (packet.retain || this.retainedTopic(topic)) this.retained.set(topic, text);
      for (const w of this.waiters) w();
    });
  }

  private configMessage(topic: string, text: string): void {
    if (text === '') {
      this.retained.delete(topic);
      this.parsed.delete(topic);
      return;
    }
    this.retained.set(topic, text);
    const d: Discovered = { topic, component: componentOf(topic, this.prefix).component, config: JSON.parse(text) };
    this.parsed.set(topic, d);
    if (d.component === 'event') this.eventTopics.add(d.config.state_topic);
    if (d.component === 'device_automation' || d.component === 'camera') this.eventTopics.add(d.config.topic);
  }

  /** Topics the bridge publishes retained (so a live message on one updates the retained view). */
  private retainedTopic(topic: string): boolean {
    if (!topic.startsWith(`${this.base}/`) || topic.endsWith('/set') || topic.endsWith('/error')) return false;
    return !this.eventTopics.has(topic);
  }

  /** Forgets what the broker retained (after a broker restart, which loses it). */
  forgetRetained(): void {
    this.retained.clear();
    this.parsed.clear();
  }

  /** Connects and subscribes to the discovery prefix and the bridge's base topic. */
  static async connect(url: string, prefix = 'homeassistant', base = 'opencube'): Promise<HaClient> {
    // Credentials apart and decoded, as Home Assistant's own settings hold them.
    const u = new URL(url);
    const auth = u.username
      ? { username: decodeURIComponent(u.username), password: decodeURIComponent(u.password) }
      : {};
    u.username = '';
    u.password = '';
    const client = mqtt.connect(u.toString(), {
      ...auth,
      clientId: `ha-test-${Math.random().toString(16).slice(2, 8)}`,
      reconnectPeriod: 200,
    });
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const ha = new HaClient(client, prefix, base);
    await client.subscribeAsync([`${prefix}/#`, `${base}/#`], { qos: 0 });
    return ha;
  }

  /** Every discovery config the broker retains. */
  configs(): Discovered[] {
    return [...this.parsed.values()];
  }

  /** The configs of one gateway device (by its device identifier). */
  deviceConfigs(serial: string): Discovered[] {
    return this.configs().filter((d) => d.config.device?.identifiers?.includes(`${this.base}_${serial}`));
  }

  /** The one config of a device's entity of a component (and, when given, with a unique id ending in `key`). */
  entity(serial: string, component: string, key?: string): Discovered {
    const found = this.deviceConfigs(serial).filter(
      (d) => d.component === component && (key === undefined || d.topic.endsWith(`_${key}/config`)),
    );
    if (found.length !== 1) throw new Error(`${found.length} ${component} entities ${key ?? ''} on ${serial}`);
    return found[0] as Discovered;
  }

  /** Every problem of every retained config and of every retained state on its state topics. */
  problems(): string[] {
    const errors: string[] = [];
    for (const d of this.configs()) {
      errors.push(...componentOf(d.topic, this.prefix).errors);
      errors.push(...checkConfig(d.component, d.config).map((e) => `${d.topic}: ${e}`));
      for (const t of stateTopics(d.component, d.config)) {
        const p = this.retained.get(t);
        if (p !== undefined && p !== '') errors.push(...checkState(d.component, d.config, t, p));
      }
    }
    return errors;
  }

  /** Resolves once `pred` holds (rejects after `ms`: a guard against hangs, not a timing assertion). */
  waitFor<T>(pred: () => T | undefined | false, what: string, ms = 15_000): Promise<T> {
    return new Promise((resolve, reject) => {
      const check = () => {
        let v: T | undefined | false;
        try {
          v = pred();
        } catch {
          v = undefined;
        }
        if (v !== undefined && v !== false) {
          done();
          resolve(v);
        }
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`Home Assistant did not see ${what} within ${ms} ms`));
      }, ms);
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  /** Waits until a topic's retained payload satisfies `pred`, and returns it. */
  waitForState(topic: string, pred: (payload: string) => boolean, what = topic): Promise<string> {
    // On a timeout, what was seen on the topic says why.
    const seen = () =>
      this.log
        .filter((m) => m.topic === topic)
        .slice(-5)
        .map((m) => m.payload)
        .join('\n  ');
    return this.waitFor(() => {
      const p = this.retained.get(topic);
      return p !== undefined && pred(p) ? p : undefined;
    }, what).catch((err: Error) => {
      throw new Error(`${err.message}; the last states there:\n  ${seen()}`);
    });
  }

  /** Waits for a message (retained or live) after `from` (an index into the log) that satisfies `pred`. */
  waitForMessage(pred: (m: Received) => boolean, what: string, from = 0): Promise<Received> {
    return this.waitFor(() => this.log.slice(from).find(pred), what);
  }

  /** Publishes as Home Assistant does (a command, the birth message). */
  async publish(topic: string, payload: string, retain = false): Promise<void> {
    await this.client.publishAsync(topic, payload, { qos: 0, retain });
  }

  async close(): Promise<void> {
    await this.client.endAsync(true);
  }
}
