/**
 * One gateway for the Zigbee memory benchmark (bench/herdsman.bench.ts), in a process of its own
 * so that its resident memory is its own: in `herdsman` mode on the fake coordinator (which runs
 * in this process, as a USB adapter's driver would), in `z2m` mode against the broker of a real
 * Zigbee2MQTT, or with Zigbee off. It reports its memory once every device is online and read,
 * then waits for `stop`.
 */
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { listDevices, startGateway, type TestGateway, tempDir } from '../test/helpers/foundation.ts';
import { herdsmanDatabase } from '../test/z2m/fake/database.ts';
import { loadHerdsman } from '../test/z2m/fake/herdsman.ts';
import { FakeZigbeeNetwork } from '../test/z2m/fake/network.ts';
import { manyFakeDevices } from './zigbee-fleet.ts';

interface Job {
  mode: 'herdsman' | 'z2m' | 'off';
  devices: number;
  mqttUrl?: string;
  baseTopic?: string;
}

const job = JSON.parse(process.argv[2] ?? '{}') as Job;
const gc = (globalThis as { gc?: () => void }).gc ?? (() => {});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

let net: FakeZigbeeNetwork | undefined;
let dataDir: string | undefined;
let g: TestGateway;
if (job.mode === 'herdsman') {
  const zh = loadHerdsman(dirname(createRequire(import.meta.url).resolve('zigbee-herdsman/package.json')));
  const devices = manyFakeDevices(job.devices);
  net = new FakeZigbeeNetwork({ zh, devices, noAnswerMs: 500 });
  dataDir = tempDir('opencube-bench-herdsman-');
  mkdirSync(join(dataDir, 'zigbee'));
  writeFileSync(join(dataDir, 'zigbee', 'database.db'), herdsmanDatabase(devices, zh));
  const fake = net;
  g = await startGateway({
    dataDir,
    overrides: {
      log_level: 'warn',
      zigbee: { mode: 'herdsman', serial_port: '/dev/fake-zigbee-coordinator', adapter: 'zstack' },
    },
    gatewayOptions: { drivers: { herdsman: { adapterFactory: async (n) => fake.createAdapter(n as never) } } },
  });
} else if (job.mode === 'z2m') {
  g = await startGateway({
    overrides: { log_level: 'warn', zigbee: { mode: 'z2m', mqtt_url: job.mqttUrl, base_topics: job.baseTopic } },
  });
} else g = await startGateway({ overrides: { log_level: 'warn' } });

const token = g.token();
const until = Date.now() + 180_000;
for (;;) {
  const online = (await listDevices(g.url, token)).filter((d) => d.online).length;
  if (online >= job.devices) break;
  if (Date.now() > until) throw new Error(`only ${online} of ${job.devices} devices online`);
  await sleep(200);
}
// Configuration and read-back of every device done, and what they allocated collected.
await sleep(5000);
gc();
gc();
await sleep(200);
const m = process.memoryUsage();
process.send?.({ rss: m.rss, heapUsed: m.heapUsed });
process.on('message', async (msg) => {
  if (msg !== 'stop') return;
  await g.stop();
  net?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  process.exit(0);
});
