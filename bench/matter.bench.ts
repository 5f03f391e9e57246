/**
 * The Matter bridge's cost in memory: the gateway as installed (bin/opencube.js, compiled
 * JavaScript, one process with `--no-supervise`, the 16 simulated devices) idling with the bridge on beside the same gateway with it off, its resident memory read
 * from /proc once idle. The bridge binds UDP and speaks mDNS, so both runs happen inside a private
 * network namespace with loopback only (`unshare -n`): nothing reaches a real interface. Without
 * the namespace the bench says so and measures nothing. Rounds alternate off and on; the median
 * of each is reported, with the ratio on / off.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';
import { GATEWAY_NODE_FLAGS } from '../src/cli/supervisor.ts';
import { canUnshare, runInLoopback } from '../test/helpers/netns.ts';
import { percentile, report } from './lib.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 15_000);
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

function rssOf(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m?.[1] ?? 0) * 1024;
}

async function answered(port: number, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the gateway exited (${child.exitCode})`);
    try {
      const res = await fetch(`http://127.0.0.1:${port}/open-api/v2/rest/bridge`);
      if (res.ok) return;
    } catch {
      // not up yet
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Starts a gateway, lets it idle, reads its resident memory, stops it. */
async function measure(matter: boolean, port: number): Promise<number> {
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
      ...(matter ? ['--matter-enabled', '--matter-interface', 'lo', '--matter-listen-addresses', '::1,127.0.0.1'] : []),
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'ignore', 'inherit'] },
  );
  try {
    await answered(port, child);
    await new Promise((r) => setTimeout(r, IDLE_MS));
    return rssOf(child.pid as number);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// The command as installed: the compiled JavaScript (tsx would add its source maps to both).
ensureBuilt();
const off: number[] = [];
const on: number[] = [];
for (let i = 0; i < ROUNDS; i++) {
  off.push(await measure(false, 18300 + i * 2));
  on.push(await measure(true, 18301 + i * 2));
}
const offMb = percentile(off, 50) / MB;
const onMb = percentile(on, 50) / MB;
report('gateway resident memory with the Matter bridge on / off (16 simulated devices, idle)', onMb / offMb, {
  on_mb: onMb,
  off_mb: offMb,
  added_mb: onMb - offMb,
  rounds: ROUNDS,
  idle_ms: IDLE_MS,
});
