/**
 * The client of the Zigbee D4 benchmark (bench/zigbee.bench.ts), in its own process as an app
 * and Zigbee2MQTT are: an HTTP client that sends D4 to the gateway and an MQTT client of the same
 * broker that plays Zigbee2MQTT, subscribed to the device's `/set` and to a probe topic. Per
 * round: the time from sending the D4 to the `/set` arriving (and to the D4's answer), then the
 * time from publishing a probe message itself to its arrival (the direct publish), each after
 * 20 ms for the gateway to settle. Answers over
 * IPC with the three lists of milliseconds.
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
  rounds: number;
  warmup: number;
}

const settle = () => new Promise((r) => setTimeout(r, 20));

async function run(job: Job) {
  const pool = new Pool(job.url, { connections: 1, pipelining: 1 });
  const client = await mqtt.connectAsync(job.mqttUrl, { reconnectPeriod: 0 });
  await client.subscribeAsync([job.setTopic, job.probeTopic]);
  let onSet: (() => void) | undefined;
  let onProbe: (() => void) | undefined;
  client.on('message', (topic) => {
    if (topic === job.setTopic) onSet?.();
    else if (topic === job.probeTopic) onProbe?.();
  });
  const toSet: number[] = [];
  const answer: number[] = [];
  const direct: number[] = [];
  const headers = { authorization: `Bearer ${job.token}`, 'content-type': 'application/json' };
  try {
    for (let i = 0; i < job.rounds + job.warmup; i++) {
      // Each measurement starts on a quiet gateway: what a D4 sets off after its answer (the
      // device's new state, fanned out to the streams) would otherwise weigh on the next one.
      await settle();
      const t0 = performance.now();
      const seenSet = new Promise<number>((resolve) => {
        onSet = () => resolve(performance.now() - t0);
      });
      const answered = pool
        .request({
          method: 'PUT',
          path: `/open-api/v2/rest/devices/${job.serial}`,
          headers,
          body: JSON.stringify({ state: { power: { powerState: i % 2 ? 'on' : 'off' } } }),
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
      if (i >= job.warmup) {
        toSet.push(s);
        answer.push(a);
        direct.push(p);
      }
    }
  } finally {
    await client.endAsync();
    await pool.close();
  }
  return { toSet, answer, direct };
}

process.once('message', (job: Job) => {
  run(job).then(
    (result) => process.send?.({ ok: true, result }, () => process.disconnect()),
    (err) => process.send?.({ ok: false, error: String(err) }, () => process.disconnect()),
  );
});
