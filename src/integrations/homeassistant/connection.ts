/**
 * The bridge's one MQTT connection: a will that marks the bridge offline (retained) when it is
 * cut, reconnects with exponential backoff, and publishing only while connected (everything is
 * republished after a reconnect, so nothing is queued to replay stale). The broker URL may carry a
 * user and password; only the redacted URL is ever logged.
 */
import { randomUUID } from 'node:crypto';
import mqtt, { type MqttClient } from 'mqtt';
import { noDelay } from '../../lib/mqtt.ts';

/** The logger the bridge needs (pino's Logger fits). */
export interface BridgeLog {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

/** The longest a stop waits for the broker to take the bridge's last message. */
const STOP_WAIT_MS = 2000;

const PROTOCOLS = ['mqtt:', 'mqtts:', 'tcp:', 'tls:', 'ssl:', 'ws:', 'wss:'];

/** Why a broker URL cannot be used, or undefined; never quotes the URL (it may hold a password). */
export function urlProblem(url: string): string | undefined {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return 'is not a URL (e.g. mqtt://user:password@192.168.1.10:1883)';
  }
  if (!PROTOCOLS.includes(u.protocol)) return `has the scheme ${u.protocol.slice(0, -1)}; use mqtt, mqtts, ws or wss`;
  if (u.hostname === '') return 'has no host';
  return undefined;
}

/**
 * The URL without its user and password, and the two decoded. They are given to mqtt.js apart:
 * it splits the URL's user info at the last `:`, so a password holding `:` would not log in.
 */
export function splitCredentials(url: string): { url: string; username?: string; password?: string } {
  const u = new URL(url);
  const username = decodeURIComponent(u.username);
  const password = decodeURIComponent(u.password);
  u.username = '';
  u.password = '';
  return { url: u.toString(), ...(username ? { username } : {}), ...(password ? { password } : {}) };
}

/** The URL without its user and password, for logs. */
export function redact(url: string): string {
  try {
    const u = new URL(url);
    if (u.username || u.password) {
      u.username = '***';
      u.password = '';
    }
    return u.toString();
  } catch {
    return '(unreadable URL)';
  }
}

export interface ConnectionOptions {
  url: string;
  will: { topic: string; payload: string };
  reconnectMinMs: number;
  reconnectMaxMs: number;
  log: BridgeLog;
  /** Called after every (re)connect. */
  onConnect(): void;
  /** Called for every message on a subscribed topic; `retained` when the broker replayed it. */
  onMessage(topic: string, payload: Buffer, retained: boolean): void;
}

/** Messages handed to the socket at once (see Connection.publish). */
const WINDOW = 64;

interface Pending {
  topic: string;
  /** Text (configs, states) or bytes (a camera's JPEG). */
  payload: string | Buffer;
  retain: boolean;
  resolve(ok: boolean): void;
}

export class Connection {
  private client?: MqttClient;
  private readonly waiting: Pending[] = [];
  /** Index of the next message of `waiting` to hand to the socket. */
  private head = 0;
  private inFlight = 0;
  /** Counts connections closed, so that late callbacks of a closed one are told apart. */
  private generation = 0;
  private backoff: number;
  private stopped = false;
  private readonly shownUrl: string;

  constructor(private readonly opts: ConnectionOptions) {
    this.backoff = opts.reconnectMinMs;
    this.shownUrl = redact(opts.url);
  }

  /** Connects in the background (the gateway does not wait for the broker). */
  start(): void {
    const { url, ...credentials } = splitCredentials(this.opts.url);
    const client = mqtt.connect(url, {
      ...credentials,
      clientId: `opencube-ha-${randomUUID().slice(0, 8)}`,
      clean: true,
      resubscribe: false,
      queueQoSZero: false,
      reconnectPeriod: this.backoff,
      connectTimeout: 5000,
      will: { topic: this.opts.will.topic, payload: Buffer.from(this.opts.will.payload), qos: 1, retain: true },
    });
    this.client = client;
    client.on('connect', () => {
      noDelay(client);
      this.backoff = this.opts.reconnectMinMs;
      client.options.reconnectPeriod = this.backoff;
      this.opts.log.info({ url: this.shownUrl }, 'homeassistant: connected to the MQTT broker');
      this.opts.onConnect();
    });
    client.on('close', () => {
      this.dropWaiting();
      if (this.stopped) return;
      this.backoff = Math.min(this.backoff * 2, this.opts.reconnectMaxMs);
      client.options.reconnectPeriod = this.backoff;
    });
    client.on('offline', () =>
      this.opts.log.warn(
        { url: this.shownUrl, retry_ms: this.backoff },
        'homeassistant: MQTT broker unreachable, retrying',
      ),
    );
    // mqtt.js error texts name the code and the address, never the credentials.
    client.on('error', (err) =>
      this.opts.log.warn({ url: this.shownUrl, err: err.message }, 'homeassistant: MQTT error'),
    );
    client.on('message', (topic, payload, packet) => this.opts.onMessage(topic, payload, packet.retain === true));
  }

  /** Whether the broker can be published to now. */
  get connected(): boolean {
    return this.client?.connected === true;
  }

  subscribe(topics: string[]): void {
    if (this.client?.connected) this.client.subscribe(topics, { qos: 0 });
  }

  /**
   * Publishes while connected, in order; resolves false when it could not (the next connect
   * republishes everything). At most WINDOW messages are handed to the socket at once: a full
   * republish of thousands of entities waits for the socket to drain instead of piling up
   * in its buffer.
   */
  publish(topic: string, payload: string | Buffer, retain: boolean): Promise<boolean> {
    if (!this.client?.connected) return Promise.resolve(false);
    return new Promise((resolve) => {
      this.waiting.push({ topic, payload, retain, resolve });
      this.pump();
    });
  }

  private pump(): void {
    const client = this.client;
    while (this.inFlight < WINDOW && this.head < this.waiting.length) {
      const m = this.waiting[this.head++] as Pending;
      // The queue is emptied once read to its end (shift() on thousands of messages is quadratic).
      if (this.head === this.waiting.length) {
        this.waiting.length = 0;
        this.head = 0;
      }
      if (!client?.connected) {
        m.resolve(false);
        continue;
      }
      this.inFlight++;
      const generation = this.generation;
      client.publish(m.topic, m.payload, { qos: 0, retain: m.retain }, (err) => {
        m.resolve(!err);
        // A message of a connection that closed meanwhile no longer counts (see dropWaiting).
        if (generation !== this.generation) return;
        this.inFlight--;
        this.pump();
      });
    }
  }

  /** Drops what waits to be published (the connection is gone; the next connect republishes). */
  private dropWaiting(): void {
    // What was handed to the closed socket may never be called back: it stops counting.
    this.generation++;
    this.inFlight = 0;
    const dropped = this.waiting.splice(this.head);
    this.waiting.length = 0;
    this.head = 0;
    for (const m of dropped) m.resolve(false);
  }

  /** Disconnects; `last` (the bridge going offline) is published first when connected. */
  async stop(last?: { topic: string; payload: string }): Promise<void> {
    this.stopped = true;
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    if (last && client.connected) {
      // Acknowledged by the broker, or given up after STOP_WAIT_MS: a stop never hangs on a broker.
      let timer: NodeJS.Timeout | undefined;
      await Promise.race([
        new Promise<void>((resolve) =>
          client.publish(last.topic, last.payload, { qos: 1, retain: true }, () => resolve()),
        ),
        new Promise<void>((resolve) => {
          timer = setTimeout(resolve, STOP_WAIT_MS);
        }),
      ]);
      clearTimeout(timer);
    }
    await client.endAsync(true).catch(() => {});
  }
}
