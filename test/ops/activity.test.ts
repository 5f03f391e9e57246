/**
 * The activity log (issue 15): at `info`, one line for each thing a person running the gateway
 * wants to know happened, never a token; requests and MQTT topics only at `debug`. One scenario
 * through the real CLI (its supervisor included), and the lines it wrote. The gateway runs in
 * `z2m` mode on a simulated Zigbee2MQTT that this test starts, so that the test can make a device
 * leave the network and a door open, and the network outlives the gateway's restart.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { it } from 'node:test';
import { startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { call, listDevices, rest, tempDir, waitForValue } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';

/** `text` as a pattern that matches it literally. */
const literally = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

it('one scenario writes one readable line per thing that happened, with app names and no token', async (t) => {
  const dir = tempDir('opencube-activity-');
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  // Sixteen devices, as `sim` mode has by default; no scheduled reports (a door drifting open
  // would set the alarm off on its own).
  const net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: 16,
    sim: { reportIntervalMs: 0, joinDelayMs: 200, interviewMs: 200 },
  });
  const sim = net.sim();
  const proc = spawnCli(
    startArgs(port, dir, '--audio-sink', 'null', '--log-format', 'json', '--log-level', 'info', '--zigbee-mode', 'z2m'),
    { env: { OPENCUBE_ZIGBEE_MQTT_URL: net.url } },
  );
  t.after(async () => {
    proc.killAll();
    await net.stop();
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
  // What the user reads, per stream (an order holds only within one): a JSON line by its message.
  const userLines = () =>
    [proc.stdout(), proc.stderr()].map((text) =>
      text.split('\n').map((l) => (l.startsWith('{') ? (JSON.parse(l) as { msg: string }).msg : l)),
    );
  // However the gateway restarts (a supervisor's new child, or in its own process), it says so, and
  // the lines a start writes follow in the same stream.
  const restartedIn = (streams: string[][]) =>
    streams.some((lines) => {
      const at = lines.findIndex((l) => /\brestarting\b/.test(l));
      return at >= 0 && lines.slice(at + 1).some((l) => /^(opencube listening on |gateway listening$)/.test(l));
    });

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

  // A device leaves the network by itself (reset on the device): named as the user knows it.
  const leaving = sim.list().find((d) => d.fixture.model === 'WSDCGQ11LM');
  assert.ok(leaving, 'the simulated network has a temperature sensor');
  const leftLine = `device left: ${leaving.friendly}`;
  sim.leave(leaving.ieee);
  await logged(new RegExp(`^${literally(leftLine)}$`));

  // A third-party device whose service is gone: the directive fails.
  const gone = await startService();
  const address = gone.url;
  await gone.close();
  const g = { url: base, linkToken: async () => token } as any;
  const synced = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('porch-1', address)] });
  const goneSerial = synced.json.payload.endpoints[0].serial_number as string;
  assert.equal((await put(goneSerial, { state: { power: { powerState: 'on' } } })).json.error, 110019);

  // Arm; a door opens: the alarm sounds at once (no entry delay); G7 silences it; disarm.
  const modes = await call(base, 'GET', rest('v2', 'security'), { token });
  const mode = modes.json.data.security_list[0] as { sid: number; name: string };
  const config = { entry_delay: 0, alarm_duration: -1 };
  assert.equal(
    (await call(base, 'PUT', rest('v2', `security/${mode.sid}/config`), { token, body: config })).json.error,
    0,
  );
  const door = sim.list().find((d) => d.fixture.family === 'contact');
  assert.ok(door, 'the simulated network has a door sensor');
  const doorState = async () =>
    (await listDevices(base, token)).find((d) => d.model === door.fixture.model && d.name === door.friendly)?.state;
  sim.report(door.ieee, { contact: true }); // closed, in Zigbee2MQTT's words
  await waitForValue(async () => (await doorState())?.contact?.contact === false, 15_000, 'the door closed');
  assert.equal((await call(base, 'PUT', rest('v2', `security/${mode.sid}/enable`), { token })).json.error, 0);
  sim.report(door.ieee, { contact: false });
  await logged(/^alarm sounding$/);
  assert.equal((await call(base, 'PUT', rest('v2', 'bridge/cancel_alarm'), { token })).json.error, 0);
  await logged(/^alarm over, by Kitchen tablet$/);
  assert.equal((await call(base, 'PUT', rest('v2', `security/${mode.sid}/disable`), { token })).json.error, 0);

  // Remove a device; restart (G8): the restart is said, then the start-up lines again.
  assert.equal((await call(base, 'DELETE', rest('v2', `devices/${goneSerial}`), { token })).json.error, 0);
  assert.equal((await call(base, 'POST', rest('v2', 'hardware/reboot'), { token, body: '' })).json.error, 0);
  await waitForValue(() => restartedIn(userLines()), 30_000, 'a restart line, then the start-up lines');
  await waitForValue(
    async () => (await call(base, 'GET', '/ready').catch(() => ({ status: 0 }))).status === 200,
    30_000,
    'ready again',
  );

  // Revoke the token (with the CLI: no app or console session did it, so the line names nobody).
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
    /^device renamed: .+ -> Reading lamp, by Kitchen tablet$/,
    /^Kitchen tablet changed Reading lamp \(name\): done$/,
    /^device added: /,
    new RegExp(`^${literally(leftLine)}$`),
    /^third-party directive failed: Device porch-1$/,
    /^Kitchen tablet changed .+ \(state\): refused, /,
    new RegExp(`^armed: ${mode.name}, by Kitchen tablet$`),
    /^alarm sounding$/,
    /^alarm over, by Kitchen tablet$/,
    new RegExp(`^disarmed: ${mode.name}, by Kitchen tablet$`),
    /^device removed: .+, by Kitchen tablet$/,
    /^token revoked$/,
    /^stopping$/,
  ];
  let at = 0;
  for (const pattern of expected) {
    const found = info.findIndex((m, i) => i >= at && pattern.test(m));
    assert.ok(found >= 0, `no line ${pattern} after line ${at} in:\n${info.join('\n')}`);
    at = found + 1;
  }
  // An app waiting is said once, by its name: never a line with no name (a press empties the list).
  assert.deepEqual(
    info.filter((m) => /^waiting for approval:/.test(m)),
    ['waiting for approval: Kitchen tablet'],
  );
  // A device that left is said once, by its name.
  assert.deepEqual(
    info.filter((m) => /^device left: /.test(m)),
    [leftLine],
  );
  // The features the mapping leaves out: one line for the whole device list, their names at debug
  // (at most once more, by the gateway that started after the restart, on a network changed since).
  const summaries = info.filter((m) => /not offer/.test(m));
  assert.equal(summaries[0], 'zigbee2mqtt: 14 models have features the API does not offer (listed at debug level)');
  assert.ok(summaries.length <= 2, summaries.join('\n'));
  for (const m of summaries) assert.match(m, /^zigbee2mqtt: \d+ models have features the API does not offer /);
  // At info, no request lines and no MQTT topics: those are for debug.
  assert.deepEqual(
    infoLines.filter((m) => m.msg === 'request' || m.topic !== undefined || /zigbee2mqtt\//.test(m.msg)),
    [],
  );
  assert.equal(proc.stderr().includes(token), false, 'the token was never written');
});
