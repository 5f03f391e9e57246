/**
 * The Matter bridge's cost in memory, and how it grows with the devices it bridges: the gateway as
 * installed (bin/opencube.js, compiled JavaScript, one process with `--no-supervise`) with the
 * simulated network of 16, 100 and 500 devices, idling with the bridge on, against the same
 * gateway with the same devices and the bridge off (the baseline, measured in the same run). The
 * bridge binds UDP and speaks mDNS, so every gateway runs inside a private network namespace with
 * loopback only (`unshare -n`): nothing reaches a real interface. Without the namespace the bench
 * says so and measures nothing.
 *
 * Resident memory is read from /proc every second from the moment the bridge has started (for the
 * baseline, the moment the gateway answers), for `BENCH_IDLE_MS` (default 90 s). Two readings:
 * - after 15 s (earlier runs of this bench read 15 s after the gateway answered): V8 may still
 *   hold what the bridge's start left behind, garbage not yet collected and a grown young
 *   generation;
 * - at the end: by then V8's memory reducer has usually given most of that back by itself (14 to
 *   63 s after the start here, on a shared machine sometimes later; `reduced_at_s` says when the
 *   memory first dropped by 10 MB or more, or `not seen`). This is what the box holds as the
 *   gateway idles, and the ratio printed.
 * For each size, `BENCH_ROUNDS` rounds (default 1) alternate off and on, the median reported; the
 * sizes are `BENCH_MATTER_DEVICES` (default `16,100,500`).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';
import { GATEWAY_NODE_FLAGS } from '../src/cli/supervisor.ts';
import { controlRequest } from '../src/lib/control-client.ts';
import { canUnshare, runInLoopback } from '../test/helpers/netns.ts';
import { percentile, report } from './lib.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 90_000);
const SIZES = (process.env.BENCH_MATTER_DEVICES ?? '16,100,500').split(',').map(Number);
/** The first reading, as earlier runs of this bench read it. */
const EARLY_MS = 15_000;
/** A drop this large from the highest reading is V8's memory reducer at work. */
const REDUCED = 10 * 1024 * 1024;
/** The bridge starts after the gateway listens; it is waited for this long. */
const BRIDGE_START_MS = 120_000;
const TARGET_ADDED_MB = 40;
const MB = 1024 * 1024;

if (process.env.OPENCUBE_BENCH_NETNS !== '1') {
  if (!canUnshare) {
    console.log(
      'matter: skipped: unshare -n is not permitted here (needs root); the bridge is never run on a real interface',
    );
    process.exit(0);
  }
  const self = fileURLToPath(import.meta.url);
  const r = runInLoopback([self], { stdio: 'inherit', env: { ...process.env, OPENCUBE_BENCH_NETNS: '1' } });
  process.exit(r.status ?? 1);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

function alive(child: ChildProcess): void {
  if (child.exitCode !== null || child.signalCode !== null)
    throw new Error(`the gateway exited (${child.exitCode ?? child.signalCode})`);
}

async function answered(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    alive(child);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/open-api/v2/rest/bridge`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await sleep(50);
  }
}

interface BridgeAnswer {
  enabled: boolean;
  starting?: boolean;
  running?: boolean;
  devices?: number;
}

/** Waits until the bridge runs (it starts after the gateway listens); resolves with the devices it bridges. */
async function bridgeStarted(socket: string, child: ChildProcess): Promise<number> {
  const until = Date.now() + BRIDGE_START_MS;
  for (;;) {
    alive(child);
    const r = await controlRequest<BridgeAnswer>(socket, 'GET', '/matter').catch(() => undefined);
    if (r?.enabled && !r.starting && r.running) return r.devices ?? 0;
    if (Date.now() > until) throw new Error('the Matter bridge did not start');
    await sleep(250);
  }
}

interface Reading {
  /** Resident memory 15 s after the start, and at the end of the idle time. */
  early: number;
  end: number;
  /** When it first dropped by 10 MB or more from its highest (V8's memory reducer), in s; undefined: never. */
  reducedAt?: number;
  /** Bridged devices (the bridge's own count; 0 with it off). */
  bridged: number;
}

/** Starts a gateway with `devices` simulated devices and reads its memory every second as it idles. */
async function measure(matter: boolean, devices: number, port: number): Promise<Reading> {
  const dataDir = mkdtempSync(join(tmpdir(), 'opencube-bench-matter-'));
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('OPENCUBE_')));
  const child = spawn(
    process.execPath,
    [
      ...GATEWAY_NODE_FLAGS,
      join(ROOT, 'bin', 'opencube.js'),
      'start',
      '--no-supervise',
      '--no-mdns',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--log-level',
      'warn',
      '--sim-devices',
      String(devices),
      ...(matter ? ['--matter-enabled', '--matter-interface', 'lo', '--matter-listen-addresses', '::1,127.0.0.1'] : []),
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    await answered(port, child);
    const bridged = matter ? await bridgeStarted(join(dataDir, 'opencube.sock'), child) : 0;
    const start = Date.now();
    let early = 0;
    let highest = 0;
    let reducedAt: number | undefined;
    for (;;) {
      await sleep(1000);
      alive(child);
      const rss = rssOf(child.pid as number);
      const t = Date.now() - start;
      if (early === 0 && t >= EARLY_MS) early = rss;
      highest = Math.max(highest, rss);
      if (reducedAt === undefined && rss < highest - REDUCED) reducedAt = t / 1000;
      if (t >= IDLE_MS)
        return { early: early || rss, end: rss, bridged, ...(reducedAt === undefined ? {} : { reducedAt }) };
    }
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The command as installed: the compiled JavaScript (tsx would add its source maps to both).
ensureBuilt();
let port = 18300;
/** The first size's added memory and bridged devices: each larger size's cost per further device is read against it. */
let first: { addedMb: number; bridged: number } | undefined;
for (const devices of SIZES) {
  const rounds = ROUNDS;
  const off: Reading[] = [];
  const on: Reading[] = [];
  for (let r = 0; r < rounds; r++) {
    off.push(await measure(false, devices, port++));
    on.push(await measure(true, devices, port++));
  }
  const median = (pick: (x: Reading) => number, list = on) => percentile(list.map(pick), 50);
  const onMb = median((x) => x.end) / MB;
  const offMb = median((x) => x.end, off) / MB;
  const addedMb = onMb - offMb;
  const bridged = median((x) => x.bridged);
  const further: Record<string, number> =
    first && bridged > first.bridged
      ? { kb_per_further_device: ((addedMb - first.addedMb) * 1024) / (bridged - first.bridged) }
      : {};
  first ??= { addedMb, bridged };
  report(
    `gateway resident memory with the Matter bridge on / off (${devices} simulated devices, idle ${IDLE_MS / 1000} s)`,
    onMb / offMb,
    {
      on_mb: onMb,
      off_mb: offMb,
      added_mb: addedMb,
      ...further,
      // Each round's own figure: when V8 last collected moves a reading by 10 MB and more.
      ...(rounds > 1
        ? { added_each_round_mb: on.map((x, i) => ((x.end - (off[i]?.end ?? 0)) / MB).toFixed(0)).join('/') }
        : {}),
      added_at_15s_mb: (median((x) => x.early) - median((x) => x.early, off)) / MB,
      on_at_15s_mb: median((x) => x.early) / MB,
      bridged_devices: bridged,
      reduced_at_s: on.every((x) => x.reducedAt !== undefined) ? median((x) => x.reducedAt as number) : 'not seen',
      idle_s: IDLE_MS / 1000,
      rounds,
    },
    devices === 16 ? `added at most ${TARGET_ADDED_MB} MB` : undefined,
  );
}
