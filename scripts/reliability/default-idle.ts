/**
 * The default gateway left alone (issue 23): `npm start` itself, the command a newcomer runs, with
 * the simulated Zigbee network, its own data folder and port, idle for `idleMs` with nothing
 * touching it; then every device must be online, `/ready` ready, and a light must switch on and
 * off through the Open API with a token obtained the way clients get one. The log it wrote
 * meanwhile must not say that anything went offline. The quick run shortens the network's
 * keep-alive and broker heartbeat (`--zigbee-sim-keepalive-seconds`) so that its half minute
 * crosses as many of their periods as the full run's 15 minutes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ROOT } from '../../test/helpers/cli.ts';
import { spawnGroup } from '../../test/helpers/process-group.ts';
import { linkToken } from './gateway-process.ts';

export interface DefaultIdleOptions {
  idleMs: number;
  /** `--zigbee-sim-keepalive-seconds` (the default, 60, when not given). */
  keepaliveSeconds?: number;
  log?: (line: string) => void;
}

export interface DefaultIdleResult {
  idleSeconds: number;
  devices: number;
  online: number;
  ready: boolean;
  /** The light switched on, then off, and the device list showed each. */
  lightSwitched: boolean;
  /** Lines of the gateway's log that say something went offline or away. */
  offlineLines: string[];
}

const OFFLINE = /instance offline|device offline|MQTT broker unreachable|MQTT error/;

async function api(base: string, token: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(`${base}/open-api/v2/rest/${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(10_000),
  });
  return res.json();
}

/** Runs the default gateway idle, checks it, and stops it (by its process group). */
export async function runDefaultIdle(opts: DefaultIdleOptions): Promise<DefaultIdleResult> {
  const dir = mkdtempSync(join(tmpdir(), 'opencube-idle-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OPENCUBE_') && !k.startsWith('npm_')) env[k] = v;
  env.OPENCUBE_DATA_DIR = join(dir, 'data');
  env.OPENCUBE_PORT = String(port);
  // In the private network namespace of the soak mDNS reaches nothing; elsewhere it stays off.
  if (process.env.OPENCUBE_PRIVATE_NETWORK !== '1') env.OPENCUBE_MDNS = 'false';
  const flags = opts.keepaliveSeconds ? ['--zigbee-sim-keepalive-seconds', String(opts.keepaliveSeconds)] : [];
  const g = spawnGroup('npm', ['start', ...(flags.length > 0 ? ['--', ...flags] : [])], { cwd: ROOT, env });
  const base = `http://127.0.0.1:${port}`;
  try {
    const until = Date.now() + 180_000;
    while (!/opencube listening on /.test(g.stdout())) {
      if (g.exited() || Date.now() > until)
        throw new Error(`npm start did not listen\nstdout:\n${g.stdout()}\nstderr:\n${g.stderr().slice(-3000)}`);
      await new Promise((r) => setTimeout(r, 100));
    }
    const token = await linkToken({ url: base, dataDir: env.OPENCUBE_DATA_DIR });
    const list = async () => ((await api(base, token, 'GET', 'devices')).data?.device_list ?? []) as any[];
    // The network comes up after the gateway listens: wait for it before the idle time starts.
    const upBy = Date.now() + 60_000;
    while (!(await list()).some((d) => d.online) && Date.now() < upBy) await new Promise((r) => setTimeout(r, 200));
    opts.log?.(`npm start listening on ${base}; idle for ${Math.round(opts.idleMs / 1000)} s`);
    const idleFrom = Date.now();
    await new Promise((r) => setTimeout(r, opts.idleMs));
    const idleSeconds = Math.round((Date.now() - idleFrom) / 1000);

    const devices = await list();
    const ready = (await fetch(`${base}/ready`, { signal: AbortSignal.timeout(10_000) })).status === 200;
    const light = devices.find((d) => d.display_category === 'light');
    let lightSwitched = false;
    if (light) {
      lightSwitched = true;
      for (const powerState of ['on', 'off']) {
        const r = await api(base, token, 'PUT', `devices/${light.serial_number}`, { state: { power: { powerState } } });
        const after = (await list()).find((d) => d.serial_number === light.serial_number);
        if (r.error !== 0 || after?.state?.power?.powerState !== powerState) lightSwitched = false;
      }
    }
    return {
      idleSeconds,
      devices: devices.length,
      online: devices.filter((d) => d.online).length,
      ready,
      lightSwitched,
      offlineLines: g
        .stderr()
        .split('\n')
        .filter((l) => OFFLINE.test(l)),
    };
  } finally {
    // npm, its shell and the gateway all stop; the data folder goes once none is left.
    await g.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
