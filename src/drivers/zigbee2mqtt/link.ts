/**
 * The MQTT link of the Zigbee2MQTT driver: one connection to the broker, reconnect with
 * exponential backoff, and the exact set of topics the driver reads (kept across reconnects,
 * since the session is clean). Nothing here knows Zigbee2MQTT's topics.
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import type { Log } from '../../lib/log.ts';
import { noDelay } from '../../lib/mqtt.ts';
import { redactUrl } from '../../lib/redact.ts';

export interface LinkOptions {
  /** The broker URL, or a function that starts the broker (sim mode) and gives its URL. */
  url: string | (() => Promise<string>);
  reconnectMinMs: number;
  reconnectMaxMs: number;
  log: Log;
  /** Called for every message on a subscribed topic. */
  onMessage(topic: string, payload: Buffer): void;
  /** Called after every (re)connect, once the subscriptions are sent again. */
  onConnect(): void;
}

export class MqttLink {
  private client?: MqttClient;
  private readonly topics = new Set<string>();
  private backoff: number;
  private stopped = false;

  constructor(private readonly opts: LinkOptions) {
    this.backoff = opts.reconnectMinMs;
  }

  /** Connects; does not wait for the broker (the gateway serves its stored devices meanwhile). */
  async start(): Promise<string> {
    const url = typeof this.opts.url === 'string' ? this.opts.url : await this.opts.url();
    const client = mqtt.connect(url, {
      clientId: `opencube-${randomUUID().slice(0, 8)}`,
      reconnectPeriod: this.backoff,
      connectTimeout: 5000,
      resubscribe: false,
      clean: true,
    });
    this.client = client;
    client.on('connect', () => {
      noDelay(client);
      this.backoff = this.opts.reconnectMinMs;
      client.options.reconnectPeriod = this.backoff;
      this.opts.log.info({ url: redactUrl(url) }, 'zigbee2mqtt: connected to the MQTT broker');
      if (this.topics.size > 0) client.subscribe([...this.topics], { qos: 0 });
      this.opts.onConnect();
    });
    client.on('close', () => {
      if (this.stopped) return;
      this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs);
      client.options.reconnectPeriod = this.backoff;
    });
    client.on('offline', () =>
      this.opts.log.warn({ url: redactUrl(url) }, 'zigbee2mqtt: MQTT broker unreachable, retrying'),
    );
    client.on('error', (err) => this.opts.log.warn({ err: err.message }, 'zigbee2mqtt: MQTT error'));
    client.on('message', (topic, payload) => this.opts.onMessage(topic, payload));
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

  /** Publishes; resolves with the error when the broker could not be written to. */
  publish(topic: string, payload: string): Promise<Error | undefined> {
    const client = this.client;
    if (!client) return Promise.resolve(new Error('not connected'));
    return new Promise((resolve) => client.publish(topic, payload, { qos: 0 }, (err) => resolve(err ?? undefined)));
  }
}

/** Whether `topic` can be subscribed to literally (no wildcard, no empty level at either end). */
export function literalTopic(topic: string): boolean {
  return topic !== '' && !/[+#]/.test(topic) && !topic.includes('\0') && !topic.startsWith('/') && !topic.endsWith('/');
}
