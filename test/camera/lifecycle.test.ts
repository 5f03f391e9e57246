/**
 * A camera added by D2 behaves like every other device: renamed and re-configured by D4 (a new
 * stream is probed first, and a failed probe changes nothing), removed by D5, kept across a
 * restart, and marked offline and online by the watcher as its server stops and starts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { CameraDriver, Timers } from '../../src/drivers/camera/index.ts';
import { call, listDevices, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { recordingLog } from '../helpers/log.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { cameraBody } from './bodies.ts';
import { makeJpegs, type RtspServer, startEsp32, startRtspServer } from './servers.ts';

const ADMIN = { username: 'admin', password: 'secret' };

/** Timers that never fire by themselves: the test runs watcher rounds with checkNow(). */
const heldTimers: Timers = { setTimeout: () => ({}), clearTimeout: () => {} };

describe('a camera through D4, D5, restarts and the watcher', () => {
  let g: TestGateway;
  let token: string;
  let events: EventStream;
  let plain: RtspServer;
  let digest: RtspServer;
  /** Every log line the gateway wrote (at debug level). */
  const { log, lines: logged } = recordingLog('debug');

  before(async () => {
    [plain, digest] = await Promise.all([startRtspServer('none'), startRtspServer('digest')]);
    g = await startGateway({
      overrides: { camera: { failures_before_offline: 2 } },
      gatewayOptions: { drivers: { camera: { timers: heldTimers } }, log },
    });
    token = g.token();
    events = await openEvents(g.url, token);
  });
  after(async () => {
    events?.close();
    await g?.stop();
    await Promise.all([plain?.stop(), digest?.stop()]);
  });

  const driver = () => g.gateway.devices.driver('camera') as CameraDriver;
  const add = async (url: string) => {
    const r = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url) });
    assert.equal(r.json.error, 0, r.text);
    return r.json.data.serial_number as string;
  };
  const put = (serial: string, body: unknown) => call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });
  const find = async (serial: string) => (await listDevices(g.url, token)).find((d) => d.serial_number === serial);
  const value = (d: any) => d.capabilities[0].settings.streamSetting.value;
  const config = (url: string, account?: object) => ({
    configuration: { streamSetting: { type: 'object', permission: '11', value: { stream_url: url, ...account } } },
  });

  test('D4 renames and retags a camera like any device', async () => {
    const serial = await add(plain.url('h264'));
    const r = await put(serial, { name: 'Garden', tags: { room: 'garden' } });
    assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' });
    const d = await find(serial);
    assert.equal(d.name, 'Garden');
    assert.deepEqual(d.tags, { room: 'garden' });
    await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
  });

  test('D4 configuration with a new stream URL probes it first, then serves the new stream and sends updateDeviceInfo', async () => {
    const serial = await add(plain.url('h264'));
    const r = await put(serial, config(plain.url('h264-alt')));
    assert.equal(r.json.error, 0, r.text);
    const d = await find(serial);
    assert.equal(value(d).streamUrl, plain.url('h264-alt'));
    assert.deepEqual(value(d).resolution, { width: 320, height: 240 }, 'filled from the new probe');
    assert.equal('audioCodec' in value(d), false, 'the new stream has no audio');
    assert.equal(d.capabilities[0].configuration.streamSetting.value.stream_url, plain.url('h264-alt'));
    await events.waitFor(
      (e) =>
        e.type === 'updateDeviceInfo' &&
        e.data.endpoint.serial_number === serial &&
        e.data.payload.capabilities[0].settings.streamSetting.value.streamUrl === plain.url('h264-alt'),
    );
    // The 2.6 setting written by a client (only the URL) is probed too, and filled back.
    const viaSetting = await put(serial, {
      capabilities: [
        { capability: 'camera-stream', settings: { streamSetting: { value: { streamUrl: plain.url('h265') } } } },
      ],
    });
    assert.equal(viaSetting.json.error, 0, viaSetting.text);
    await new Promise((r) => setImmediate(r));
    const after265 = await find(serial);
    assert.equal(value(after265).videoCodec, 'H265');
    assert.equal(value(after265).streamUrl, plain.url('h265'));
    await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
  });

  test('D4 configuration that fails its probe is 110024 and changes nothing', async () => {
    const serial = await add(plain.url('h264'));
    const before = await find(serial);
    for (const [body, why] of [
      [config(plain.url('no-such-mount')), /no stream at this path/],
      [config(plain.url('mjpeg')), /110012/],
      [config('rtsp://127.0.0.1:1/x'), /110009/],
      [config('rtsp://127.0.0.1:99999/x'), /not a URL/],
    ] as const) {
      const r = await put(serial, body);
      assert.equal(r.json.error, 110024, r.text);
      assert.match(r.json.message, why);
      assert.deepEqual(await find(serial), before, 'nothing changed');
    }
    // A URL that is not even URL-shaped is a parameter error of the capability (the catalog's check).
    const shapeless = await put(serial, config('rtsp:/broken'));
    assert.equal(shapeless.json.error, 400, shapeless.text);
    assert.match(shapeless.json.message, /stream_url/);
    const other = await add(plain.url('h265'));
    const taken = await put(serial, config(plain.url('h265')));
    assert.equal(taken.json.error, 110024, taken.text);
    assert.match(taken.json.message, new RegExp(`already added as ${other}`));
    for (const s of [serial, other]) await call(g.url, 'DELETE', rest('v2', `devices/${s}`), { token });
  });

  test('D4 changes the credentials of a camera: a wrong password is 110024, the right one is kept', async () => {
    const serial = await add(digest.url('h264', ADMIN));
    const wrong = await put(serial, config(digest.url('h264'), { username: 'admin', password: 'not-the-pass' }));
    assert.equal(wrong.json.error, 110024, wrong.text);
    assert.match(wrong.json.message, /110010/);
    assert.equal(value(await find(serial)).password, 'secret');
    const mismatch = await put(serial, config(digest.url('h264', ADMIN), { username: 'bob', password: 'x' }));
    assert.equal(mismatch.json.error, 110024);
    assert.match(mismatch.json.message, /differs/);
    // A URL without credentials and no account keeps the camera's account.
    const kept = await put(serial, config(digest.url('h264')));
    assert.equal(kept.json.error, 0, kept.text);
    assert.equal(value(await find(serial)).username, 'admin');
    await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
  });

  test('the watcher marks a camera offline when its server stops and online when it is back, with updateDeviceOnline', async () => {
    const cam = await startRtspServer('none');
    try {
      const serial = await add(cam.url('h264'));
      await driver().checkNow();
      assert.equal((await find(serial)).online, true);
      const port = cam.port;
      await cam.stop();
      await driver().checkNow();
      assert.equal(
        (await find(serial)).online,
        true,
        'one failed check is not enough (camera.failures_before_offline 2)',
      );
      await driver().checkNow();
      assert.equal((await find(serial)).online, false);
      await events.waitFor(
        (e) => e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && !e.data.payload.online,
      );

      // A change that needs the camera is refused while it is offline; the same stream cannot be checked.
      const offline = await put(serial, config(cam.url('h264'), { username: 'a', password: 'b' }));
      assert.equal(offline.json.error, 110014, offline.text);

      const back = await startRtspServer('none', port);
      try {
        await driver().checkNow();
        assert.equal((await find(serial)).online, true);
        await events.waitFor(
          (e) => e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && e.data.payload.online,
        );
      } finally {
        await back.stop();
      }
      await driver().checkNow();
      await driver().checkNow();
      assert.equal((await find(serial)).online, false);
      // A camera that moved: a D4 to its new, working address brings it back at once.
      const moved = await put(serial, config(plain.url('h264-alt')));
      assert.equal(moved.json.error, 0, moved.text);
      assert.equal((await find(serial)).online, true);
      await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    } finally {
      await cam.stop();
    }
  });

  test('the watcher marks an ESP32-CAM offline when its board stops answering and online when it is back, with updateDeviceOnline', async () => {
    const frames = makeJpegs(160, 120, 2);
    const board = await startEsp32(frames);
    let back: Awaited<ReturnType<typeof startEsp32>> | undefined;
    try {
      const serial = await add(`${board.base}/capture`);
      await driver().checkNow();
      assert.equal((await find(serial)).online, true);
      await board.close();
      await driver().checkNow();
      assert.equal((await find(serial)).online, true, 'one failed check is not enough');
      await driver().checkNow();
      assert.equal((await find(serial)).online, false);
      await events.waitFor(
        (e) => e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && !e.data.payload.online,
      );
      back = await startEsp32(frames, board.port);
      await driver().checkNow();
      assert.equal((await find(serial)).online, true);
      await events.waitFor(
        (e) => e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && e.data.payload.online,
      );
      await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    } finally {
      await Promise.all([board.close(), back?.close()]);
    }
  });

  test('D5 removes a camera with deleteDevice; its stream can be added again; cameras survive a restart', async () => {
    const serial = await add(plain.url('h264'));
    const r = await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' });
    await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === serial);
    assert.equal(await find(serial), undefined);
    const again = await add(plain.url('h264'));
    const listed = await find(again);
    events.close();
    g = await g.restart();
    token = g.token();
    events = await openEvents(g.url, token);
    assert.deepEqual(await find(again), listed, 'the same camera after a restart');
    const dup = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(plain.url('h264')) });
    assert.equal(dup.json.error, 110013, 'its stream is still known after the restart');
    await driver().checkNow();
    assert.equal((await find(again)).online, true);
  });

  test('passwords never reach the log: URLs are logged without credentials', () => {
    const text = logged.join('');
    assert.match(text, /camera added/);
    assert.ok(
      text.includes(`rtsp://127.0.0.1:${digest.port}/h264`),
      'the camera with credentials is logged, without them',
    );
    for (const secret of ['secret', 'not-the-pass'])
      assert.equal(text.includes(secret), false, `"${secret}" is not in the log`);
  });
});
