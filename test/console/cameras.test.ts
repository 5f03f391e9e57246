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

describe("a camera's snapshot in the console", () => {
  let g: TestGateway;
  let esp: Esp32StandIn;
  let c: ConsoleClient;
  let camera: string;

  before(async () => {
    esp = await startEsp32(makeJpegs(320, 240, 2));
    g = await startGateway();
    const token = g.token();
    const added = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(`${esp.base}/capture`) });
    assert.equal(added.json.error, 0, added.text);
    camera = added.json.data.serial_number;
    await g.gateway.setConsolePassword('a camera password');
    c = consoleClient(g.url);
    assert.equal((await c.login('a camera password')).status, 200);
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
