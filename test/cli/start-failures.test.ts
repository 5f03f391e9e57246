/**
 * `opencube start` when it cannot start: one line naming the setting, the path or the port, and
 * what to do; nothing started before it (no simulated network, no store made); exit code 78,
 * which the supervisor does not retry (test/cli/supervisor.test.ts). Run through the real CLI as a
 * user runs it: one process.
 * A data folder that is not writable cannot be made as root (root writes anywhere), so that one
 * check is tested through checkStart with the file system's answer injected.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { checkStart, type PreflightDeps, portProblem, systemPreflight } from '../../src/cli/preflight.ts';
import { CONFIG_EXIT_CODE } from '../../src/cli/supervisor.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { openDb } from '../../src/store/db.ts';
import { freePort, runCli, startArgs } from '../helpers/cli.ts';
import { call, rest, startGateway, tempDir } from '../helpers/foundation.ts';

// startArgs leaves the simulated network on (the default) on purpose: nothing of it may start
// before the checks.

/** Runs `opencube start` and expects exactly `line` on stderr, nothing on stdout, exit code 78. */
async function expectRefusal(args: string[], line: string | RegExp): Promise<void> {
  const r = await runCli(args);
  assert.equal(r.stdout, '', 'nothing claims it is listening');
  if (typeof line === 'string') assert.equal(r.stderr, `opencube: ${line}\n`);
  else {
    assert.equal(r.stderr.split('\n').length, 2, `one line:\n${r.stderr}`);
    assert.match(r.stderr, line);
  }
  assert.deepEqual(
    [r.code, r.signal],
    [CONFIG_EXIT_CODE, null],
    'exit code 78: systemd and the supervisor do not retry',
  );
}

function listen(port: number): Promise<Server> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

describe('opencube start refuses, in one line, to start', () => {
  it('on a port in use, naming the port and --port, with no store made', async (t) => {
    const dir = tempDir();
    const port = await freePort();
    const other = await listen(port);
    t.after(() => {
      other.close();
      rmSync(dir, { recursive: true, force: true });
    });
    await expectRefusal(
      startArgs(port, join(dir, 'data')),
      `port ${port} is in use on 127.0.0.1; stop the other program or use --port`,
    );
    assert.equal(existsSync(join(dir, 'data', 'gateway.db')), false, 'no store was created');
  });

  it('with a data folder that is a file', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'data');
    writeFileSync(file, 'notes');
    await expectRefusal(
      startArgs(await freePort(), file),
      `the data folder ${file} (--data-dir) is a file, not a folder: move the file away, or choose another --data-dir`,
    );
    assert.equal(readFileSync(file, 'utf8'), 'notes', 'the file is left as it was');
  });

  it('with a data folder under a file', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    writeFileSync(join(dir, 'file'), '');
    const data = join(dir, 'file', 'data');
    await expectRefusal(
      startArgs(await freePort(), data),
      `the data folder ${data} (--data-dir) cannot be made: ${join(dir, 'file')} is a file, not a folder; choose another --data-dir`,
    );
  });

  it('with a damaged store (not a SQLite file), pointing to opencube restore, and leaves it untouched', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const garbage = Buffer.from('this is not a database, but it is long enough to look like one. '.repeat(100));
    writeFileSync(join(dir, 'gateway.db'), garbage);
    await expectRefusal(
      startArgs(await freePort(), dir),
      `the store ${join(dir, 'gateway.db')} is damaged (not a SQLite database): restore a backup with "opencube restore FILE --data-dir ${dir}", or move the file away to start with an empty store`,
    );
    assert.deepEqual(readFileSync(join(dir, 'gateway.db')), garbage);
  });

  it('with a store whose pages are damaged', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.db');
    const db = openDb(file);
    db.pragma('journal_mode = DELETE');
    db.close();
    const bytes = readFileSync(file);
    const pageSize = bytes.readUInt16BE(16);
    // Every page after the first (the schema's root) overwritten: the tables' pages are garbage.
    bytes.fill(0x5a, pageSize);
    writeFileSync(file, bytes);
    await expectRefusal(
      startArgs(await freePort(), dir),
      /^opencube: the store .*gateway\.db is damaged \(.+\): restore a backup with "opencube restore FILE --data-dir /,
    );
  });

  it('on a data folder a running gateway holds, which keeps serving', async (t) => {
    const gw = await startGateway();
    t.after(() => gw.stop());
    await expectRefusal(
      startArgs(await freePort(), gw.dataDir),
      `another gateway is running on the data folder ${gw.dataDir} (--data-dir) and holds its store: stop it first, or give this one another --data-dir`,
    );
    assert.equal((await call(gw.url, 'GET', rest('v2', 'bridge'))).json.error, 0, 'the running gateway is untouched');
  });
});

describe('the checks before start (checkStart)', () => {
  const settings = (dir: string, port = 0) => loadSettings({ overrides: { data_dir: dir, port, host: '127.0.0.1' } });
  const withFs = (err: NodeJS.ErrnoException): PreflightDeps => ({
    ...systemPreflight,
    probeWrite: () => {
      throw err;
    },
  });
  const fsError = (code: string) => Object.assign(new Error(`${code}: refused`), { code });

  it('says a data folder is not writable, or on a read-only file system (the answer injected: root writes anywhere)', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    assert.equal(
      await checkStart(settings(dir), withFs(fsError('EACCES'))),
      `the data folder ${dir} (--data-dir) is not writable by this user (EACCES): give this user write access to it, or choose another --data-dir`,
    );
    assert.equal(
      await checkStart(settings(dir), withFs(fsError('EROFS'))),
      `the data folder ${dir} (--data-dir) is on a read-only file system (EROFS): give this user write access to it, or choose another --data-dir`,
    );
    assert.equal(
      await checkStart(settings(dir), withFs(fsError('ENOSPC'))),
      `the data folder ${dir} (--data-dir) is on a full disk: free some space`,
    );
  });

  it('passes a good folder, an empty one, a healthy store, and port 0', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    assert.equal(await checkStart(settings(join(dir, 'new', 'data'))), undefined);
    assert.ok(existsSync(join(dir, 'new', 'data')), 'the folder is made');
    openDb(join(dir, 'gateway.db')).close();
    assert.equal(await checkStart(settings(dir, await freePort())), undefined);
    assert.deepEqual(
      (await import('node:fs')).readdirSync(dir).filter((f) => f.startsWith('.write-check')),
      [],
      'the write check leaves nothing behind',
    );
  });

  it('says the store is a folder', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    mkdirSync(join(dir, 'gateway.db'));
    assert.match((await checkStart(settings(dir))) as string, /gateway\.db is damaged \(a folder, not a file\)/);
  });

  it('names the port and what to do for each refusal of a bind', () => {
    const e = (code: string) => Object.assign(new Error(code), { code });
    assert.equal(
      portProblem(e('EADDRINUSE'), '0.0.0.0', 8081),
      'port 8081 is in use on 0.0.0.0; stop the other program or use --port',
    );
    assert.match(
      portProblem(e('EACCES'), '0.0.0.0', 80) as string,
      /^port 80 on 0\.0\.0\.0 needs privileges .*use --port 8081/,
    );
    assert.match(
      portProblem(e('EADDRNOTAVAIL'), '10.9.9.9', 8081) as string,
      /^10\.9\.9\.9 \(--host\) is not an address of this machine/,
    );
    assert.equal(portProblem(e('EMFILE'), '0.0.0.0', 8081), undefined, 'not a configuration error');
  });
});
