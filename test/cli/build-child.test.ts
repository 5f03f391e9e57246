/**
 * A gateway started right after its build has no esbuild process beside it (issue 23: the build
 * ran in the gateway's own process, and esbuild's `--service` child, 19 MB and more, stayed as long
 * as the gateway). The command runs from a copy of the package whose sources are this one's (links
 * to src/, node_modules/, console/, assets/): its dist/ is built afresh there, and the worktree's
 * own dist/ is left alone.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { freePort, ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';
import { spawnGroup } from '../helpers/process-group.ts';

/** The package at `root` with its own dist/: the files that run copied, the sources linked. */
function packageCopy(root: string): void {
  for (const f of ['package.json', 'package-lock.json', 'tsconfig.json']) copyFileSync(join(ROOT, f), join(root, f));
  for (const f of ['bin/opencube.js', 'scripts/build.mjs', 'scripts/build-console.mjs']) {
    mkdirSync(join(root, f, '..'), { recursive: true });
    copyFileSync(join(ROOT, f), join(root, f));
  }
  for (const d of ['src', 'node_modules', 'console', 'assets']) symlinkSync(join(ROOT, d), join(root, d));
}

/** The processes whose parent is `pid`, with their command lines (zombies included). */
function children(pid: number): { pid: number; state: string; command: string }[] {
  const out: { pid: number; state: string; command: string }[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(ppid) !== pid) continue;
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').join(' ').trim();
      out.push({ pid: Number(entry), state: state as string, command: cmdline || `[${comm}]` });
    } catch {
      // gone meanwhile
    }
  }
  return out;
}

it('a gateway that was just built runs with no esbuild process beside it', async (t) => {
  const root = tempDir('opencube-package-');
  const dataDir = join(root, 'data');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  packageCopy(root);
  assert.equal(existsSync(join(root, 'dist')), false, 'nothing built yet');
  const port = await freePort();
  const args = ['start', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir];
  const g = spawnGroup(
    process.execPath,
    [join(root, 'bin', 'opencube.js'), ...args, '--no-mdns', '--zigbee-mode', 'off'],
    {
      cwd: root,
      env: { ...process.env, OPENCUBE_AUDIO_SINK: 'null', OPENCUBE_LOG_LEVEL: 'warn' },
    },
  );
  t.after(() => g.stop());
  const until = Date.now() + 120_000;
  while (!g.stdout().includes('opencube listening on')) {
    assert.ok(!g.exited() && Date.now() < until, `it did not start:\n${g.stdout()}\n${g.stderr()}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.match(g.stderr(), /opencube: building dist\/ from src\/ \(esbuild\)/, 'it was built at this start');
  assert.ok(existsSync(join(root, 'dist', 'main.js')));
  const pid = g.child.pid as number;
  assert.equal(Number(readFileSync(join(dataDir, 'opencube.pid'), 'utf8')), pid, 'the gateway is this process');
  assert.deepEqual(children(pid), [], 'no child process: no esbuild service, no zombie');
});
