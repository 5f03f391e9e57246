/**
 * Records every MQTT message on a broker, in arrival order, so tests can wait for a message and
 * then look at what came before and after it (topic order matters to the gateway's driver).
 */
import mqtt, { type MqttClient } from 'mqtt';

export interface Recorded {
  /** Position in arrival order. */
  seq: number;
  topic: string;
  text: string;
  /** Parsed JSON, or the text when it is not JSON. */
  json: unknown;
  /** Delivered as a retained message (only messages already retained when the recorder subscribed). */
  retained: boolean;
  /** When it arrived (ms since the epoch), for reports; tests assert on order, never on time. */
  at: number;
}

/** A test on a message; `description` names it in a timeout error. */
export type Match = ((m: Recorded) => boolean) & { description?: string };

export class MqttRecorder {
  readonly messages: Recorded[] = [];
  private readonly waiters = new Set<{ match: Match; from: number; resolve: (m: Recorded) => void }>();

  private constructor(private readonly client: MqttClient) {}

  /** Connects to `url` and records everything under `topics` (all by default). */
  static async start(url: string, topics: string[] = ['#']): Promise<MqttRecorder> {
    const client = mqtt.connect(url, { clientId: `recorder-${process.pid}-${Math.random().toString(16).slice(2, 8)}` });
    client.on('error', () => {});
    await new Promise<void>((resolve, reject) => {
      client.once('connect', () => resolve());
      client.once('error', reject);
    });
    const rec = new MqttRecorder(client);
    client.on('message', (topic, payload, packet) => rec.add(topic, payload.toString(), packet.retain));
    await client.subscribeAsync(topics, { qos: 1 });
    return rec;
  }

  private add(topic: string, text: string, retained: boolean): void {
    let json: unknown = text;
    try {
      json = JSON.parse(text);
    } catch {
      // plain text payload
    }
    const m: Recorded = { seq: this.messages.length, topic, text, json, retained, at: Date.now() };
    this.messages.push(m);
    for (const w of [...this.waiters])
      if (m.seq >= w.from && w.match(m)) {
        this.waiters.delete(w);
        w.resolve(m);
      }
  }

  /** The position the next message will take (to wait only for what comes after now). */
  mark(): number {
    return this.messages.length;
  }

  /** Messages from position `from` on that match. */
  since(from: number, match: Match = () => true): Recorded[] {
    return this.messages.slice(from).filter(match);
  }

  /**
   * The first message from position `from` on that matches, waiting for it at most `ms`. The
   * bound only keeps a broken run from hanging; no test asserts on how long it took.
   */
  waitFor(match: Match, from = 0, ms = 30_000, what = match.description ?? 'matching message'): Promise<Recorded> {
    const seen = this.messages.slice(from).find(match);
    if (seen) return Promise.resolve(seen);
    return new Promise((resolve, reject) => {
      const w = {
        match,
        from,
        resolve: (m: Recorded) => {
          clearTimeout(timer);
          resolve(m);
        },
      };
      const timer = setTimeout(() => {
        this.waiters.delete(w);
        const last = this.messages
          .slice(-8)
          .map((m) => `${m.topic} ${m.text.slice(0, 160)}`)
          .join('\n  ');
        reject(new Error(`no ${what} within ${ms} ms; the last messages were:\n  ${last}`));
      }, ms);
      this.waiters.add(w);
    });
  }

  /** Publishes through the recorder's own connection. */
  async publish(topic: string, body: unknown, retain = false): Promise<void> {
    await this.client.publishAsync(topic, typeof body === 'string' ? body : JSON.stringify(body), { qos: 1, retain });
  }

  async close(): Promise<void> {
    for (const w of this.waiters) this.waiters.delete(w);
    await this.client.endAsync(true);
  }
}

/** Matches a topic, and optionally a predicate on its JSON payload. */
export function on(topic: string, test: (json: any) => boolean = () => true): Match {
  const match: Match = (m) => m.topic === topic && test(m.json);
  match.description = `message on ${topic} where ${test.toString()}`;
  return match;
}

/**
 * The retained message on `topic` now, as a client that subscribes now receives it; waits at
 * most `ms` for it (a bound against a broken run, not a measurement).
 */
export async function retainedOn(url: string, topic: string, ms = 10_000): Promise<Recorded> {
  const rec = await MqttRecorder.start(url, [topic]);
  try {
    return await rec.waitFor((m) => m.retained, 0, ms, `retained message on ${topic}`);
  } finally {
    await rec.close();
  }
}

/**
 * The retained message on `topic` now, or undefined when there is none, without waiting out a
 * timeout: the broker (aedes) sends the retained messages of one SUBSCRIBE filter by filter, in
 * order, so a barrier retained on a topic of its own and subscribed after `topic` comes after
 * whatever `topic` holds.
 */
export async function retainedNow(url: string, topic: string, ms = 10_000): Promise<Recorded | undefined> {
  const barrier = `opencube-test/barrier/${process.pid}-${Math.random().toString(16).slice(2, 10)}`;
  const writer = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  try {
    await writer.publishAsync(barrier, 'barrier', { qos: 1, retain: true });
    const rec = await MqttRecorder.start(url, [topic, barrier]);
    try {
      const end = await rec.waitFor((m) => m.topic === barrier, 0, ms, `the barrier retained on ${barrier}`);
      return rec.messages.slice(0, end.seq).find((m) => m.topic === topic && m.retained);
    } finally {
      await rec.close();
    }
  } finally {
    await writer.publishAsync(barrier, '', { qos: 1, retain: true });
    await writer.endAsync(true);
  }
}
