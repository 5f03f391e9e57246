/**
 * The activity log (issue 15): at `info`, one line for each thing a person running the gateway
 * wants to know happened, never a token; requests and MQTT topics only at `debug`. One scenario
 * through the real CLI with the simulated Zigbee network, and the lines it wrote.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { it } from 'node:test';
import { freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, listDevices, rest, tempDir, waitForValue } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';

it('one scenario writes one readable line per thing that happened, with app names and no token', async (t) => {
  const dir = tempDir('opencube-activity-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const proc = spawnCli(startArgs(port, dir, '--audio-sink', 'null', '--log-format', 'json', '--log-level', 'info'));
  t.after(() => {
    proc.killAll();
    rmSync(dir, { recursive: true, force: true });
  });
  await waitForValue(
    async () => (await call(base, 'GET', '/ready').catch(() => ({ status: 0 }))).status === 200,
    30_000,
    'ready',
  );
  const messages = () =>
    proc
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: number; msg: string; topic?: string });
  const logged = (pattern: RegExp) =>
    waitForValue(() => messages().some((m) => pattern.test(m.msg)), 15_000, `a line matching ${pattern}`);

  // An app asks, the link button is pressed, the app gets its token.
  const poll = () => call(base, 'GET', `${rest('v2', 'bridge/access_token')}?app_name=Kitchen%20tablet`);
  assert.equal((await poll()).json.error, 401);
  assert.equal((await runCli(['link', '--data-dir', dir])).code, 0);
  const token = (await poll()).json.data.token as string;
  assert.ok(token);
  await logged(/^token issued to Kitchen tablet$/);

  // Commands, each with who asked and how it went.
  const light = (await listDevices(base, token)).find((d) => d.display_category === 'light');
  assert.ok(light, 'the simulated network has a light');
  const put = (serial: string, body: unknown) => call(base, 'PUT', rest('v2', `devices/${serial}`), { token, body });
  assert.equal((await put(light.serial_number, { state: { power: { powerState: 'on' } } })).json.error, 0);
  assert.equal((await put(light.serial_number, { state: { brightness: { brightness: 140 } } })).json.error, 400);
  assert.equal((await put(light.serial_number, { name: 'Reading lamp' })).json.error, 0);

  // A device joins through pairing.
  const before = (await listDevices(base, token)).length;
  assert.equal(
    (await call(base, 'PUT', rest('v2', 'devices/discovery'), { token, body: { enable: true, type: 'Zigbee' } })).json
      .error,
    0,
  );
  await waitForValue(async () => (await listDevices(base, token)).length > before, 30_000, 'a device joined');
  await call(base, 'PUT', rest('v2', 'devices/discovery'), { token, body: { enable: false, type: 'Zigbee' } });

  // A third-party device whose service is gone: the directive fails.
  const gone = await startService();
  const address = gone.url;
  await gone.close();
  const g = { url: base, linkToken: async () => token } as any;
  const synced = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('porch-1', address)] });
  const goneSerial = synced.json.payload.endpoints[0].serial_number as string;
  assert.equal((await put(goneSerial, { state: { power: { powerState: 'on' } } })).json.error, 110019);

  // Arm and disarm, remove a device, revoke the token.
  const modes = await call(base, 'GET', rest('v2', 'security'), { token });
  const mode = modes.json.data.security_list[0] as { sid: number; name: string };
  assert.equal((await call(base, 'PUT', rest('v2', `security/${mode.sid}/enable`), { token })).json.error, 0);
  assert.equal((await call(base, 'PUT', rest('v2', `security/${mode.sid}/disable`), { token })).json.error, 0);
  assert.equal((await call(base, 'DELETE', rest('v2', `devices/${goneSerial}`), { token })).json.error, 0);
  const tokens = await runCli(['tokens', '--data-dir', dir]);
  const id = /^(\S+)\s+app=Kitchen tablet/m.exec(tokens.stdout)?.[1];
  assert.ok(id, tokens.stdout);
  assert.equal((await runCli(['tokens', 'revoke', id, '--data-dir', dir])).code, 0);
  await logged(/^token revoked$/);

  proc.child.kill('SIGTERM');
  assert.equal((await proc.exited).code, 0, proc.stderr().slice(-2000));

  const infoLines = messages().filter((m) => m.level === 30);
  const info = infoLines.map((m) => m.msg);
  const expected: RegExp[] = [
    /^waiting for approval: Kitchen tablet$/,
    /^link button pressed: apps may get a token until /,
    /^token issued to Kitchen tablet$/,
    /^Kitchen tablet changed .+ \(state\): done$/,
    /^Kitchen tablet changed .+ \(state\): refused, .*brightness/,
    /^device renamed: .+ -> Reading lamp$/,
    /^Kitchen tablet changed Reading lamp \(name\): done$/,
    /^device added: /,
    /^third-party directive failed: Device porch-1$/,
    /^Kitchen tablet changed .+ \(state\): refused, /,
    new RegExp(`^armed: ${mode.name}$`),
    new RegExp(`^disarmed: ${mode.name}$`),
    /^device removed: /,
    /^token revoked$/,
    /^stopping$/,
  ];
  let at = 0;
  for (const pattern of expected) {
    const found = info.findIndex((m, i) => i >= at && pattern.test(m));
    assert.ok(found >= 0, `no line ${pattern} after line ${at} in:\n${info.join('\n')}`);
    at = found + 1;
  }
  // The features the mapping leaves out: one line for the whole device list, their names at debug.
  assert.deepEqual(
    info.filter((m) => /not offer/.test(m)),
    ['zigbee2mqtt: 14 models have features the API does not offer (listed at debug level)'],
  );
  // At info, no request lines and no MQTT topics: those are for debug.
  assert.deepEqual(
    infoLines.filter((m) => m.msg === 'request' || m.topic !== undefined || /zigbee2mqtt\//.test(m.msg)),
    [],
  );
  assert.equal(proc.stderr().includes(token), false, 'the token was never written');
});
