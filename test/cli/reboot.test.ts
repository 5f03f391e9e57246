/**
 * G8 with the real CLI: `opencube start` is one process, and a reboot request restarts the gateway
 * inside it (stopped, built again from the same settings, started): it comes back on the same port
 * with the same devices, token and state, its event stream clients are cut and can connect again,
 * and the process id does not change. SIGTERM then stops it cleanly.
 */
import assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { alive, freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, eventually, listDevices, openStream, rest, tempDir, waitForValue } from '../helpers/foundation.ts';

function readPid(dir: string): number | null {
  try {
    return Number(readFileSync(join(dir, 'opencube.pid'), 'utf8').trim()) || null;
  } catch {
    return null;
  }
}

const stream = (token: string) => `/open-api/v2/sse/bridge?access_token=${encodeURIComponent(token)}`;

it('reboots in its own process and comes back on the same port with the same devices and token', async (t) => {
  const dir = tempDir();
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // The simulated network (the default) brings devices that must survive the restart.
  const proc = spawnCli(startArgs(port, dir, '--audio-sink', 'null', '--log-level', 'info', '--log-format', 'json'));
  t.after(() => {
    proc.killAll();
    rmSync(dir, { recursive: true, force: true });
  });

  await proc.waitForOutput(/opencube listening on http:\/\/127\.0\.0\.1:\d+/);
  assert.match(proc.stdout(), new RegExp(`listening on ${base} `));
  const pid = proc.child.pid as number;
  assert.equal(readPid(dir), pid, 'the gateway runs in the process the user started');

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
  const devices = await waitForValue(async () => {
    const list = await listDevices(base, token);
    return list.length === 16 && list;
  }, 20_000);
  const events = await openStream(base, stream(token));
  assert.equal(events.status, 200);

  const reboot = await call(base, 'POST', rest('V2', 'hardware/reboot'), { token, body: '' });
  assert.deepEqual(reboot.json, { error: 0, data: {}, message: 'success' });

  await events.closed;
  await proc.waitForOutput(/^opencube: restarting$/m);
  await proc.waitForOutput(/opencube listening on/, 2);
  assert.match(proc.stdout(), new RegExp(`listening on ${base} [^]*listening on ${base} `), 'the same port');
  assert.match(proc.stderr(), /"why":"restart requested","msg":"stopping"/, 'the log says why it stopped');
  assert.equal(proc.child.exitCode, null, 'the process did not end');
  assert.equal(readPid(dir), pid, 'the same process serves again');

  const modes = await call(base, 'GET', rest('v1', 'security'), { token });
  assert.equal(modes.json.error, 0, 'the same token is still valid');
  assert.deepEqual(
    modes.json.data.security_list.filter((m: { enable: boolean }) => m.enable).map((m: { name: string }) => m.name),
    ['away_mode'],
  );
  const serials = (list: { serial_number: string }[]) => list.map((d) => d.serial_number).sort();
  assert.deepEqual(serials(await listDevices(base, token)), serials(devices), 'the same devices');
  const again = await openStream(base, stream(token));
  assert.equal(again.status, 200, 'an event stream client connects again');
  again.close();
  const tokens = await runCli(['tokens', 'list', '--data-dir', dir]);
  assert.match(tokens.stdout, /app=rebooter .* last_used=\S+Z/);

  proc.child.kill('SIGTERM');
  assert.deepEqual(await proc.exited, { code: 0, signal: null });
  await eventually(() => !alive(pid), 10_000, 'the process ended');
  assert.equal(readPid(dir), null, 'the pid file is removed on a clean stop');
  await assert.rejects(fetch(`${base}/open-api/v2/rest/bridge`), 'nothing listens any more');
});
