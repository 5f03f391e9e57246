/**
 * The MQTT link of the Zigbee2MQTT driver: one connection to the broker, reconnect with
 * exponential backoff, and the exact set of topics the driver reads (kept across reconnects,
 * since the session is clean). Nothing here knows Zigbee2MQTT's topics.
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import type { Log } from '../../lib/log.ts';
import { noDelay } from '../../lib/mqtt.ts';

export interface LinkOptions {
  /** The broker URL, or a function that starts the broker (sim mode) and gives its URL. */
  url: string | (() => Promise<string>);
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** MQTT keep-alive in seconds (mqtt.js's 60 by default). */
  keepaliveSeconds?: number;
  log: Log;
  /** Called for every message on a subscribed topic. */
  onMessage(topic: string, payload: Buffer): void;
  /** Called after every (re)connect, once the subscriptions are sent again. */
  onConnect(): void;
}

/** Characters of a payload written at `trace` (a device list can be megabytes). */
const MAX_TRACED = 4096;

export class MqttLink {
  private client?: MqttClient;
  private readonly topics = new Set<string>();
  private backoff: number;
  private stopped = false;
  private connects = 0;
  /** The broker as an operator reads it: the URL without its credentials (set at start). */
  private broker = '';

  constructor(private readonly opts: LinkOptions) {
    this.backoff = opts.reconnectMinMs;
  }

  /** Connects; does not wait for the broker (the gateway serves its stored devices meanwhile). */
  async start(): Promise<string> {
    const url = typeof this.opts.url === 'string' ? this.opts.url : await this.opts.url();
    this.broker = withoutCredentials(url);
    const client = mqtt.connect(url, {
      clientId: `opencube-${randomUUID().slice(0, 8)}`,
      reconnectPeriod: this.backoff,
      connectTimeout: 5000,
      ...(this.opts.keepaliveSeconds !== undefined ? { keepalive: this.opts.keepaliveSeconds } : {}),
      resubscribe: false,
      clean: true,
      // mqtt-packet's default cache is 65,536 pre-built Buffers (about 6 MB of heap on a small box)
      // to write message ids; building each one as needed costs nothing at this message rate.
      writeCache: false,
    });
    this.client = client;
    client.on('connect', () => {
      this.connects++;
      noDelay(client);
      this.backoff = this.opts.reconnectMinMs;
      client.options.reconnectPeriod = this.backoff;
      this.opts.log.info({ url: this.broker }, 'zigbee2mqtt: connected to the MQTT broker');
      if (this.topics.size > 0) client.subscribe([...this.topics], { qos: 0 });
      this.opts.onConnect();
    });
    client.on('close', () => {
      if (this.stopped) return;
      this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs);
      client.options.reconnectPeriod = this.backoff;
    });
    client.on('offline', () =>
      this.opts.log.warn({ url: this.broker }, 'zigbee2mqtt: MQTT broker unreachable, retrying'),
    );
    client.on('error', (err) => this.opts.log.warn({ err: err.message }, 'zigbee2mqtt: MQTT error'));
    client.on('message', (topic, payload) => {
      this.trace('in', topic, payload);
      this.opts.onMessage(topic, payload);
    });
    return url;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    if (client) await client.endAsync(true).catch(() => {});
  }

  connected(): boolean {
    return this.client?.connected === true;
  }

  /** Connections made again after the first one (the broker went away and came back). */
  get reconnects(): number {
    return Math.max(0, this.connects - 1);
  }

  /** The broker's URL without credentials ('' before start). */
  get where(): string {
    return this.broker;
  }

  /** Adds topics to read (sent at once when connected; again after every reconnect). */
  subscribe(topics: readonly string[]): void {
    const added = topics.filter((t) => !this.topics.has(t));
    for (const t of added) this.topics.add(t);
    if (added.length > 0 && this.client?.connected) this.client.subscribe(added, { qos: 0 });
  }

  /** Stops reading topics. */
  unsubscribe(topics: readonly string[]): void {
    const removed = topics.filter((t) => this.topics.delete(t));
    if (removed.length > 0 && this.client?.connected) this.client.unsubscribe(removed);
  }

  /**
   * For someone debugging an integration: each topic at `debug`, with its payload at `trace` (the
   * logger takes secrets out). Checked first: at `info` a busy network costs no string building.
   */
  private trace(direction: 'in' | 'out', topic: string, payload: Buffer | string): void {
    const log = this.opts.log;
    if (log.isLevelEnabled?.('trace') && log.trace) {
      const text = payload.toString();
      log.trace(
        { topic, payload: text.length > MAX_TRACED ? `${text.slice(0, MAX_TRACED)}...` : text },
        `mqtt ${direction}`,
      );
    } else if (log.isLevelEnabled?.('debug') !== false)
      log.debug({ topic, bytes: payload.length }, `mqtt ${direction}`);
  }

  /** Publishes; resolves with the error when the broker could not be written to. */
  publish(topic: string, payload: string): Promise<Error | undefined> {
    const client = this.client;
    if (!client) return Promise.resolve(new Error('not connected'));
    this.trace('out', topic, payload);
    return new Promise((resolve) => client.publish(topic, payload, { qos: 0 }, (err) => resolve(err ?? undefined)));
  }
}

/** A URL with its user name and password left out (for logs and readiness reasons). */
export function withoutCredentials(url: string): string {
  try {
    const u = new URL(url);
    u.username = '';
    u.password = '';
    return u.toString().replace(/\/$/, '');
  } catch {
    return url.replace(/\/\/[^/@]*@/, '//');
  }
}

/** Whether `topic` can be subscribed to literally (no wildcard, no empty level at either end). */
export function literalTopic(topic: string): boolean {
  return topic !== '' && !/[+#]/.test(topic) && !topic.includes('\0') && !topic.startsWith('/') && !topic.endsWith('/');
}
