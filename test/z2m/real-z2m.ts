/**
 * Runs the real Zigbee2MQTT (installed by ensure.ts) as a child process, with the fake
 * coordinator preloaded in place of a USB adapter: everything above the adapter is real
 * (herdsman's interview and database, the converters, Zigbee2MQTT's extensions and MQTT API).
 */
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import mqtt from 'mqtt';
import { ensureZigbee2mqtt } from './ensure.ts';
import { herdsmanDatabase } from './fake/database.ts';
import { FAKE_DEVICES } from './fake/devices.ts';
import { loadHerdsman } from './fake/herdsman.ts';
import { DEFAULT_HOOK_PREFIX } from './fake/mqtt-hooks.ts';
import type { FakePreloadConfig } from './fake/preload-config.ts';
import type { FakeDeviceSpec } from './fake/spec.ts';

export interface RealZigbee2mqttOptions {
  mqttUrl: string;
  baseTopic: string;
  /** Zigbee2MQTT's data folder; a new one under the system temp folder by default (outside any git repository). */
  dataDir?: string;
  /** The fake network; FAKE_DEVICES by default. */
  devices?: readonly FakeDeviceSpec[];
  /** Prefix of the fake's MQTT hooks (see fake/mqtt-hooks.ts). */
  hookPrefix?: string;
  /** A device not heard from this long is pinged (mains) or taken offline (battery). */
  availabilityTimeoutSeconds?: number;
  /** How long a request to a device that does not answer takes to fail. */
  noAnswerMs?: number;
  /** Extra Zigbee2MQTT settings, merged over the ones written here. */
  settings?: Record<string, unknown>;
  /** Bound on start-up (until Zigbee2MQTT says it started). */
  startTimeoutMs?: number;
}

export interface RealZigbee2mqtt {
  pid: number;
  dataDir: string;
  /** Zigbee2MQTT's output (its console log, and anything it printed before crashing). */
  logPath: string;
  hookPrefix: string;
  baseTopic: string;
  /** Resolves when the process has exited (its code, or the signal that ended it). */
  exited: Promise<number | string>;
  /** Stops it gracefully (SIGTERM, so it publishes bridge/state offline), then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
  /** Ends it at once (SIGKILL): no graceful stop, the broker publishes its will. */
  kill(): Promise<void>;
}

/** A fixed network (key, PAN id, channel) so that every run forms the same one. */
const NETWORK = {
  network_key: [1, 3, 5, 7, 9, 11, 13, 15, 0, 2, 4, 6, 8, 10, 12, 13],
  pan_id: 0x1a62,
  ext_pan_id: [0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd, 0xdd],
  channel: 15,
};

const isObj = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function merge(base: Record<string, unknown>, over: Record<string, unknown>): Record<string, unknown> {
  const out = { ...base };
  for (const [k, v] of Object.entries(over)) out[k] = isObj(v) && isObj(out[k]) ? merge(out[k], v) : v;
  return out;
}

/** IEEE addresses of the devices in a herdsman database file. */
function ieeesIn(db: string): Set<string> {
  const out = new Set<string>();
  for (const line of db.split('\n')) {
    try {
      const entry = JSON.parse(line) as { ieeeAddr?: unknown; type?: unknown };
      if (typeof entry.ieeeAddr === 'string' && entry.type !== 'Coordinator') out.add(entry.ieeeAddr);
    } catch {
      // an empty or damaged line: herdsman skips it too
    }
  }
  return out;
}

function tail(path: string, lines = 30): string {
  try {
    return readFileSync(path, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no output)';
  }
}

/**
 * Starts Zigbee2MQTT with the fake coordinator and waits until it is up: bridge/state online and
 * "Zigbee2MQTT started!" logged on bridge/logging (so `settings` must keep log_level info or debug).
 */
export async function startRealZigbee2mqtt(opts: RealZigbee2mqttOptions): Promise<RealZigbee2mqtt> {
  const install = await ensureZigbee2mqtt();
  const hookPrefix = opts.hookPrefix ?? DEFAULT_HOOK_PREFIX;
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'opencube-z2m-'));
  mkdirSync(dataDir, { recursive: true });
  // A data folder used before (a restart) keeps herdsman's database: the devices in it are the
  // ones in the network, whatever the descriptions say about being paired at start.
  const dbPath = join(dataDir, 'database.db');
  const inNetwork = existsSync(dbPath) ? ieeesIn(readFileSync(dbPath, 'utf8')) : undefined;
  const devices = (opts.devices ?? FAKE_DEVICES).map((d) => (inNetwork ? { ...d, paired: inNetwork.has(d.ieee) } : d));
  const confPath = join(dataDir, 'configuration.yaml');
  // Zigbee2MQTT rewrites its configuration as YAML (e.g. when a device joins): read it with its own parser.
  const yaml = createRequire(install.entry)('js-yaml') as { load(text: string): unknown };
  const previous = existsSync(confPath) ? yaml.load(readFileSync(confPath, 'utf8')) : undefined;
  const knownDevices = isObj(previous) && isObj(previous.devices) ? previous.devices : {};
  const availability = opts.availabilityTimeoutSeconds ?? 5;

  const settings = merge(
    {
      version: 5,
      homeassistant: { enabled: false },
      frontend: { enabled: false },
      mqtt: { base_topic: opts.baseTopic, server: opts.mqttUrl, keepalive: 10 },
      // The port is never opened: the fake coordinator replaces the adapter.
      serial: { port: '/dev/fake-zigbee-coordinator', adapter: 'zstack' },
      advanced: { ...NETWORK, log_level: 'info', log_output: ['console'], last_seen: 'disable' },
      // Zigbee2MQTT's own minimum is one minute; per-device options (device_options) take fractions.
      availability: { enabled: true, active: { timeout: 1 }, passive: { timeout: 1500 } },
      device_options: { availability: { timeout: availability / 60, max_jitter: 1000, backoff: false } },
      ota: { disable_automatic_update_check: true },
      onboarding: false,
      devices: {
        ...knownDevices,
        ...Object.fromEntries(
          devices.filter((d) => d.paired && !knownDevices[d.ieee]).map((d) => [d.ieee, { friendly_name: d.name }]),
        ),
      },
    },
    opts.settings ?? {},
  );
  // YAML is a superset of JSON: Zigbee2MQTT reads this as its configuration.yaml.
  writeFileSync(confPath, `${JSON.stringify(settings, null, 2)}\n`);
  if (!inNetwork) writeFileSync(dbPath, herdsmanDatabase(devices, loadHerdsman(install.herdsmanDir)));
  const config: FakePreloadConfig = {
    herdsmanDir: install.herdsmanDir,
    mqttUrl: opts.mqttUrl,
    hookPrefix,
    network: {
      devices,
      noAnswerMs: opts.noAnswerMs ?? 500,
      // Sleepy devices check in often enough to stay available under the short timeout.
      heartbeatMs: Math.round((availability * 1000) / 2.5),
    },
  };
  const configPath = join(dataDir, 'fake-zigbee.json');
  writeFileSync(configPath, JSON.stringify(config));

  // Zigbee2MQTT publishes bridge/state "online" as soon as it reaches the broker, before its
  // extensions listen: a /set sent then is dropped. "Zigbee2MQTT started!" (on bridge/logging)
  // comes once every extension runs. Only live messages count, not ones retained by an earlier run.
  const watcher = mqtt.connect(opts.mqttUrl, { clientId: `z2m-start-${process.pid}-${Date.now()}` });
  watcher.on('error', () => {});
  await new Promise<void>((resolve, reject) => {
    watcher.once('connect', () => resolve());
    watcher.once('error', reject);
  });
  const online = { bridge: false, hooks: false };
  let onUp: () => void = () => {};
  const up = new Promise<void>((resolve) => {
    onUp = resolve;
  });
  watcher.on('message', (topic, payload, packet) => {
    if (packet.retain) return;
    const text = payload.toString();
    if (topic === `${opts.baseTopic}/bridge/logging` && text.includes('Zigbee2MQTT started!')) online.bridge = true;
    if (topic === `${hookPrefix}/status` && text === 'online') online.hooks = true;
    if (online.bridge && online.hooks) onUp();
  });
  await watcher.subscribeAsync([`${opts.baseTopic}/bridge/logging`, `${hookPrefix}/status`]);

  const logPath = join(dataDir, 'zigbee2mqtt.log');
  const out = openSync(logPath, 'a');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    ZIGBEE2MQTT_DATA: dataDir,
    Z2M_ONBOARD_NO_SERVER: '1',
    FAKE_ZIGBEE_CONFIG: configPath,
  };
  delete env.NODE_TEST_CONTEXT;
  delete env.NODE_OPTIONS;
  const child = spawn(
    process.execPath,
    [
      '--import',
      import.meta.resolve('tsx/esm'),
      '--import',
      new URL('./fake/preload.ts', import.meta.url).href,
      install.entry,
    ],
    // Its data folder is the working directory: outside a git repository it does not try to rebuild itself.
    { cwd: dataDir, env, stdio: ['ignore', out, out] },
  );
  closeSync(out);
  const pid = child.pid;
  if (pid === undefined) {
    await watcher.endAsync(true);
    throw new Error('Zigbee2MQTT did not start (no pid)');
  }
  const exited = new Promise<number | string>((resolve) => {
    child.once('exit', (code, signal) => resolve(code ?? `signal ${signal}`));
  });

  const signal = (sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // already gone
    }
  };
  let done = false;
  void exited.then(() => {
    done = true;
  });
  const stop = async (graceMs = 15_000) => {
    if (done) return;
    signal('SIGTERM');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<'late'>((r) => {
      timer = setTimeout(() => r('late'), graceMs);
    });
    const result = await Promise.race([exited, late]);
    clearTimeout(timer);
    if (result === 'late') {
      signal('SIGKILL');
      await exited;
    }
  };
  const kill = async () => {
    if (done) return;
    signal('SIGKILL');
    await exited;
  };

  const startMs = opts.startTimeoutMs ?? 90_000;
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    up.then(() => 'up' as const),
    exited.then((code) => ({ exited: code })),
    new Promise<'timeout'>((r) => {
      timer = setTimeout(() => r('timeout'), startMs);
    }),
  ]);
  clearTimeout(timer);
  await watcher.endAsync(true);
  if (outcome !== 'up') {
    await kill();
    const why =
      outcome === 'timeout' ? `was not up within ${startMs} ms` : `exited (${outcome.exited}) before it was up`;
    throw new Error(`Zigbee2MQTT ${why}; its log (${logPath}) ends with:\n${tail(logPath)}`);
  }
  return { pid, dataDir, logPath, hookPrefix, baseTopic: opts.baseTopic, exited, stop, kill };
}
