/**
 * Issue 24, "Files": what the gateway keeps holds tokens' hashes, the console's password hash,
 * cameras' passwords, the Matter bridge's keys (in the store: table matter_storage). Under the
 * usual umask of a shell (022), every file it makes in its data folder, the store with its -wal and
 * -shm, the store there was before a restore, a staged or failed restore, a backup, are readable
 * by its user only (0600), and the folders it makes are 0700.
 */
import assert from 'node:assert/strict';
import { chmodSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { runCli } from '../helpers/cli.ts';
import { startGateway, tempDir } from '../helpers/foundation.ts';

/** Every file and folder under `dir` with its mode. */
function modes(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (sub: string) => {
    for (const e of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? e.name : `${sub}/${e.name}`;
      out[rel] = (statSync(join(dir, rel)).mode & 0o777).toString(8);
      if (e.isDirectory()) walk(rel);
    }
  };
  walk('');
  return out;
}

const ownerOnly = (m: Record<string, string>) =>
  Object.entries(m).filter(([, mode]) => mode !== '600' && mode !== '700');

test('the data folder, the store and everything a backup and a restore leave there are readable by the gateway’s user only', async (t) => {
  const was = process.umask(0o022);
  t.after(() => process.umask(was));
  const root = tempDir('opencube-modes-');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const data = join(root, 'data');
  const g = await startGateway({ dataDir: data });
  g.token('someone');
  assert.equal((statSync(data).mode & 0o777).toString(8), '700', 'the data folder it made');
  const store = new Database(g.gateway.paths.db, { readonly: true });
  assert.ok(
    store.prepare("SELECT 1 FROM sqlite_master WHERE name = 'matter_storage'").get(),
    'the Matter storage is in the store',
  );
  store.close();
  assert.deepEqual(ownerOnly(modes(data)), [], JSON.stringify(modes(data)));

  // A backup the gateway writes, and one taken through the command line.
  const backup = join(root, 'taken.backup');
  await g.gateway.backup(backup);
  assert.equal((statSync(backup).mode & 0o777).toString(8), '600');
  const cli = join(root, 'cli.backup');
  assert.equal((await runCli(['backup', cli, '--data-dir', data])).code, 0);
  assert.equal((statSync(cli).mode & 0o777).toString(8), '600');

  // A restore of a file anyone may read: staged, then put in place over the store there was.
  chmodSync(backup, 0o644);
  const staged = await g.gateway.stageRestore(backup, 'taken.backup');
  assert.equal(staged.ok, true);
  assert.deepEqual(ownerOnly(modes(data)), [], JSON.stringify(modes(data)));
  const again = await g.restart();
  t.after(() => again.stop());
  assert.ok(readdirSync(data).includes('gateway.db.before-restore'));
  assert.deepEqual(ownerOnly(modes(data)), [], JSON.stringify(modes(data)));
  await again.stop();

  // With the gateway stopped, through the command line, with the settings the backup carries.
  const r = await runCli(['restore', backup, '--data-dir', data]);
  assert.equal(r.code, 0, r.stderr);
  assert.deepEqual(ownerOnly(modes(data)), [], JSON.stringify(modes(data)));
});

test('a store an older release left readable by others is made the user’s alone when the gateway opens it', async (t) => {
  const root = tempDir('opencube-modes-old-');
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const first = await startGateway({ dataDir: root });
  await first.stop();
  chmodSync(join(root, 'gateway.db'), 0o644);
  const g = await startGateway({ dataDir: root });
  t.after(() => g.stop());
  assert.equal((statSync(join(root, 'gateway.db')).mode & 0o777).toString(8), '600');
});
