/**
 * G8 with the real CLI: `opencube start` runs a supervisor; a reboot request makes the gateway
 * exit for a restart, and it comes back by itself on the same port with the same token and
 * state. SIGTERM then stops the gateway and the supervisor cleanly.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { alive, freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, eventually, rest, tempDir } from '../helpers/foundation.ts';

function readPid(dir: string): number | null {
  try {
    return Number(readFileSync(join(dir, 'opencube.pid'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

it('reboots through the supervisor and comes back on the same port with the same token', async (t) => {
  const dir = tempDir();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawnCli(startArgs(port, dir, '--zigbee-mode', 'off', '--log-level', 'warn'));
  const pids = new Set<number>();
  t.after(() => {
    proc.killAll();
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // gone already
      }
    }
    rmSync(dir, { recursive: true, force: true });
  });

  await proc.waitForOutput(/opencube listening on http:\/\/127\.0\.0\.1:\d+/);
  assert.match(proc.stdout(), new RegExp(`listening on ${base} `));
  const firstPid = readPid(dir);
  assert.ok(firstPid && firstPid !== proc.child.pid, 'the gateway runs in a child of the supervisor');
  pids.add(firstPid);

  // A client polls, the user runs `opencube link`, the client's next poll gets its token.
  const refused = await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=rebooter`);
  assert.equal(refused.json.message, 'link button not pressed');
  const link = await runCli(['link', '--data-dir', dir]);
  assert.equal(link.code, 0, link.stderr);
  assert.match(link.stdout, /approved: rebooter/);
  const token = (await call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=rebooter`)).json.data
    .token as string;
  assert.ok(token);
  assert.equal((await call(base, 'PUT', rest('v2', 'bridge/config'), { token, body: { volume: 77 } })).json.error, 0);
  assert.equal((await call(base, 'PUT', rest('v2', 'security/2/enable'), { token })).json.error, 0);

  const reboot = await call(base, 'POST', rest('V2', 'hardware/reboot'), { token, body: '' });
  assert.deepEqual(reboot.json, { error: 0, data: {}, message: 'success' });

  await proc.waitForOutput(/opencube: restarting/);
  await proc.waitForOutput(/opencube listening on/, 2);
  await eventually(
    () => {
      const pid = readPid(dir);
      return pid !== null && pid !== firstPid;
    },
    30_000,
    'a new gateway process',
  );
  const secondPid = readPid(dir) as number;
  pids.add(secondPid);
  assert.equal(alive(firstPid), false, 'the old gateway process is gone');

  const modes = await call(base, 'GET', rest('v1', 'security'), { token });
  assert.equal(modes.json.error, 0, 'the same token is still valid');
  assert.deepEqual(
    modes.json.data.security_list.filter((m: { enable: boolean }) => m.enable).map((m: { name: string }) => m.name),
    ['away_mode'],
  );
  const tokens = await runCli(['tokens', 'list', '--data-dir', dir]);
  assert.match(tokens.stdout, /app=rebooter .* last_used=\S+Z/);

  // SIGTERM to the supervisor stops the gateway gracefully, then the supervisor itself.
  proc.child.kill('SIGTERM');
  const exit = await proc.exited;
  assert.deepEqual(exit, { code: 0, signal: null });
  await eventually(() => !alive(secondPid), 10_000, 'the gateway process ended');
  assert.equal(readPid(dir), null, 'the pid file is removed on a clean stop');
  await assert.rejects(fetch(`${base}/open-api/v2/rest/bridge`), 'nothing listens any more');
});
