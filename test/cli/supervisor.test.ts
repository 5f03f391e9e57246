/**
 * The supervisor of `opencube start` with real processes: a gateway killed with SIGKILL comes back
 * by itself on the same port with its data; a gateway that crashes at every start is tried five
 * times, then the supervisor gives up with one message; one that cannot start as configured
 * (exit code 78) is not tried again; a gateway whose supervisor died stops rather than hold the
 * port and the data folder; the supervisor loads nothing of the gateway. (The delays between
 * restarts are tested without waiting in supervisor-policy.test.ts; here the real ones pass: 1 s,
 * then 2, 4, 8.)
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import {
  alive,
  type CliOptions,
  type CliProcess,
  freePort,
  ROOT,
  runCli,
  spawnCli,
  startArgs,
} from '../helpers/cli.ts';
import { call, eventually, rest, tempDir, waitForValue } from '../helpers/foundation.ts';

function readPid(dir: string): number | null {
  try {
    return Number(readFileSync(join(dir, 'opencube.pid'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

/** A gateway with nothing behind it, quiet: what the supervisor tests need. */
function quietArgs(port: number, dir: string): string[] {
  return startArgs(port, dir, '--supervise', '--zigbee-mode', 'off', '--log-level', 'warn');
}

/** Kills what a test started: the supervisor's process group and every gateway pid it saw. */
function cleanup(proc: CliProcess, pids: Set<number>, dir: string): void {
  proc.killAll();
  for (const pid of pids) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone already
    }
  }
  rmSync(dir, { recursive: true, force: true });
}

/** A supervised gateway on a data folder of its own, killed after the test; resolves once it listens. */
async function startSupervised(
  t: { after(fn: () => void): void },
  dir = tempDir(),
  opts: CliOptions = {},
): Promise<{ dir: string; port: number; proc: CliProcess; gateway: number }> {
  const port = await freePort();
  const proc = spawnCli(quietArgs(port, dir), opts);
  const pids = new Set<number>();
  t.after(() => cleanup(proc, pids, dir));
  await proc.waitForOutput(/opencube listening on/);
  const gateway = readPid(dir) as number;
  pids.add(gateway);
  return { dir, port, proc, gateway };
}

/** A token obtained the way a client does: poll, `opencube link`, poll again. */
async function obtainToken(base: string, dir: string): Promise<string> {
  await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=survivor`);
  const link = await runCli(['link', '--data-dir', dir]);
  assert.equal(link.code, 0, link.stderr);
  const r = await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=survivor`);
  assert.ok(r.json.data.token, r.text);
  return r.json.data.token as string;
}

it('brings a gateway killed with SIGKILL back on the same port, with its token and state', async (t) => {
  const dir = tempDir();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawnCli(quietArgs(port, dir));
  const pids = new Set<number>();
  t.after(() => cleanup(proc, pids, dir));

  await proc.waitForOutput(/opencube listening on/);
  const first = readPid(dir) as number;
  assert.ok(first && first !== proc.child.pid, 'the gateway runs in a child of the supervisor');
  pids.add(first);
  const token = await obtainToken(base, dir);
  assert.equal((await call(base, 'PUT', rest('v2', 'bridge/config'), { token, body: { volume: 33 } })).json.error, 0);

  process.kill(first, 'SIGKILL');
  await proc.waitForOutput(/opencube listening on/, 2);
  const second = await waitForValue(() => {
    const pid = readPid(dir);
    return pid !== null && pid !== first && pid;
  });
  pids.add(second);
  assert.equal(alive(first), false);
  assert.equal(alive(proc.child.pid as number), true, 'the supervisor itself stayed');
  assert.match(proc.stderr(), /opencube: the gateway was killed by SIGKILL; starting it again in 1 s\n/);
  assert.match(proc.stdout(), new RegExp(`listening on ${base} [^]*listening on ${base} `), 'the same port');

  const runtime = await call(base, 'GET', rest('v2', 'bridge/runtime'), { token });
  assert.equal(runtime.json.error, 0, 'the token from before the crash is still valid');
  const bridge = await call(base, 'GET', rest('v2', 'bridge'));
  assert.equal(bridge.json.error, 0);

  proc.child.kill('SIGTERM');
  assert.deepEqual(await proc.exited, { code: 0, signal: null });
  await eventually(() => !alive(second), 10_000, 'the gateway ended with its supervisor');
});

it('gives up with one message after the gateway crashed at start five times in a row', async (t) => {
  const dir = tempDir();
  // The gateway child (not the supervisor) throws as it loads: a fault, not a configuration error.
  const crash = join(ROOT, 'test', 'fixtures', 'cli', 'crash-when-supervised.mjs');
  const proc = spawnCli(quietArgs(await freePort(), dir), { env: { NODE_OPTIONS: `--import=${crash}` } });
  t.after(() => cleanup(proc, new Set(), dir));

  const exit = await proc.exited;
  assert.deepEqual(exit, { code: 1, signal: null });
  const err = proc.stderr();
  assert.equal(
    err.match(/^Error: opencube test: a crash at start$/gm)?.length,
    5,
    `each start says why it failed:\n${err}`,
  );
  const restarts = [...err.matchAll(/the gateway exited with code 1; starting it again in (\d+) s/g)].map((m) => m[1]);
  assert.deepEqual(restarts, ['1', '2', '4', '8']);
  assert.equal(err.match(/giving up/g)?.length, 1, 'one message says the supervisor gives up');
  assert.match(
    err.trimEnd().split('\n').at(-1) as string,
    /^opencube: the gateway exited with code 1 before it answered, 5 times in a row: giving up/,
  );
  assert.equal(proc.stdout(), '', 'nothing claims it is listening');
});

it('does not start again a gateway that cannot start as configured: one line, exit code 78', async (t) => {
  const dir = tempDir();
  // A data folder that is a file: starting again cannot fix that.
  const file = join(dir, 'not-a-folder');
  writeFileSync(file, 'x');
  const proc = spawnCli(quietArgs(await freePort(), file));
  t.after(() => cleanup(proc, new Set(), dir));

  assert.deepEqual(await proc.exited, { code: 78, signal: null });
  assert.equal(
    proc.stderr(),
    `opencube: the data folder ${file} (--data-dir) is a file, not a folder: move the file away, or choose another --data-dir\n`,
  );
  assert.equal(proc.stdout(), '');
});

it('stops the gateway when its supervisor is killed, freeing the port and the data folder', async (t) => {
  const { dir, port, proc, gateway } = await startSupervised(t);
  process.kill(proc.child.pid as number, 'SIGKILL');
  await eventually(() => !alive(gateway), 15_000, 'the orphaned gateway stopped');
  assert.equal(readPid(dir), null, 'it stopped cleanly: its pid file is removed');
  await assert.rejects(fetch(`http://127.0.0.1:${port}/open-api/v2/rest/bridge`), 'nothing listens any more');
});

it("loads nothing of the gateway in the supervisor: its code and the store's library are in the gateway process only", async (t) => {
  const recorder = join(ROOT, 'test', 'fixtures', 'cli', 'record-modules.mjs');
  const folder = tempDir();
  const { dir, proc, gateway } = await startSupervised(t, folder, {
    compiled: true,
    nodeArgs: ['--import', recorder],
    env: { RECORD_MODULES_DIR: folder },
  });
  process.kill(proc.child.pid as number, 'SIGTERM');
  await proc.exited;
  await eventually(() => !alive(gateway), 15_000, 'the gateway stopped');
  const modules = (pid: number) => JSON.parse(readFileSync(join(dir, `modules-${pid}.json`), 'utf8')) as string[];
  const gatewayCode = (urls: string[]) => urls.filter((u) => /\/dist\/chunks\/gateway-|\/better-sqlite3\//.test(u));
  assert.deepEqual(
    readdirSync(dir)
      .filter((f) => f.startsWith('modules-'))
      .sort(),
    [`modules-${proc.child.pid}.json`, `modules-${gateway}.json`].sort(),
    'the supervisor and its gateway each recorded what they loaded',
  );
  const supervisor = modules(proc.child.pid as number);
  assert.ok(
    supervisor.some((u) => u.endsWith('/dist/main.js')),
    'the supervisor ran the compiled command',
  );
  assert.deepEqual(gatewayCode(supervisor), [], 'nothing of the gateway in the supervisor');
  assert.notDeepEqual(gatewayCode(modules(gateway)), [], 'the gateway process loaded it');
});
