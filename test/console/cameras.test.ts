/**
 * A camera's picture in the console: the snapshot route (`GET /console/api/cameras/{serial}/snapshot`)
 * behind the session, giving the JPEG of an ESP32-CAM stand-in, and a device that is unknown or no
 * camera refused in words.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COOKIE } from '../../src/http/console/route.ts';
import { cameraBody } from '../camera/bodies.ts';
import { decodedSize, type Esp32StandIn, makeJpegs, startEsp32 } from '../camera/servers.ts';
import { call, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';
import { type ConsoleClient, consoleClient } from './client.ts';

/** GET a snapshot through the console with this cookie (or none): status, type and bytes. */
async function snapshot(url: string, serial: string, cookie?: string) {
  const res = await fetch(`${url}/console/api/cameras/${encodeURIComponent(serial)}/snapshot`, {
    headers: cookie ? { cookie: `${COOKIE}=${cookie}` } : {},
    signal: AbortSignal.timeout(20_000),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return {
    status: res.status,
    type: res.headers.get('content-type') ?? '',
    cache: res.headers.get('cache-control'),
    body,
  };
}

/**
 * An ESP32-CAM stand-in (asking for `account` when given), added to a gateway as D2 adds it (with
 * the account in its URL), and a console logged in to that gateway.
 */
async function cameraConsole(account?: { username: string; password: string }) {
  const esp = await startEsp32(makeJpegs(320, 240, 2));
  if (account) esp.account = account;
  const g = await startGateway();
  const auth = account ? `${account.username}:${account.password}@` : '';
  const url = `http://${auth}127.0.0.1:${esp.port}/capture`;
  const added = await call(g.url, 'POST', rest('v2', 'devices'), { token: g.token(), body: cameraBody(url) });
  assert.equal(added.json.error, 0, added.text);
  await g.gateway.setConsolePassword('a camera password');
  const c = consoleClient(g.url);
  assert.equal((await c.login('a camera password')).status, 200);
  return { esp, g, c, camera: added.json.data.serial_number as string };
}

describe("a camera's snapshot in the console", () => {
  let g: TestGateway;
  let esp: Esp32StandIn;
  let c: ConsoleClient;
  let camera: string;

  before(async () => {
    ({ esp, g, c, camera } = await cameraConsole());
  });

  after(async () => {
    await g?.stop();
    await esp?.close();
  });

  test("gives a logged-in console the camera's JPEG, never cached", async () => {
    const shot = await snapshot(g.url, camera, c.cookie);
    assert.equal(shot.status, 200, shot.body.toString().slice(0, 200));
    assert.equal(shot.type, 'image/jpeg');
    assert.equal(shot.cache, 'no-store');
    assert.deepEqual([...shot.body.subarray(0, 2)], [0xff, 0xd8], 'a JPEG');
    assert.deepEqual(decodedSize(shot.body), { width: 320, height: 240 });
  });

  test('gives no picture without a session, or with one that ended', async () => {
    const none = await snapshot(g.url, camera);
    assert.equal(none.status, 401);
    assert.match(JSON.parse(none.body.toString()).error, /log in/);
    const forged = await snapshot(g.url, camera, 'not-a-session');
    assert.equal(forged.status, 401);
    const captures = esp.captures();
    assert.equal((await snapshot(g.url, camera)).status, 401);
    assert.equal(esp.captures(), captures, 'the camera was not asked');
  });

  test('says in words that a device is unknown, or is no camera', async () => {
    const unknown = await snapshot(g.url, 'no-such-camera', c.cookie);
    assert.equal(unknown.status, 404);
    assert.match(unknown.type, /application\/json/);
    assert.match(JSON.parse(unknown.body.toString()).error, /does not exist/);
    const synced = await sendEvent(g, g.token(), 'DiscoveryRequest', {
      endpoints: [endpoint('lamp-1', 'http://127.0.0.1:9/lamp')],
    });
    const lamp = synced.json.payload.endpoints[0].serial_number as string;
    const notCamera = await snapshot(g.url, lamp, c.cookie);
    assert.equal(notCamera.status, 400);
    assert.match(JSON.parse(notCamera.body.toString()).error, new RegExp(`the device ${lamp} is not a camera`));
    // The longest serial the router takes is looked up like any other.
    const long = await snapshot(g.url, 'x'.repeat(500), c.cookie);
    assert.equal(long.status, 404);
    assert.match(JSON.parse(long.body.toString()).error, /does not exist/);
  });
});

/** The console's event stream of a session, as text, from now on. */
function consoleEvents(url: string, cookie: string): { text: () => string; close: () => void } {
  const ctrl = new AbortController();
  let text = '';
  void (async () => {
    try {
      const res = await fetch(`${url}/console/api/events`, {
        headers: { cookie: `${COOKIE}=${cookie}` },
        signal: ctrl.signal,
      });
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      const decoder = new TextDecoder();
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        text += decoder.decode(value, { stream: true });
      }
    } catch {
      // closed by the test
    }
  })();
  return { text: () => text, close: () => ctrl.abort() };
}

describe("a camera's stream in the console", () => {
  const PASSWORD = 's3cret-camera-pw';
  let g: TestGateway;
  let esp: Esp32StandIn;
  let c: ConsoleClient;
  let camera: string;

  before(async () => {
    ({ esp, g, c, camera } = await cameraConsole({ username: 'admin', password: PASSWORD }));
  });

  after(async () => {
    await g?.stop();
    await esp?.close();
  });

  test('is shown as an address, a user name and whether there is a password, never the password itself', async () => {
    const page = await c.call('GET', `/devices/${camera}`);
    assert.equal(page.status, 200);
    assert.deepEqual(page.body.device.layout.camera, {
      protocol: 'ESP32-CAM',
      stream_url: `http://127.0.0.1:${esp.port}/capture`,
      username: 'admin',
      has_password: true,
      facts: [
        { label: 'Video', text: 'MJPEG' },
        { label: 'Picture size', text: '320 × 240 pixels' },
      ],
    });
    for (const path of [`/devices/${camera}`, '/devices'])
      assert.equal(JSON.stringify((await c.call('GET', path)).body).includes(PASSWORD), false, `${path} holds it`);
    // The Open API serves it to token holders as the spec shapes the setting (docs/cameras.md).
    const open = await call(g.url, 'GET', rest('v2', 'devices'), { token: g.token() });
    assert.equal(open.text.includes(PASSWORD), true);
  });

  test('is changed by the form with the password left empty: the camera keeps its own, and no event a console gets carries it', async () => {
    const events = consoleEvents(g.url, c.cookie as string);
    try {
      await new Promise((r) => setTimeout(r, 200));
      const moved = await c.call('PUT', `/cameras/${camera}`, {
        stream_url: `http://127.0.0.1:${esp.port}/stream`,
        username: 'admin',
      });
      assert.equal(moved.status, 200, JSON.stringify(moved.body));
      // The stand-in answers only with the account: the probe used the password the camera had.
      assert.equal(moved.body.device.layout.camera.stream_url, `http://127.0.0.1:${esp.port}/stream`);
      assert.equal(moved.body.device.layout.camera.has_password, true);
      assert.equal(JSON.stringify(moved.body).includes(PASSWORD), false);
      const stored = g.gateway.devices.registry.get(camera);
      assert.match(JSON.stringify(stored?.capabilities), new RegExp(PASSWORD), 'kept in the store');
      const deadline = Date.now() + 10_000;
      while (!events.text().includes('device#updateDeviceInfo') && Date.now() < deadline)
        await new Promise((r) => setTimeout(r, 50));
      assert.match(events.text(), /device#updateDeviceInfo/);
      assert.equal(events.text().includes(PASSWORD), false, 'the console event carries no password');
    } finally {
      events.close();
    }
  });

  test('a wrong password typed in the form is refused in words, and the camera stays as it was', async () => {
    const before = (await c.call('GET', `/devices/${camera}`)).body.device.layout.camera;
    const wrong = await c.call('PUT', `/cameras/${camera}`, {
      stream_url: `http://127.0.0.1:${esp.port}/capture`,
      username: 'admin',
      password: 'not it',
    });
    assert.equal(wrong.status, 422, JSON.stringify(wrong.body));
    assert.match(wrong.body.error, /^The camera refused the user name or password in the address\./);
    assert.deepEqual((await c.call('GET', `/devices/${camera}`)).body.device.layout.camera, before);
  });

  test('bad bodies and unknown cameras are refused with a reason, never a 500', async () => {
    for (const [serial, body, status, words] of [
      ['nope', { stream_url: 'http://127.0.0.1:9/x' }, 404, /no camera/],
      [camera, {}, 400, /stream_url: required/],
      [camera, { stream_url: '' }, 400, /stream_url/],
      [camera, { stream_url: 7 }, 400, /stream_url: expected a string/],
      [camera, { stream_url: 'x', password: 5 }, 400, /password: expected a string/],
      [camera, { stream_url: 'x'.repeat(2001) }, 400, /stream_url/],
    ] as const) {
      const r = await c.call('PUT', `/cameras/${serial}`, body);
      assert.equal(r.status, status, JSON.stringify(r.body));
      assert.match(r.body.error, words);
    }
  });
});
