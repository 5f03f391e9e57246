/**
 * The activity log names who did a thing (issue 25): arming, disarming (one mode or all),
 * one-click arming, cancelling the alarm, renaming and removing a device, changing a setting, the
 * link button, denying and revoking a token, adding a camera, each by an app (by the name it gave with its token)
 * or by the console (and which session), in exactly one line per thing. Who did it never reaches
 * the event streams: their frames are byte for byte what they were.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cameraBody } from '../camera/bodies.ts';
import { makeJpegs, startEsp32 } from '../camera/servers.ts';
import { consoleClient } from '../console/client.ts';
import { ManualClock } from '../helpers/clock.ts';
import { call, eventually, openStream, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { type RecordingLog, recordingLog } from '../helpers/log.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

const PASSWORD = 'correct horse battery';
const APP = 'Kitchen tablet';

let g: TestGateway;
let recorded: RecordingLog;
let token: string;
let smoke: string;
let console1: ReturnType<typeof consoleClient>;
let session: string;
let modes: { sid: number; name: string }[];
/** The gateway's clock: the alarm's length runs out when the test moves it. */
const clock = new ManualClock();

/** The activity lines (info) logged so far, with their fields. */
const infoLines = () =>
  recorded.lines
    .map((l) => JSON.parse(l) as { level: number; msg: string; by?: string; app_name?: string | null })
    .filter((m) => m.level === 30);

/**
 * The info lines `act` causes, once `count` have come (the lines of a request are written before
 * its answer; the guard only waits out the logger's stream).
 */
async function linesOf(act: () => Promise<unknown>, count: number): Promise<string[]> {
  const from = infoLines().length;
  await act();
  await eventually(() => infoLines().length >= from + count, 5_000, `${count} new lines`);
  return infoLines()
    .slice(from)
    .map((m) => m.msg);
}

const openApi = (method: string, path: string, body?: unknown) =>
  call(g.url, method, rest('v2', path), { token, ...(body === undefined ? {} : { body }) });

/** Sets the smoke detector off (detected) or back to clear, through the third-party protocol. */
const smokeReport = (on: boolean) =>
  sendEvent(
    g,
    token,
    'DeviceStatesChangeReport',
    { state: { smoke: { smoke: on } } },
    { endpoint: { serial_number: smoke } },
  );

/** Makes the alarm sound (smoke rings at once, armed or not). */
async function soundAlarm(): Promise<void> {
  await smokeReport(false);
  const before = infoLines().length;
  assert.equal((await smokeReport(true)).json.header.name, 'Response');
  await eventually(
    () =>
      infoLines()
        .slice(before)
        .some((m) => m.msg === 'alarm sounding'),
    5_000,
    'the alarm sounding',
  );
}

/** Adds a lamp through the third-party protocol; its serial number. */
async function addLamp(third: string): Promise<string> {
  const sync = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint(third, 'http://127.0.0.1:9/x')] });
  return sync.json.payload.endpoints[0].serial_number as string;
}

before(async () => {
  recorded = recordingLog('info');
  g = await startGateway({ gatewayOptions: { log: recorded.log, clock } });
  await g.gateway.setConsolePassword(PASSWORD);
  token = await g.linkToken(APP);
  const sync = await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [
      {
        ...endpoint('smoke-1', 'http://127.0.0.1:9/x'),
        display_category: 'smokeDetector',
        capabilities: [{ capability: 'smoke', permission: '0100' }],
        state: { smoke: { smoke: false } },
      },
    ],
  });
  smoke = sync.json.payload.endpoints[0].serial_number as string;
  console1 = consoleClient(g.url);
  const login = await console1.login(PASSWORD);
  assert.equal(login.status, 200, JSON.stringify(login.body));
  session = login.body.session.id as string;
  modes = (await openApi('GET', 'security')).json.data.security_list;
});

after(() => g.stop());

describe('the security modes and the alarm', () => {
  test('an app that arms, disarms and cancels the alarm is named by its app name, one line each', async () => {
    const [home, away] = modes as [{ sid: number; name: string }, { sid: number; name: string }];
    assert.deepEqual(await linesOf(() => openApi('PUT', `security/${home.sid}/enable`), 1), [
      `armed: ${home.name}, by ${APP}`,
    ]);
    // Arming another mode disarms the one armed: two things, a line each, both by the app.
    assert.deepEqual(await linesOf(() => openApi('PUT', `security/${away.sid}/enable`), 2), [
      `disarmed: ${home.name}, by ${APP}`,
      `armed: ${away.name}, by ${APP}`,
    ]);
    assert.deepEqual(await linesOf(() => openApi('PUT', `security/${away.sid}/disable`), 1), [
      `disarmed: ${away.name}, by ${APP}`,
    ]);
    await soundAlarm();
    assert.deepEqual(await linesOf(() => openApi('PUT', 'bridge/cancel_alarm'), 1), [`alarm over, by ${APP}`]);
    // The fields say it too, as a command's line does.
    const last = infoLines().at(-1);
    assert.deepEqual([last?.by, last?.app_name], [APP, APP]);
  });

  test('one-click arming and disarming every mode name the app; disarming stops the alarm, by the same app', async () => {
    const armed = await linesOf(() => openApi('PUT', 'security/enable'), 1);
    assert.equal(armed.length, 1);
    assert.match(armed[0] as string, new RegExp(`^armed: \\w+, by ${APP}$`));
    const mode = (armed[0] as string).slice('armed: '.length, -`, by ${APP}`.length);
    assert.ok(
      modes.some((m) => m.name === mode),
      `${mode} is a mode`,
    );
    await soundAlarm();
    assert.deepEqual(await linesOf(() => openApi('PUT', 'security/disable'), 2), [
      `disarmed: ${mode}, by ${APP}`,
      `alarm over, by ${APP}`,
    ]);
    // Nothing armed: a smoke alarm is still stopped by a disarm of every mode, and says by whom.
    await soundAlarm();
    assert.deepEqual(await linesOf(() => openApi('PUT', 'security/disable'), 1), [`alarm over, by ${APP}`]);
  });

  test('the console is named with its session when it arms, disarms and cancels the alarm', async () => {
    const by = `by the console (session ${session})`;
    const [home] = modes as [{ sid: number; name: string }];
    assert.deepEqual(await linesOf(() => console1.call('POST', `/security/${home.sid}/arm`), 1), [
      `armed: ${home.name}, ${by}`,
    ]);
    await soundAlarm();
    assert.deepEqual(await linesOf(() => console1.call('POST', '/alarm/cancel'), 1), [`alarm over, ${by}`]);
    assert.deepEqual(await linesOf(() => console1.call('POST', `/security/${home.sid}/disarm`), 1), [
      `disarmed: ${home.name}, ${by}`,
    ]);
    await console1.call('POST', `/security/${home.sid}/arm`);
    await soundAlarm();
    assert.deepEqual(await linesOf(() => console1.call('POST', '/security/disarm'), 2), [
      `disarmed: ${home.name}, ${by}`,
      `alarm over, ${by}`,
    ]);
    // The fields name the console, and no app.
    const last = infoLines().at(-1);
    assert.deepEqual([last?.by, last?.app_name], [`the console (session ${session})`, null]);
  });

  test('an alarm set off by a sensor, and one that ends when its length runs out, name nobody', async () => {
    for (const m of modes)
      assert.equal((await openApi('PUT', `security/${m.sid}/config`, { alarm_duration: 30 })).json.error, 0);
    const lines = await linesOf(async () => {
      await soundAlarm();
      clock.advance(30_000);
    }, 2);
    assert.deepEqual(lines, ['alarm sounding', 'alarm over']);
    for (const m of modes) await openApi('PUT', `security/${m.sid}/config`, { alarm_duration: -1 });
  });

  test('who did it never reaches the streams: the frames carry the event data as before', async () => {
    const [home] = modes as [{ sid: number; name: string }];
    const sse = await openStream(g.url, `/open-api/v2/sse/bridge?access_token=${encodeURIComponent(token)}`);
    const cs = await openStream(g.url, '/console/api/events', { cookie: `opencube_session=${console1.cookie}` });
    try {
      await openApi('PUT', `security/${home.sid}/enable`);
      await console1.call('POST', `/security/${home.sid}/disarm`);
      const want = [
        JSON.stringify({ payload: { arm_state: 'arming', detail: { sid: home.sid, name: home.name } } }),
        JSON.stringify({ payload: { arm_state: 'disarming', detail: { sid: home.sid, name: home.name } } }),
      ];
      for (const [stream, name] of [
        [sse, 'security#v2#updateArmState'],
        [cs, 'security#updateArmState'],
      ] as const) {
        const of = () => stream.events().filter((f) => f.event === name);
        await stream.waitFor(() => of().length === 2);
        assert.deepEqual(
          of().map((f) => f.data.join('\n')),
          want,
        );
        assert.ok(!stream.text().includes(session) && !stream.text().includes(APP), 'no actor on the wire');
      }
    } finally {
      sse.close();
      cs.close();
    }
  });
});

describe('devices', () => {
  test('an app that renames and removes a device is named by its app name', async () => {
    const lamp = await addLamp('lamp-app');
    const renamed = await linesOf(() => openApi('PUT', `devices/${lamp}`, { name: 'Reading lamp' }), 2);
    assert.equal(renamed.length, 2, renamed.join('\n'));
    assert.match(renamed[0] as string, new RegExp(`^device renamed: .+ -> Reading lamp, by ${APP}$`));
    // The command's own line, as before.
    assert.equal(renamed[1], `${APP} changed Reading lamp (name): done`);
    assert.deepEqual(await linesOf(() => openApi('DELETE', `devices/${lamp}`), 1), [
      `device removed: Reading lamp, by ${APP}`,
    ]);
  });

  test('the console that renames and removes a device is named with its session', async () => {
    const lamp = await addLamp('lamp-console');
    const renamed = await linesOf(() => console1.call('PUT', `/devices/${lamp}`, { name: 'Porch light' }), 2);
    assert.match(
      renamed[0] as string,
      new RegExp(`^device renamed: .+ -> Porch light, by the console \\(session ${session}\\)$`),
    );
    assert.equal(renamed[1], `the console (session ${session}) changed Porch light (name): done`);
    assert.deepEqual(await linesOf(() => console1.call('DELETE', `/devices/${lamp}`), 1), [
      `device removed: Porch light, by the console (session ${session})`,
    ]);
  });

  test('a camera added by an app or by the console names who added it', async (t) => {
    const [one, two] = [await startEsp32(makeJpegs(32, 24, 1)), await startEsp32(makeJpegs(32, 24, 1))];
    t.after(async () => {
      await one.close();
      await two.close();
    });
    const byApp = await linesOf(
      () => openApi('POST', 'devices', cameraBody(`http://127.0.0.1:${one.port}/capture`, { name: 'Porch camera' })),
      1,
    );
    assert.equal(
      byApp.filter((m) => m.startsWith('device added: ')).join('\n'),
      `device added: Porch camera, by ${APP}`,
    );
    const byConsole = await linesOf(
      () =>
        console1.call('POST', '/cameras', {
          name: 'Garden camera',
          protocol: 'ESP32-CAM',
          stream_url: `http://127.0.0.1:${two.port}/capture`,
        }),
      1,
    );
    assert.equal(
      byConsole.filter((m) => m.startsWith('device added: ')).join('\n'),
      `device added: Garden camera, by the console (session ${session})`,
    );
  });

  test('a device its own service renames names nobody', async () => {
    await addLamp('lamp-service');
    const lines = await linesOf(
      () =>
        sendEvent(g, token, 'DiscoveryRequest', {
          endpoints: [endpoint('lamp-service', 'http://127.0.0.1:9/x', { name: 'Hall lamp' })],
        }),
      1,
    );
    assert.deepEqual(lines, ['device renamed: Device lamp-service -> Hall lamp']);
  });
});

describe('the console', () => {
  const by = () => `by the console (session ${session})`;

  test('a setting changed names the session', async () => {
    const r = await linesOf(() => console1.call('PUT', '/settings/audio.beeps.armed', { value: false }), 1);
    assert.deepEqual(r, [`setting changed: audio.beeps.armed, ${by()}`]);
  });

  test('the link button pressed, an app denied and a token revoked name the session', async () => {
    const pressed = await linesOf(() => console1.call('POST', '/link/press'), 1);
    assert.match(
      pressed[0] as string,
      new RegExp(`^link button pressed, ${by().replace(/[()]/g, '\\$&')}: apps may get a token until `),
    );
    assert.deepEqual(await linesOf(() => console1.call('POST', '/link/deny', { app_name: 'Homebridge' }), 1), [
      `token denied to Homebridge, ${by()}`,
    ]);
    g.gateway.tokens.closeWindow();
    const other = g.token('Node-RED');
    const id = g.gateway.tokens.list().find((t) => t.app_name === 'Node-RED')?.id as string;
    assert.ok(other && id);
    assert.deepEqual(await linesOf(() => console1.call('DELETE', `/tokens/${id}`), 1), [`token revoked, ${by()}`]);
  });

  test('a second session is told apart from the first', async () => {
    const second = consoleClient(g.url);
    const login = await second.login(PASSWORD);
    const id = login.body.session.id as string;
    assert.notEqual(id, session);
    const [home] = modes as [{ sid: number; name: string }];
    assert.deepEqual(await linesOf(() => second.call('POST', `/security/${home.sid}/arm`), 1), [
      `armed: ${home.name}, by the console (session ${id})`,
    ]);
    await second.call('POST', `/security/${home.sid}/disarm`);
  });
});
