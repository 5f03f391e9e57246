/**
 * Installs the real Zigbee2MQTT from the npm registry, at test time, into `<repo>/.cache/`
 * (ignored by git: Zigbee2MQTT is GPL-3.0 and is never vendored). Several test files may ask at
 * once: a lock directory lets one install while the others wait for it.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The exact Zigbee2MQTT release the tests run (it brings zigbee-herdsman 10.9.2). */
export const ZIGBEE2MQTT_VERSION = '2.14.1';

const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
/** Where the install lives. */
export const ZIGBEE2MQTT_PREFIX = join(REPO, '.cache', `zigbee2mqtt-${ZIGBEE2MQTT_VERSION}`);
/** npm gives up on an unreachable registry well before this; it only bounds a hung install. */
const INSTALL_TIMEOUT_MS = 10 * 60_000;
/** A lock older than this belongs to an install that died. */
const STALE_LOCK_MS = INSTALL_TIMEOUT_MS + 60_000;

export interface EnsureOptions {
  /** Install folder; the shared cache folder by default. */
  prefix?: string;
  /** Environment of npm (e.g. another registry). */
  env?: NodeJS.ProcessEnv;
}

export interface Zigbee2mqttInstall {
  /** The script to run with node (the package's index.js). */
  entry: string;
  /** zigbee-herdsman as Zigbee2MQTT loads it (where the fake coordinator takes the adapter's place). */
  herdsmanDir: string;
}

function installed(prefix: string): Zigbee2mqttInstall | undefined {
  const pkg = join(prefix, 'node_modules', 'zigbee2mqtt', 'package.json');
  if (!existsSync(join(prefix, '.installed')) || !existsSync(pkg)) return undefined;
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version;
  if (version !== ZIGBEE2MQTT_VERSION) return undefined;
  return {
    entry: join(prefix, 'node_modules', 'zigbee2mqtt', 'index.js'),
    herdsmanDir: join(prefix, 'node_modules', 'zigbee-herdsman'),
  };
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/**
 * Returns the installed Zigbee2MQTT, installing it first when missing. Throws an Error that says
 * so plainly when it cannot be installed (no registry): the tests then fail, they never skip.
 */
export async function ensureZigbee2mqtt(opts: EnsureOptions = {}): Promise<Zigbee2mqttInstall> {
  const prefix = opts.prefix ?? ZIGBEE2MQTT_PREFIX;
  const lock = `${prefix}.lock`;
  const ready = installed(prefix);
  if (ready) return ready;
  mkdirSync(dirname(prefix), { recursive: true });
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const done = installed(prefix);
      if (done) return done;
      let age = 0;
      try {
        age = Date.now() - statSync(lock).mtimeMs;
      } catch {
        continue; // the lock went away meanwhile: try to take it
      }
      if (age > STALE_LOCK_MS) rmSync(lock, { recursive: true, force: true });
      else await sleep(500);
    }
  }
  try {
    const done = installed(prefix);
    if (done) return done;
    await install(prefix, opts.env ?? process.env);
    const now = installed(prefix);
    if (!now) throw new Error(`npm reported success but ${prefix} holds no zigbee2mqtt ${ZIGBEE2MQTT_VERSION}`);
    return now;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

async function install(prefix: string, env: NodeJS.ProcessEnv): Promise<void> {
  // Install beside the target and rename, so a half-done install is never taken for a whole one.
  const staging = `${prefix}.staging-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, 'package.json'), '{"private":true}\n');
  const args = [
    'install',
    '--prefix',
    staging,
    '--no-audit',
    '--no-fund',
    '--no-save',
    '--ignore-scripts',
    '--loglevel=error',
    `zigbee2mqtt@${ZIGBEE2MQTT_VERSION}`,
  ];
  const { code, output } = await run('npm', args, env, INSTALL_TIMEOUT_MS);
  if (code !== 0) {
    rmSync(staging, { recursive: true, force: true });
    throw new Error(
      `cannot install zigbee2mqtt@${ZIGBEE2MQTT_VERSION} from the npm registry (needed to run the real Zigbee2MQTT in these tests): ` +
        `npm install exited with ${code}: ${output.trim().split('\n').slice(-8).join(' | ')}`,
    );
  }
  writeFileSync(join(staging, '.installed'), `${ZIGBEE2MQTT_VERSION}\n`);
  rmSync(prefix, { recursive: true, force: true });
  renameSync(staging, prefix);
}

function run(
  cmd: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
): Promise<{ code: number | string; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], env });
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => {
      clearTimeout(timer);
      resolve({ code: err.message, output });
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code: code ?? `signal ${signal}`, output });
    });
  });
}
