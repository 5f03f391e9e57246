/**
 * Zigbee benchmarks (issue 5), with the simulated network of 200 devices on 127.0.0.1, arranged
 * as a home runs it: the broker (Debian's mosquitto), the simulated Zigbee2MQTT
 * (bench/zigbee-sim-process.ts) and the gateway each in a process of its own, so that the
 * gateway's work does not share a thread with the broker that also carries the baselines:
 *  1. A Zigbee2MQTT state message to event-stream delivery, with 100 stream clients: p50/p99 of
 *     publish -> the LAST of the 100 clients has the event, against a bare MQTT subscriber of the
 *     same topic receiving the same message (measured in the same run, same messages).
 *  2. D4 to the Zigbee2MQTT `/set` publish: PUT devices/{serial} -> a subscriber (standing for
 *     Zigbee2MQTT) sees the `/set` message, against a direct MQTT publish -> the same subscriber;
 *     the HTTP client, the publisher and the subscriber in a process of their own
 *     (bench/zigbee-client.ts), as an app and Zigbee2MQTT are. A second baseline, a bare node:http
 *     relay in the gateway's process that publishes the `/set` for each PUT, measures the HTTP hop
 *     that any gateway adds, so that what is the gateway's own shows apart from it.
 * Ratios are gateway / baseline latency (lower is better); raw figures in ms for context.
 */
import { createServer } from 'node:http';
import mqtt from 'mqtt';
import { noDelay } from '../src/lib/mqtt.ts';
import { startMosquitto } from '../test/homeassistant/mosquitto.ts';
import {
  epochNow,
  listen,
  percentile,
  report,
  runInChild,
  startBenchGateway,
  startSimZigbee2mqtt,
  startStreamClients,
} from './lib.ts';

const CLIENTS = Number(process.env.BENCH_SSE_CLIENTS ?? 100);
const DEVICES = Number(process.env.BENCH_SIM_DEVICES ?? 200);
const MESSAGES = Number(process.env.BENCH_MESSAGES ?? 200);
const BASE = 'zigbee2mqtt';
/** The marker of a message or event: its temperature. */
const TEMPERATURE = /"temperature":(-?[\d.]+)/;

// Without set_tcp_nodelay, mosquitto holds a small message for a subscriber that has not yet
// acknowledged its previous one (Nagle's algorithm against the receiver's delayed ACK): up to
// 40 ms, whoever published it (docs/zigbee.md says to set it at home).
const broker = await startMosquitto(undefined, ['set_tcp_nodelay true']);
const z2m = await startSimZigbee2mqtt(broker.url, BASE, DEVICES);
const gw = await startBenchGateway({ zigbee: { mode: 'z2m', mqtt_url: broker.url, base_topics: BASE } });
const url = gw.url;
const streams = startStreamClients();
const pub = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
const sub = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });

async function json(path: string, init: RequestInit & { token?: string } = {}): Promise<any> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (init.token) headers.authorization = `Bearer ${init.token}`;
  const r = await fetch(`${url}/open-api/v2/rest${path}`, { ...init, headers });
  return r.json();
}

try {
  gw.gateway.tokens.press();
  const token = (await json('/bridge/access_token?app_name=bench')).data.token as string;
  let devices: any[] = [];
  while (devices.length < DEVICES) {
    devices = (await json('/devices', { token })).data.device_list;
    if (devices.length < DEVICES) await new Promise((r) => setTimeout(r, 50));
  }
  const sensor = z2m.devices.find((d) => d.model === 'WSDCGQ11LM');
  const plug = z2m.devices.find((d) => d.model === 'ZNCZ02LM');
  if (!sensor || !plug) throw new Error('fixtures missing');
  const plugSerial = devices.find((d) => d.name === plug.friendly).serial_number as string;

  // ---- 1. state message -> event stream, 100 clients (in their own process) ----
  await streams.open(`${url}/open-api/v2/sse/bridge?access_token=${token}`, CLIENTS, TEMPERATURE);
  const topic = `${BASE}/${sensor.friendly}`;
  await sub.subscribeAsync(topic);
  const bare = new Map<string, () => void>();
  sub.on('message', (_t, p) => {
    const m = TEMPERATURE.exec(p.toString());
    if (m) bare.get(m[1] as string)?.();
  });
  const viaGateway: number[] = [];
  const viaBroker: number[] = [];
  for (let i = 0; i < MESSAGES + 20; i++) {
    // Two decimals (the API's precision) and unique per message: the registry emits only changes.
    const value = (10 + i / 100).toFixed(2);
    const marker = String(Number(value));
    const t0 = epochNow();
    const both = Promise.all([
      streams.delivered(marker).then((arrivals) => Math.max(...arrivals) - t0),
      new Promise<number>((resolve) => bare.set(marker, () => resolve(epochNow() - t0))),
    ]);
    pub.publish(topic, JSON.stringify({ temperature: Number(value), linkquality: 100 }));
    const [g, b] = await both;
    bare.delete(marker);
    if (i >= 20) {
      viaGateway.push(g);
      viaBroker.push(b);
    }
  }
  const g50 = percentile(viaGateway, 50);
  const g99 = percentile(viaGateway, 99);
  const b50 = percentile(viaBroker, 50);
  const b99 = percentile(viaBroker, 99);
  report(
    `zigbee state -> event stream (${CLIENTS} clients, ${DEVICES} devices), p50 vs bare MQTT subscriber`,
    g50 / b50,
    { gateway_p50_ms: g50, gateway_p99_ms: g99, bare_p50_ms: b50, bare_p99_ms: b99, messages: MESSAGES },
  );
  report(`zigbee state -> event stream, p99 vs bare MQTT subscriber`, g99 / b99, {
    gateway_p99_ms: g99,
    bare_p99_ms: b99,
  });

  // ---- 2. D4 -> /set publish ----
  // The bare relay: what a gateway at the least does for a D4 (read the body, publish, answer).
  const relayTopic = `${BASE}/bench/relay/set`;
  const relayMqtt = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
  noDelay(relayMqtt);
  const relay = createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => {
      body += c;
    });
    req.on('end', () => {
      const on = (JSON.parse(body) as any).state.power.powerState === 'on';
      relayMqtt.publish(relayTopic, JSON.stringify({ state: on ? 'ON' : 'OFF' }));
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"error":0,"data":{},"message":"success"}');
    });
  });
  const relayUrl = await listen(relay);
  let d4: { toSet: number[]; answer: number[]; direct: number[]; relay: number[] };
  try {
    d4 = await runInChild<{ toSet: number[]; answer: number[]; direct: number[]; relay: number[] }>(
      'zigbee-client.ts',
      {
        url,
        token,
        serial: plugSerial,
        mqttUrl: broker.url,
        setTopic: `${BASE}/${plug.friendly}/set`,
        probeTopic: `${BASE}/bench/probe`,
        relayUrl,
        relayTopic,
        rounds: 300,
        warmup: 30,
      },
    );
  } finally {
    relay.closeAllConnections();
    relay.close();
    await relayMqtt.endAsync();
  }
  const s50 = percentile(d4.toSet, 50);
  const p50 = percentile(d4.direct, 50);
  report(
    'zigbee D4 -> /set publish, p50 vs direct MQTT publish',
    s50 / p50,
    {
      d4_to_set_p50_ms: s50,
      d4_to_set_p99_ms: percentile(d4.toSet, 99),
      direct_p50_ms: p50,
      direct_p99_ms: percentile(d4.direct, 99),
      d4_answer_p50_ms: percentile(d4.answer, 50),
      d4_answer_p99_ms: percentile(d4.answer, 99),
      rounds: d4.toSet.length,
    },
    '<= 2',
  );
  const r50 = percentile(d4.relay, 50);
  report('zigbee D4 -> /set publish, p50 vs a bare node:http relay publishing the /set', s50 / r50, {
    d4_to_set_p50_ms: s50,
    relay_p50_ms: r50,
    relay_p99_ms: percentile(d4.relay, 99),
    relay_over_direct: r50 / p50,
  });
} finally {
  await streams.close();
  await pub.endAsync();
  await sub.endAsync();
  await gw.stop();
  await z2m.stop();
  await broker.stop();
}
