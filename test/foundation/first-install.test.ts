/**
 * The first `npm start` on a fresh machine (issue 15): the install says what it is doing while
 * it runs, and says at once, in one line, when the registry cannot be reached.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import { describe, it } from 'node:test';
// @ts-expect-error: a plain JavaScript script (it runs before anything is installed), no types.
import { progressReporter, registryProblem } from '../../scripts/ensure-deps.mjs';
import { freePort, ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';

/** Runs the pre-script in a folder holding only the lock, so that it would install. */
function ensureDeps(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dir = tempDir('opencube-deps-');
  for (const f of ['package.json', 'package-lock.json']) copyFileSync(join(ROOT, f), join(dir, f));
  const child = spawn(process.execPath, [join(ROOT, 'scripts/ensure-deps.mjs')], {
    cwd: dir,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (c: string) => {
    stderr += c;
  });
  return new Promise((resolve) => {
    child.on('close', (code) => {
      const installedSomething = existsSync(join(dir, 'node_modules'));
      rmSync(dir, { recursive: true, force: true });
      resolve({ code, stderr: installedSomething ? `${stderr}\n(node_modules was made)` : stderr });
    });
  });
}

describe('a registry that cannot be reached', () => {
  it('refused: one line naming the registry and what to check, and nothing installed', async () => {
    const port = await freePort();
    const r = await ensureDeps({ npm_config_registry: `http://127.0.0.1:${port}/` });
    assert.equal(r.code, 1);
    const lines = r.stderr.trim().split('\n');
    assert.equal(lines.length, 2, r.stderr);
    assert.match(lines[0] as string, /^opencube: installing the dependencies/);
    assert.match(
      lines[1] as string,
      new RegExp(
        `^opencube: cannot reach the npm registry at http://127\\.0\\.0\\.1:${port}/ \\(ECONNREFUSED\\): check`,
      ),
    );
  });

  it('silent: the line comes after the registry timeout, not after npm retries', async (t) => {
    const server: Server = createServer(() => {});
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.closeAllConnections() ?? server.close());
    const { port } = server.address() as { port: number };
    const r = await ensureDeps({
      npm_config_registry: `http://127.0.0.1:${port}/`,
      OPENCUBE_REGISTRY_TIMEOUT_MS: '300',
    });
    server.close();
    assert.equal(r.code, 1);
    assert.match(r.stderr, /cannot reach the npm registry at http:\/\/127\.0\.0\.1:\d+\/ \(no answer in 0\.3 s\)/);
    assert.doesNotMatch(r.stderr, /node_modules was made/);
  });

  it('a registry that answers at all is reachable, and behind a proxy npm is left to decide', async (t) => {
    const server = createServer((_req, res) => res.writeHead(404).end());
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    t.after(() => server.close());
    const { port } = server.address() as { port: number };
    assert.equal(await registryProblem({ npm_config_registry: `http://127.0.0.1:${port}` }), undefined);
    const closed = await freePort();
    assert.equal(
      await registryProblem({ npm_config_registry: `http://127.0.0.1:${closed}/`, HTTPS_PROXY: 'http://proxy:3128' }),
      undefined,
    );
  });
});

describe('what an install says while it runs', () => {
  /** npm's own lines at --loglevel=info, as npm 11 writes them during a first install. */
  const npmLines = [
    'npm info using npm@11.19.1',
    'npm info using node@v20.20.2',
    'npm http fetch GET 200 https://registry.npmjs.org/fastify 120ms (cache miss)',
    'npm http fetch GET 200 https://registry.npmjs.org/fastify/-/fastify-5.12.8.tgz 300ms (cache miss)',
    'npm http fetch GET 200 https://registry.npmjs.org/pino/-/pino-10.4.0.tgz 200ms (cache miss)',
    'npm http fetch GET 404 https://registry.npmjs.org/@biomejs%2fcli-android-x64 78ms (cache skip)',
    'npm info run better-sqlite3@12.11.1 install node_modules/better-sqlite3 prebuild-install || node-gyp rebuild --release',
    'npm info run better-sqlite3@12.11.1 install { code: 0, signal: null }',
    'npm warn deprecated something@1.0.0: use something else',
    '',
    'added 182 packages in 1m',
    'npm info ok',
  ];

  it("keeps npm's warnings and summary, names each install script, and hides the rest", () => {
    const said: string[] = [];
    let now = 0;
    const r = progressReporter(
      (l: string) => said.push(l),
      () => now,
    );
    for (const l of npmLines) {
      r.line(l);
      now += 1000;
    }
    assert.deepEqual(said, [
      'opencube: running the install script of better-sqlite3@12.11.1 (builds from source where no prebuilt binary fits: about a minute)',
      'npm warn deprecated something@1.0.0: use something else',
      'added 182 packages in 1m',
    ]);
    assert.equal(r.summary(), '2 packages downloaded in 12 s');
  });

  it('says it is still working whenever npm is silent for ten seconds, and what it is doing', () => {
    const said: string[] = [];
    let now = 0;
    const r = progressReporter(
      (l: string) => said.push(l),
      () => now,
    );
    for (; now <= 9_000; now += 1000) r.tick();
    assert.deepEqual(said, [], 'nothing before ten silent seconds');
    now = 10_000;
    r.tick();
    r.line(npmLines[3] as string);
    now = 15_000;
    r.tick();
    now = 20_000;
    r.tick();
    assert.deepEqual(said, [
      'opencube: still installing (10 s): resolving the dependency tree, 0 packages downloaded so far',
      'opencube: still installing (20 s): downloading packages, 1 packages downloaded so far',
    ]);
  });
});
