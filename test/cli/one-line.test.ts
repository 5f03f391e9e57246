/**
 * A command that cannot reach the gateway or a file says why in one plain line (issue 23): `link`
 * run by another user printed `connect EACCES .../opencube.sock`, `backup /proc/x.db` a raw
 * ENOENT of its temporary file. The other user is `nobody` (setpriv), when the tests run as root.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, rmSync } from 'node:fs';
import { describe, it } from 'node:test';
import { ROOT, runCli } from '../helpers/cli.ts';
import { startGateway, tempDir } from '../helpers/foundation.ts';

/** Why the commands cannot be run as the user nobody here, or false when they can. */
function nobodyCannot(): string | false {
  if (process.getuid?.() !== 0) return 'needs root, to run as nobody';
  const nobody = ['--reuid=65534', '--regid=65534', '--clear-groups'];
  if (spawnSync('setpriv', [...nobody, 'true']).status !== 0) return 'setpriv cannot switch to nobody here';
  // A checkout inside a folder only its owner may enter (mktemp -d makes one) is out of nobody's reach.
  if (spawnSync('setpriv', [...nobody, 'test', '-r', `${ROOT}/node_modules/tsx/package.json`]).status !== 0)
    return `the user nobody cannot read this checkout (${ROOT}): a folder above it is closed to other users`;
  return false;
}
const skipUnlessNobody = nobodyCannot();

/** `opencube ARGS` run by the user nobody (through tsx, as the other CLI tests run it). */
function asNobodyRun(...args: string[]) {
  return spawnSync(
    'setpriv',
    ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, '--import', 'tsx', 'src/main.ts', ...args],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, HOME: '/tmp', OPENCUBE_COMMAND: 'opencube' } },
  );
}

describe('one plain line', () => {
  it('for a backup to a place that takes no file, with the gateway running and without', async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const g = await startGateway({ dataDir: dir });
    t.after(() => g.stop());
    const line = 'opencube: cannot write the backup to /proc/x.db: /proc does not take new files (ENOENT)\n';
    const running = await runCli(['backup', '/proc/x.db', '--data-dir', g.dataDir]);
    assert.deepEqual([running.code, running.stderr, running.stdout], [1, line, '']);
    await g.stop();
    const stopped = await runCli(['backup', '/proc/x.db', '--data-dir', g.dataDir]);
    assert.deepEqual([stopped.code, stopped.stderr, stopped.stdout], [1, line, '']);
    const noFolder = await runCli(['backup', '/no/such/folder/x.db', '--data-dir', g.dataDir]);
    assert.equal(noFolder.stderr, 'opencube: no folder /no/such/folder\n');
  });

  it('for a restore of a file this user may not read', {
    skip: skipUnlessNobody,
  }, async (t) => {
    const dir = tempDir();
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const r = asNobodyRun('restore', '/root/.bashrc', '--data-dir', dir);
    assert.equal(r.status, 1);
    assert.match(r.stderr, /^opencube: cannot read \/root\/\.bashrc: this user may not read it \(EACCES\)\n$/);
  });

  it("for link run by a user other than the gateway's: whose socket it is, and what to do", {
    skip: skipUnlessNobody,
  }, async (t) => {
    const g = await startGateway();
    // A data folder others may look into (a service's StateDirectory is 0755): the socket's owner is named.
    chmodSync(g.dataDir, 0o755);
    t.after(() => g.stop());
    const r = asNobodyRun('link', '--data-dir', g.dataDir);
    assert.equal(r.status, 1);
    assert.equal(
      r.stderr,
      `opencube: the gateway's control socket ${g.dataDir}/opencube.sock is open only to root, the user that runs the gateway (EACCES): run the command as that user (e.g. with sudo -u)\n`,
    );
  });
});
