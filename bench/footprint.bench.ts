/**
 * The gateway's footprint on a small box, measured on the command as a user runs it: `npm start`'s
 * command line from package.json (node with its memory flags, bin/opencube.js start: the bundle in
 * dist/, one process), in its default mode (the simulated network of 16 devices), on 127.0.0.1
 * without mDNS:
 *
 * - resident memory of all its processes once idle, against a bare
 *   `node -e 'setInterval(()=>{},1000)'` idling as long (target: at most 2x). Two figures: the sum
 *   of each process's RSS (which counts node's own code, about 30 MB, once per process), and the
 *   memory of the processes together with the pages of files they share counted once (what the
 *   box really spends). The gateway under its opt-in crash supervisor (`--supervise`) is measured
 *   too.
 * - start-up time from spawning the command to its first answered `GET bridge`, against a bare
 *   node:http server process spawned and polled the same way (target: at most 3x). Rounds
 *   alternate between the two; the median is reported.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { readdirSync, readFileSync, rmSync } from 'node:fs';
import { mkdtemp } from 'node:fs/promises';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';
import { report } from './lib.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 9);
const IDLE_MS = Number(process.env.BENCH_IDLE_MS ?? 20_000);
const PATH = '/open-api/v2/rest/bridge';
const MB = 1024 * 1024;

const BARE_HTTP = `require('node:http').createServer((q, s) => { s.setHeader('content-type', 'application/json'); s.end('{}'); }).listen(Number(process.argv[1]), '127.0.0.1');`;

/** A free port on 127.0.0.1, picked by the kernel. */
async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as { port: number }).port;
      srv.close(() => resolve(port));
    });
  });
}

/** One GET; resolves with the status, or undefined when nothing answers yet. */
function tryGet(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request({ host: '127.0.0.1', port, path: PATH, timeout: 2000 }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on('error', () => resolve(undefined));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** Polls every 2 ms until GET bridge answers 200; resolves with the time (performance.now) of that answer. */
async function firstAnswer(port: number, child: ChildProcess, limitMs = 60_000): Promise<number> {
  const until = performance.now() + limitMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the process exited (${child.exitCode ?? child.signalCode})`);
    if ((await tryGet(port)) === 200) return performance.now();
    if (performance.now() > until) throw new Error(`no answer on port ${port} within ${limitMs} ms`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
    child.once('exit', () => {
      clearTimeout(timer);
      resolve();
    });
    child.kill('SIGTERM');
  });
}

/** `npm start`'s node flags and script (package.json), e.g. `--v8-pool-size=2 bin/opencube.js start`. */
function npmStart(): string[] {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } };
  const [node, ...args] = pkg.scripts.start.split(/\s+/);
  if (node !== 'node') throw new Error(`npm start does not run node: ${pkg.scripts.start}`);
  return args.map((a) => (a.endsWith('.js') ? join(ROOT, a) : a));
}

function gatewayArgs(port: number, dataDir: string, extra: string[] = []): string[] {
  return [
    ...npmStart(),
    '--port',
    String(port),
    '--host',
    '127.0.0.1',
    '--no-mdns',
    '--data-dir',
    dataDir,
    '--log-level',
    'warn',
    ...extra,
  ];
}

function spawnNode(args: string[]): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** The process and all its descendants, from /proc. */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
    } catch {
      // ended while we read
    }
  }
  const out: number[] = [];
  const walk = (pid: number) => {
    out.push(pid);
    for (const c of children.get(pid) ?? []) walk(c);
  };
  walk(root);
  return out;
}

interface ProcessMemory {
  rss: number;
  /** Anonymous pages (heap, stacks, private copies): this process's alone. */
  anon: number;
  /** Resident pages of each mapped file (node's binary, libraries): shared with others that map it. */
  files: Map<string, number>;
}

function processMemory(pid: number): ProcessMemory {
  const mem: ProcessMemory = { rss: 0, anon: 0, files: new Map() };
  let file = '';
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      file = head[1]?.startsWith('/') ? (head[1] as string) : '';
      continue;
    }
    const field = /^(Rss|Anonymous):\s+(\d+) kB/.exec(line);
    if (!field) continue;
    const bytes = Number(field[2]) * 1024;
    if (field[1] === 'Rss') {
      mem.rss += bytes;
      // Until its Anonymous line says otherwise, all of a file mapping's pages are the file's.
      if (file) mem.files.set(file, (mem.files.get(file) ?? 0) + bytes);
      else mem.anon += bytes;
    } else if (file) {
      mem.files.set(file, (mem.files.get(file) ?? 0) - bytes);
      mem.anon += bytes;
    }
  }
  return mem;
}

/** Memory of a set of processes: the sum of their RSS, and with the file pages they share counted once. */
function setMemory(pids: number[]): { sumRss: number; shared: number; each: number[] } {
  const mems = pids.map(processMemory);
  const files = new Map<string, number>();
  for (const m of mems) for (const [f, b] of m.files) files.set(f, Math.max(files.get(f) ?? 0, b));
  const shared = mems.reduce((n, m) => n + m.anon, 0) + [...files.values()].reduce((n, b) => n + b, 0);
  return { sumRss: mems.reduce((n, m) => n + m.rss, 0), shared, each: mems.map((m) => m.rss) };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

ensureBuilt(ROOT);
const dataDirs: string[] = [];
const tempData = async () => {
  const d = await mkdtemp(join(tmpdir(), 'opencube-footprint-'));
  dataDirs.push(d);
  return join(d, 'data');
};
const running = new Set<ChildProcess>();
try {
  // Start-up: one warm-up round each (it also creates the store), then alternating rounds.
  const data = await tempData();
  const times: Record<'bare' | 'gateway' | 'supervised', number[]> = { bare: [], gateway: [], supervised: [] };
  const commands = {
    bare: (port: number) => ['-e', BARE_HTTP, String(port)],
    gateway: (port: number) => gatewayArgs(port, data),
    supervised: (port: number) => gatewayArgs(port, data, ['--supervise']),
  };
  for (let round = 0; round <= ROUNDS; round++) {
    for (const kind of ['bare', 'gateway', 'supervised'] as const) {
      const port = await freePort();
      const t0 = performance.now();
      const child = spawnNode(commands[kind](port));
      running.add(child);
      const t1 = await firstAnswer(port, child);
      await stop(child);
      running.delete(child);
      if (round > 0) times[kind].push(t1 - t0);
    }
  }
  const gwMs = median(times.gateway);
  const bareMs = median(times.bare);
  report(
    'start-up to the first answered GET bridge vs a bare node:http process',
    gwMs / bareMs,
    { gateway_ms: gwMs, bare_ms: bareMs, supervised_ms: median(times.supervised), rounds: String(ROUNDS) },
    '<= 3',
  );

  // Memory: the three idle side by side, measured after the same idle time.
  const bare = spawnNode(['-e', 'setInterval(() => {}, 1000)']);
  const [p1, p2] = [await freePort(), await freePort()];
  const gateway = spawnNode(gatewayArgs(p1, await tempData()));
  const supervised = spawnNode(gatewayArgs(p2, await tempData(), ['--supervise']));
  for (const c of [bare, gateway, supervised]) running.add(c);
  await Promise.all([firstAnswer(p1, gateway), firstAnswer(p2, supervised)]);
  await new Promise((r) => setTimeout(r, IDLE_MS));
  const base = setMemory([bare.pid as number]);
  const one = setMemory(processTree(gateway.pid as number));
  const sup = setMemory(processTree(supervised.pid as number));
  const mb = (b: number) => b / MB;
  report(
    'idle memory of all the gateway processes (sum of RSS) vs a bare node process',
    one.sumRss / base.sumRss,
    {
      gateway_mb: mb(one.sumRss),
      bare_mb: mb(base.sumRss),
      processes: String(one.each.length),
      each_mb: one.each.map((b) => mb(b).toFixed(1)).join('+'),
      idle_s: String(IDLE_MS / 1000),
    },
    '<= 2',
  );
  report(
    'idle memory of the gateway under its crash supervisor (--supervise, sum of RSS) vs a bare node process',
    sup.sumRss / base.sumRss,
    {
      gateway_mb: mb(sup.sumRss),
      bare_mb: mb(base.sumRss),
      processes: String(sup.each.length),
      each_mb: sup.each.map((b) => mb(b).toFixed(1)).join('+'),
    },
  );
  report(
    'idle memory under the supervisor, shared file pages counted once, vs a bare node process',
    sup.shared / base.shared,
    { gateway_mb: mb(sup.shared), bare_mb: mb(base.shared) },
  );
} finally {
  await Promise.all([...running].map(stop));
  for (const d of dataDirs) rmSync(d, { recursive: true, force: true });
}
