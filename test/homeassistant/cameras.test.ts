/**
 * Cameras in Home Assistant, end to end against Debian's mosquitto on 127.0.0.1: an ESP32-CAM
 * stand-in (with a password) added by D2 becomes a camera entity and a Snapshot button; JPEGs of
 * the gateway's snapshots come on the camera's topic when it is announced, every interval of the
 * gateway's clock (moved by hand) and when Home Assistant presses the button; a picture that
 * cannot be taken publishes nothing; no message carries a token or the camera's password; a
 * removed camera's configs are cleared.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Timers } from '../../src/drivers/camera/index.ts';
import { loadSettings } from '../../src/settings/index.ts';
import { cameraBody } from '../camera/bodies.ts';
import { decodedSize, type Esp32StandIn, makeJpegs, startEsp32 } from '../camera/servers.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import { call, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { HaClient, type Received } from './ha-client.ts';
import { checkConfig } from './ha-schema.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';

const ACCOUNT = { username: 'admin', password: 'cam-Pa55-w0rd' };
/** Timers that never fire by themselves: the camera watcher stays out of the way. */
const heldTimers: Timers = { setTimeout: () => ({}), clearTimeout: () => {} };

test('homeassistant.camera_interval_seconds: 60 by default, 0 allowed, anything else refused naming the setting', () => {
  assert.equal(loadSettings().homeassistant.camera_interval_seconds, 60);
  const env = 'OPENCUBE_HOMEASSISTANT_CAMERA_INTERVAL_SECONDS';
  assert.equal(loadSettings({ env: { [env]: '0' } }).homeassistant.camera_interval_seconds, 0);
  assert.equal(
    loadSettings({ flags: { 'homeassistant-camera-interval': '300' } }).homeassistant.camera_interval_seconds,
    300,
  );
  for (const bad of ['-1', 'often', '1.5', '86401', '1e3', ' '])
    assert.throws(
      () => loadSettings({ env: { [env]: bad } }),
      (err: Error) => err.message.includes(`homeassistant.camera_interval_seconds (from environment ${env})`),
      JSON.stringify(bad),
    );
});

describe('a camera of the gateway in Home Assistant', () => {
  let mosquitto: Mosquitto;
  let ha: HaClient;
  let esp: Esp32StandIn;
  let g: TestGateway;
  let token: string;
  let serial: string;
  const clock = new ManualClock();
  const { log, lines: logged } = recordingLog('debug');

  before(async () => {
    mosquitto = await startMosquitto();
    ha = await HaClient.connect(mosquitto.url);
    esp = await startEsp32(makeJpegs(320, 240, 3));
    esp.account = ACCOUNT;
    g = await startGateway({
      overrides: { homeassistant: { enabled: true, mqtt_url: mosquitto.url, camera_interval_seconds: 60 } },
      gatewayOptions: {
        clock,
        log,
        drivers: { camera: { timers: heldTimers } },
        integrations: { homeassistant: { reconnectMinMs: 50, reconnectMaxMs: 200 } },
      },
    });
    token = g.token();
    await ha.waitForState('opencube/bridge/availability', (p) => p === 'online');
  });
  after(async () => {
    await ha?.close();
    await g?.stop();
    await esp?.close();
    await mosquitto?.stop();
  });

  const imageTopic = () => `opencube/${serial}/camera`;
  const pressTopic = () => `opencube/${serial}/snapshot/set`;
  const isImage = (m: Received) => m.topic === imageTopic();
  const images = (from: number) => ha.log.slice(from).filter(isImage);

  test('a camera added by D2 is a camera entity and a Snapshot button, and its first picture comes as it is announced', async () => {
    const from = ha.log.length;
    const url = `http://${ACCOUNT.username}:${ACCOUNT.password}@127.0.0.1:${esp.port}/capture`;
    const r = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url) });
    assert.equal(r.json.error, 0, r.text);
    serial = r.json.data.serial_number;
    const camera = await ha.waitFor(() => ha.entity(serial, 'camera'), 'the camera entity');
    const button = ha.entity(serial, 'button', 'snapshot');
    assert.deepEqual(checkConfig('camera', camera.config), []);
    assert.deepEqual(checkConfig('button', button.config), []);
    assert.equal(camera.config.topic, imageTopic());
    assert.equal(camera.config.device.name, 'Porch camera');
    assert.equal(button.config.name, 'Snapshot');
    assert.equal(button.config.command_topic, pressTopic());
    const first = await ha.waitForMessage(isImage, 'the first picture', from);
    assert.deepEqual(decodedSize(first.raw), { width: 320, height: 240 });
    assert.ok(!ha.retained.has(imageTopic()), 'a picture is not a retained state');
  });

  test('every camera_interval_seconds of the gateway clock, a new picture is taken and published', async () => {
    const from = ha.log.length;
    const captures = esp.captures();
    clock.advance(60_000);
    const m = await ha.waitForMessage(isImage, 'the picture of the interval', from);
    assert.deepEqual(decodedSize(m.raw), { width: 320, height: 240 });
    assert.equal(esp.captures(), captures + 1, 'taken from the camera now, not the cached one');
  });

  test('pressing Snapshot publishes a picture at once; another payload is refused on the error topic', async () => {
    const from = ha.log.length;
    await ha.publish(pressTopic(), 'press');
    await ha.publish(pressTopic(), 'PRESS');
    const m = await ha.waitForMessage(isImage, 'the picture of the press', from);
    assert.deepEqual(decodedSize(m.raw), { width: 320, height: 240 });
    const refused = ha.log.slice(from).find((x) => x.topic === `opencube/${serial}/error`);
    assert.ok(refused, 'the refused press is on the error topic');
    assert.deepEqual(JSON.parse(refused.payload), {
      error: 400,
      message: 'payload: "press" is not PRESS',
      topic: pressTopic(),
      payload: 'press',
    });
    // Commands of a device run in order: the refused one was done before the picture came.
    assert.equal(images(from).length, 1, 'one press, one picture');
  });

  test('a picture that cannot be taken publishes nothing, and says why in the debug log', async () => {
    esp.account = { username: ACCOUNT.username, password: 'changed-on-the-camera' };
    try {
      clock.advance(2000); // past the snapshot cache's second
      const from = ha.log.length;
      const lines = logged.length;
      await ha.publish(pressTopic(), 'PRESS');
      const end = Date.now() + 15_000;
      const failed = () => logged.slice(lines).find((l) => l.includes('no snapshot for the camera entity'));
      while (!failed()) {
        if (Date.now() > end) throw new Error('the failed snapshot was not logged');
        await settle(25);
      }
      const line = JSON.parse(failed() as string);
      assert.equal(line.level, 20, 'at debug');
      assert.equal(line.serial, serial);
      assert.deepEqual(images(from), []);
    } finally {
      esp.account = ACCOUNT;
    }
  });

  test('no message the bridge sent carries the token or the camera password', () => {
    assert.ok(images(0).length >= 3);
    const secrets = [
      token,
      ACCOUNT.password,
      encodeURIComponent(ACCOUNT.password),
      Buffer.from(`${ACCOUNT.username}:${ACCOUNT.password}`).toString('base64'),
    ];
    for (const m of ha.log)
      for (const s of secrets) assert.ok(!m.raw.includes(s) && !m.topic.includes(s), `${m.topic} holds a secret`);
    for (const [topic, payload] of ha.retained)
      for (const s of secrets) assert.ok(!payload.includes(s), `${topic} (retained) holds a secret`);
    assert.deepEqual(ha.problems(), []);
  });

  test('a camera removed by D5 has its camera and button configs cleared, and gets no more pictures', async () => {
    assert.equal(ha.entity(serial, 'camera').config.topic, imageTopic(), 'announced before');
    ha.entity(serial, 'button', 'snapshot');
    const r = await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    assert.equal(r.json.error, 0, r.text);
    await ha.waitFor(() => ha.deviceConfigs(serial).length === 0, 'the configs cleared');
    for (const c of ['camera', 'button'])
      assert.ok(![...ha.retained.keys()].some((t) => t.startsWith(`homeassistant/${c}/`) && t.includes(serial)));
    const from = ha.log.length;
    const captures = esp.captures();
    clock.advance(120_000);
    // A press on the removed camera's button is refused on the bridge's error topic: by then the
    // timers the clock moved past have run.
    await ha.publish(pressTopic(), 'PRESS');
    await ha.waitForMessage((m) => m.topic === 'opencube/bridge/error', 'the refused press', from);
    await settle(100);
    assert.equal(esp.captures(), captures);
    assert.deepEqual(images(from), []);
  });
});
