/**
 * The client of the Zigbee D4 benchmark (bench/zigbee.bench.ts), in its own process as an app
 * and Zigbee2MQTT are: an HTTP client that sends D4 to the gateway and an MQTT client of the same
 * broker that plays Zigbee2MQTT, subscribed to the device's `/set` and to a probe topic. Per
 * round: the time from sending the D4 to the `/set` arriving (and to the D4's answer), then the
 * time from publishing a probe message itself to its arrival (the direct publish), and the time
 * from sending the same PUT to a bare node:http relay (which publishes the `/set` and answers)
 * to the relay's `/set` arriving, each after 20 ms for the gateway to settle. Answers over IPC
 * with the four lists of milliseconds.
 */
import mqtt from 'mqtt';
import { Pool } from 'undici';

interface Job {
  url: string;
  token: string;
  serial: string;
  mqttUrl: string;
  setTopic: string;
  probeTopic: string;
  /** The bare relay's origin; it publishes to `relayTopic`. */
  relayUrl: string;
  relayTopic: string;
  rounds: number;
  warmup: number;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

async function run(job: Job) {
  const pool = new Pool(job.url, { connections: 1, pipelining: 1 });
  const relayPool = new Pool(job.relayUrl, { connections: 1, pipelining: 1 });
  const client = await mqtt.connectAsync(job.mqttUrl, { reconnectPeriod: 0 });
  await client.subscribeAsync([job.setTopic, job.probeTopic, job.relayTopic]);
  let onSet: (() => void) | undefined;
  let onProbe: (() => void) | undefined;
  let onRelayed: (() => void) | undefined;
  client.on('message', (topic) => {
    if (topic === job.setTopic) onSet?.();
    else if (topic === job.probeTopic) onProbe?.();
    else if (topic === job.relayTopic) onRelayed?.();
  });
  const toSet: number[] = [];
  const answer: number[] = [];
  const direct: number[] = [];
  const relay: number[] = [];
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' };
  try {
    for (let i = 0; i < job.rounds + job.warmup; i++) {
      // Each measurement starts on a quiet gateway: what a D4 sets off after its answer (the
      // device's new state, fanned out to the streams) would otherwise weigh on the next one.
      await settle();
      const body = JSON.stringify({ state: { power: { powerState: i % 2 ? 'on' : 'off' } } });
      const t0 = performance.now();
      const seenSet = new Promise<number>((resolve) => {
        onSet = () => resolve(performance.now() - t0);
      });
      const answered = pool
        .request({
          method: 'PUT',
          path: `/open-api/v2/rest/devices/${job.serial}`,
          headers,
          body,
        })
        .then(async (res) => {
          const text = await res.body.text();
          if (!text.includes('"error":0')) throw new Error(`D4 failed: ${text}`);
          return performance.now() - t0;
        });
      const [s, a] = await Promise.all([seenSet, answered]);
      await settle();
      const t1 = performance.now();
      const probe = new Promise<number>((resolve) => {
        onProbe = () => resolve(performance.now() - t1);
      });
      client.publish(job.probeTopic, JSON.stringify({ state: 'ON' }));
      const p = await probe;
      await settle();
      const t2 = performance.now();
      const relayed = new Promise<number>((resolve) => {
        onRelayed = () => resolve(performance.now() - t2);
      });
      const relayAnswered = relayPool
        .request({ method: 'PUT', path: `/open-api/v2/rest/devices/${job.serial}`, headers, body })
        .then((res) => res.body.text());
      const [r] = await Promise.all([relayed, relayAnswered]);
      if (i >= job.warmup) {
        toSet.push(s);
        answer.push(a);
        direct.push(p);
        relay.push(r);
      }
    }
  } finally {
    await client.endAsync();
    await pool.close();
    await relayPool.close();
  }
  return { toSet, answer, direct, relay };
}

process.once('message', (job: Job) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.disconnect()),
    (err) => process.send?.({ ok: false, error: String(err) }, () => process.disconnect()),
  );
});
