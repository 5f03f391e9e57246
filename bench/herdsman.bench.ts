/**
 * Resident memory of Zigbee with 50 devices, the two ways (issue 14):
 * - `herdsman` mode: the gateway alone drives the coordinator (zigbee-herdsman and the converters
 *   loaded in the gateway), the fake coordinator standing in for the USB adapter;
 * - `z2m` mode: the gateway beside a real Zigbee2MQTT 2.14.1 on the same fake coordinator, over
 *   an MQTT broker: the gateway's memory plus Zigbee2MQTT's.
 * Each gateway runs in a process of its own, measured once its 50 devices are online and read;
 * Zigbee2MQTT is measured from /proc. The ratio is herdsman mode / z2m mode (gateway +
 * Zigbee2MQTT); lower is less memory. Zigbee2MQTT runs here with the fake coordinator preloaded
 * through tsx (its loader's own memory is printed for context), and the broker, which z2m mode
 * also needs (often mosquitto, a few MB), is not counted.
 */
import { type ChildProcess, fork, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBroker } from '../src/drivers/zigbee-sim/index.ts';
import { startRealZigbee2mqtt } from '../test/z2m/real-z2m.ts';
import { report } from './lib.ts';
import { manyFakeDevices } from './zigbee-fleet.ts';

const DEVICES = Number(process.env.BENCH_ZIGBEE_DEVICES ?? 50);
const here = dirname(fileURLToPath(import.meta.url));
const MB = 1024 * 1024;

/** Starts a gateway process; resolves with its memory once its devices are online, and a way to stop it. */
async function gateway(
  job: Record<string, unknown>,
): Promise<{ rss: number; heapUsed: number; stop(): Promise<void> }> {
  const child: ChildProcess = fork(join(here, 'zigbee-memory-gateway.ts'), [JSON.stringify(job)], {
    execArgv: ['--import', 'tsx', '--expose-gc'],
    stdio: 'inherit',
  });
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  const m = await new Promise<{ rss: number; heapUsed: number }>((resolve, reject) => {
    child.once('message', (x) => resolve(x as { rss: number; heapUsed: number }));
    child.once('exit', (code) => reject(new Error(`the ${String(job.mode)} gateway exited (${code})`)));
  });
  return {
    ...m,
    async stop() {
      child.send('stop');
      await exited;
    },
  };
}

/** Resident memory of a process, from /proc (Linux). */
function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) * 1024;
}

/** Resident memory of an idle node with the tsx loader (what Zigbee2MQTT's preload adds at least). */
async function tsxIdle(): Promise<number> {
  const child = spawn(process.execPath, ['--import', 'tsx/esm', '-e', 'setTimeout(() => {}, 60000)'], {
    stdio: 'ignore',
  });
  await new Promise((r) => setTimeout(r, 1500));
  const rss = rssOf(child.pid as number);
  child.kill();
  return rss;
}

const off = await gateway({ mode: 'off', devices: 0 });
const empty = off.rss;
await off.stop();

const herdsman = await gateway({ mode: 'herdsman', devices: DEVICES });
await herdsman.stop();

const broker = await startBroker();
const z2m = await startRealZigbee2mqtt({
  mqttUrl: broker.url,
  baseTopic: 'zigbee2mqtt',
  devices: manyFakeDevices(DEVICES),
  startTimeoutMs: 180_000,
});
let viaZ2m: Awaited<ReturnType<typeof gateway>> | undefined;
let z2mRss = 0;
try {
  viaZ2m = await gateway({ mode: 'z2m', devices: DEVICES, mqttUrl: broker.url, baseTopic: 'zigbee2mqtt' });
  z2mRss = rssOf(z2m.pid);
} finally {
  await viaZ2m?.stop();
  await z2m.stop();
  await broker.close();
}
const loader = await tsxIdle();
const gatewayZ2m = viaZ2m?.rss ?? 0;
report(
  `memory with ${DEVICES} Zigbee devices, herdsman mode / z2m mode (gateway + Zigbee2MQTT)`,
  herdsman.rss / (gatewayZ2m + z2mRss),
  {
    herdsman_mode_mb: herdsman.rss / MB,
    z2m_mode_total_mb: (gatewayZ2m + z2mRss) / MB,
    z2m_mode_gateway_mb: gatewayZ2m / MB,
    zigbee2mqtt_mb: z2mRss / MB,
    gateway_zigbee_off_mb: empty / MB,
    herdsman_heap_mb: herdsman.heapUsed / MB,
    tsx_idle_node_mb: loader / MB,
  },
);
report(
  `memory with ${DEVICES} Zigbee devices, herdsman-mode gateway / z2m-mode gateway (the gateway process alone)`,
  herdsman.rss / gatewayZ2m,
  {
    herdsman_mode_mb: herdsman.rss / MB,
    z2m_mode_gateway_mb: gatewayZ2m / MB,
  },
);
