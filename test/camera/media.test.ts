/**
 * Seeing cameras: snapshots (JPEG, decoded and compared with the stream's size) and the live
 * MJPEG view (many viewers over one upstream connection, stopped when the last one leaves), of a
 * real RTSP camera through ffmpeg and of an ESP32-CAM stand-in; and without ffmpeg, a clear error.
 */
import assert from 'node:assert/strict';
import { request } from 'node:http';
import { after, before, describe, test } from 'node:test';
import type { CameraDriver } from '../../src/drivers/camera/index.ts';
import { MultipartReader, multipartBoundary } from '../../src/drivers/camera/mjpeg.ts';
import { COOKIE } from '../../src/http/console/route.ts';
import { consoleClient } from '../console/client.ts';
import { ManualClock } from '../helpers/clock.ts';
import { call, eventually, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { cameraBody } from './bodies.ts';
import {
  decodedSize,
  type Esp32StandIn,
  makeJpegs,
  type RtspServer,
  type StallingRtsp,
  startEsp32,
  startRtspServer,
  startStallingRtsp,
} from './servers.ts';

/** GET a snapshot: the raw answer bytes and content type. */
async function snapshot(base: string, path: string, token?: string) {
  const res = await fetch(`${base}${path}`, {
    headers: token ? { authorization: `Bearer ${token}` } : {},
    signal: AbortSignal.timeout(20_000),
  });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, type: res.headers.get('content-type') ?? '', body };
}

interface Viewer {
  status: number;
  type: string;
  frames: Buffer[];
  /** Resolves when `n` frames have come. */
  waitFrames(n: number): Promise<void>;
  close(): void;
}

/** Opens the live view and collects its frames. */
function view(base: string, path: string, headers: Record<string, string> = {}): Promise<Viewer> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers });
    req.on('error', reject);
    req.on('response', (res) => {
      const frames: Buffer[] = [];
      const waiters = new Set<() => void>();
      const type = res.headers['content-type'] ?? '';
      const boundary = multipartBoundary(type);
      const reader = boundary
        ? new MultipartReader(boundary, (f) => {
            frames.push(f);
            for (const w of waiters) w();
          })
        : undefined;
      let text = '';
      res.on('data', (c: Buffer) => {
        if (reader) reader.push(c);
        else text += c.toString();
      });
      res.on('error', () => {});
      resolve({
        status: res.statusCode ?? 0,
        type: reader ? type : `${type} ${text}`,
        frames,
        waitFrames: (n) =>
          new Promise((ok, fail) => {
            const timer = setTimeout(() => fail(new Error(`only ${frames.length} of ${n} frames came`)), 20_000);
            const check = () => {
              if (frames.length >= n) {
                clearTimeout(timer);
                waiters.delete(check);
                ok();
              }
            };
            waiters.add(check);
            check();
          }),
        close: () => {
          req.destroy();
          res.destroy();
        },
      });
    });
    req.end();
  });
}

describe('snapshots and the live view', () => {
  let g: TestGateway;
  let token: string;
  let rtsp: RtspServer;
  let esp: Esp32StandIn;
  let rtspCam: string;
  let espCam: string;
  const clock = new ManualClock();

  before(async () => {
    rtsp = await startRtspServer('digest');
    esp = await startEsp32(makeJpegs(320, 240, 3));
    // The snapshot cache runs on the gateway's clock, moved by hand: "within the second" does not
    // depend on how busy the machine is.
    g = await startGateway({ gatewayOptions: { clock } });
    token = g.token();
    const add = async (url: string) => {
      const r = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url) });
      assert.equal(r.json.error, 0, r.text);
      return r.json.data.serial_number as string;
    };
    rtspCam = await add(rtsp.url('h264', { username: 'admin', password: 'secret' }));
    espCam = await add(`${esp.base}/stream`);
  });
  after(async () => {
    await g?.stop();
    await Promise.all([rtsp?.stop(), esp?.close()]);
  });

  const driver = () => g.gateway.devices.driver('camera') as CameraDriver;

  test('a snapshot of an RTSP camera is a JPEG of the stream size, taken by one ffmpeg for many requests at once', async () => {
    const runs = driver().ffmpegRuns;
    const shots = await Promise.all(
      Array.from({ length: 5 }, () => snapshot(g.url, rest('v2', `cameras/${rtspCam}/snapshot`), token)),
    );
    for (const s of shots) {
      assert.equal(s.status, 200);
      assert.equal(s.type, 'image/jpeg');
      assert.deepEqual(decodedSize(s.body), { width: 640, height: 360 }, 'the size of the stream (D3 resolution)');
      assert.deepEqual(s.body, shots[0]?.body, 'the one snapshot is shared');
    }
    assert.equal(driver().ffmpegRuns, runs + 1, 'one ffmpeg for five concurrent requests');
    const again = await snapshot(g.url, rest('v1', `cameras/${rtspCam}/snapshot`), token);
    assert.deepEqual(again.body, shots[0]?.body, 'served again within the second (on v1 too)');
    assert.equal(driver().ffmpegRuns, runs + 1);
  });

  test('a snapshot is served again within its second, and taken anew once the second is over', async () => {
    clock.advance(1000); // what earlier tests kept is a second old
    const runs = driver().ffmpegRuns;
    const path = rest('v2', `cameras/${rtspCam}/snapshot`);
    const first = await snapshot(g.url, path, token);
    assert.equal(driver().ffmpegRuns, runs + 1);
    clock.advance(999);
    const within = await snapshot(g.url, path, token);
    assert.deepEqual(within.body, first.body, 'the same bytes within the second');
    assert.equal(driver().ffmpegRuns, runs + 1, 'no second ffmpeg within the second');
    clock.advance(1);
    const after = await snapshot(g.url, path, token);
    assert.equal(after.status, 200);
    assert.deepEqual(decodedSize(after.body), { width: 640, height: 360 });
    assert.equal(driver().ffmpegRuns, runs + 2, 'a new capture once the second is over');

    // The same for an ESP32-CAM, whose capture path serves a different picture each time.
    const board = rest('v2', `cameras/${espCam}/snapshot`);
    const captures = esp.captures();
    const shot = await snapshot(g.url, board, token);
    clock.advance(999);
    assert.deepEqual((await snapshot(g.url, board, token)).body, shot.body);
    assert.equal(esp.captures(), captures + 1);
    clock.advance(1);
    const next = await snapshot(g.url, board, token);
    assert.notDeepEqual(next.body, shot.body, 'a new picture');
    assert.equal(esp.captures(), captures + 2);
    clock.advance(1000); // nothing kept for the next tests
  });

  test('a snapshot of an ESP32-CAM comes from its capture path, as a JPEG of its size', async () => {
    const before = esp.captures();
    const s = await snapshot(g.url, rest('v2', `cameras/${espCam}/snapshot`), token);
    assert.equal(s.status, 200);
    assert.deepEqual(decodedSize(s.body), { width: 320, height: 240 });
    assert.equal(esp.captures(), before + 1);
  });

  test('snapshots need the token (in the header or as access_token) and a camera', async () => {
    const none = await call(g.url, 'GET', rest('v2', `cameras/${espCam}/snapshot`));
    assert.deepEqual(none.json, { error: 401, data: {}, message: 'headers.Authorization is invalid' });
    const query = await snapshot(g.url, `${rest('v2', `cameras/${espCam}/snapshot`)}?access_token=${token}`);
    assert.equal(query.status, 200);
    assert.equal(query.type, 'image/jpeg');
    const unknown = await call(g.url, 'GET', rest('v2', 'cameras/nope/snapshot'), { token });
    assert.equal(unknown.json.error, 110000);
  });

  test('the live view of an ESP32-CAM: three viewers share one upstream stream, which closes when the last leaves', async () => {
    const opened = esp.streamsOpened();
    const path = `${rest('v2', `cameras/${espCam}/live`)}?access_token=${token}`;
    const viewers = await Promise.all([view(g.url, path), view(g.url, path), view(g.url, path)]);
    for (const v of viewers) {
      assert.equal(v.status, 200);
      assert.match(v.type, /^multipart\/x-mixed-replace/);
    }
    await Promise.all(viewers.map((v) => v.waitFrames(3)));
    for (const v of viewers) assert.deepEqual(decodedSize(v.frames[2] as Buffer), { width: 320, height: 240 });
    assert.equal(esp.streamsOpened(), opened + 1, 'one upstream connection for three viewers');
    assert.equal(driver().live.viewers(espCam), 3);
    viewers[0]?.close();
    viewers[1]?.close();
    await eventually(() => driver().live.viewers(espCam) === 1, 10_000, 'two viewers left');
    assert.equal(esp.streamsOpen(), 1, 'the upstream stays while one viewer is left');
    viewers[2]?.close();
    await eventually(() => esp.streamsOpen() === 0, 10_000, 'the upstream closed after the last viewer');
    assert.equal(driver().live.open_upstreams, 0);
  });

  test('the live view of an RTSP camera goes through one ffmpeg for all viewers; frames are JPEGs of the stream size', async () => {
    const runs = driver().ffmpegRuns;
    const path = rest('v2', `cameras/${rtspCam}/live?access_token=${token}`);
    const viewers = await Promise.all([view(g.url, path), view(g.url, path)]);
    await Promise.all(viewers.map((v) => v.waitFrames(2)));
    for (const v of viewers) assert.deepEqual(decodedSize(v.frames[1] as Buffer), { width: 640, height: 360 });
    assert.equal(driver().ffmpegRuns, runs + 1, 'one ffmpeg for two viewers');
    // While the live view runs, a snapshot is its newest frame: no second connection to the camera.
    const shot = await snapshot(g.url, rest('v2', `cameras/${rtspCam}/snapshot`), token);
    assert.equal(shot.status, 200);
    assert.equal(driver().ffmpegRuns, runs + 1);
    for (const v of viewers) v.close();
    await eventually(() => driver().live.open_upstreams === 0, 10_000, 'the ffmpeg upstream stopped');
  });

  test("a snapshot asked for while an RTSP live view starts waits for the live view's first frame: one ffmpeg for the camera", async () => {
    clock.advance(1000); // no snapshot kept
    const runs = driver().ffmpegRuns;
    // The camera is held still (its server process stopped, by pid): the live view cannot have a
    // frame before the snapshot is asked for.
    process.kill(rtsp.pid, 'SIGSTOP');
    let opening: Promise<Viewer> | undefined;
    let shot: ReturnType<typeof snapshot> | undefined;
    try {
      // The view's answer starts with its first frame: it is awaited once the camera moves again.
      opening = view(g.url, rest('v2', `cameras/${rtspCam}/live?access_token=${token}`));
      await eventually(() => driver().live.viewers(rtspCam) === 1, 10_000, 'the live view started');
      shot = snapshot(g.url, rest('v2', `cameras/${rtspCam}/snapshot`), token);
      await eventually(() => driver().live.waitingFor(rtspCam) === 1, 10_000, 'the snapshot waits for the live view');
    } finally {
      process.kill(rtsp.pid, 'SIGCONT');
    }
    const [live, s] = await Promise.all([opening, shot]);
    assert.equal(live.status, 200);
    await live.waitFrames(1);
    assert.equal(s.status, 200);
    assert.deepEqual(s.body, live.frames[0], "the snapshot is the live view's first frame");
    assert.deepEqual(decodedSize(s.body), { width: 640, height: 360 });
    assert.equal(driver().ffmpegRuns, runs + 1, "one ffmpeg: the live view's");
    live.close();
    await eventually(() => driver().live.open_upstreams === 0, 10_000, 'the ffmpeg upstream stopped');
  });

  test("the console's live view needs a session and shares the camera's one upstream with Open API viewers", async () => {
    const consolePath = `/console/api/cameras/${espCam}/live`;
    const refused = await view(g.url, consolePath);
    assert.equal(refused.status, 401, 'no session, no frames');
    assert.equal(refused.frames.length, 0);
    refused.close();
    await g.gateway.setConsolePassword('a console password');
    const c = consoleClient(g.url);
    assert.equal((await c.login('a console password')).status, 200);
    const opened = esp.streamsOpened();
    const onConsole = await view(g.url, consolePath, { cookie: `${COOKIE}=${c.cookie}` });
    const onApi = await view(g.url, `${rest('v2', `cameras/${espCam}/live`)}?access_token=${token}`);
    assert.equal(onConsole.status, 200);
    assert.match(onConsole.type, /^multipart\/x-mixed-replace/);
    await Promise.all([onConsole.waitFrames(2), onApi.waitFrames(2)]);
    assert.deepEqual(decodedSize(onConsole.frames[1] as Buffer), { width: 320, height: 240 });
    assert.equal(esp.streamsOpened(), opened + 1, 'one upstream connection for both surfaces');
    onConsole.close();
    onApi.close();
    await eventually(() => esp.streamsOpen() === 0, 10_000, 'the upstream closed after the last viewer');
  });

  test('a live viewer is ended when its camera is removed', async () => {
    const extra = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(`${esp.base}/capture`) });
    assert.equal(extra.json.error, 0, extra.text);
    const serial = extra.json.data.serial_number;
    const v = await view(g.url, rest('v2', `cameras/${serial}/live?access_token=${token}`));
    await v.waitFrames(1);
    assert.deepEqual(decodedSize(v.frames[0] as Buffer), { width: 320, height: 240 });
    await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token });
    await eventually(() => driver().live.viewers(serial) === 0, 10_000, 'the viewer was ended');
    v.close();
  });
});

describe('cameras without ffmpeg', () => {
  let g: TestGateway;
  let token: string;
  let rtsp: RtspServer;
  let esp: Esp32StandIn;

  before(async () => {
    rtsp = await startRtspServer('none');
    esp = await startEsp32(makeJpegs(160, 120, 2));
    g = await startGateway({ overrides: { camera: { ffmpeg_path: '/nonexistent/ffmpeg' } } });
    token = g.token();
  });
  after(async () => {
    await g?.stop();
    await Promise.all([rtsp?.stop(), esp?.close()]);
  });

  test('RTSP snapshots and live views answer a clear error; adding cameras and ESP32-CAM snapshots still work', async () => {
    const add = (url: string) => call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url) });
    const cam = await add(rtsp.url('h264'));
    assert.equal(cam.json.error, 0, cam.text);
    const serial = cam.json.data.serial_number;
    for (const what of ['snapshot', 'live']) {
      const r = await call(g.url, 'GET', rest('v2', `cameras/${serial}/${what}`), { token });
      assert.equal(r.status, 200);
      assert.equal(r.json.error, 500, r.text);
      assert.match(r.json.message, /need(s)? ffmpeg .*not installed/);
    }
    const board = await add(`${esp.base}/capture`);
    assert.equal(board.json.error, 0, board.text);
    const shot = await snapshot(g.url, rest('v2', `cameras/${board.json.data.serial_number}/snapshot`), token);
    assert.equal(shot.status, 200);
    assert.deepEqual(decodedSize(shot.body), { width: 160, height: 120 });
  });
});

describe('a camera that never sends a frame', () => {
  let g: TestGateway;
  let token: string;
  let stall: StallingRtsp;

  before(async () => {
    stall = await startStallingRtsp();
    g = await startGateway({ overrides: { camera: { snapshot_timeout_ms: 1000 } } });
    token = g.token();
  });
  after(async () => {
    await g?.stop();
    await stall?.close();
  });

  test('a snapshot answers 110005 once camera.snapshot_timeout_ms is over, and its ffmpeg is stopped', async () => {
    const add = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(stall.url) });
    assert.equal(add.json.error, 0, add.text);
    const serial = add.json.data.serial_number;
    const r = await call(g.url, 'GET', rest('v2', `cameras/${serial}/snapshot`), { token });
    assert.equal(r.status, 200);
    assert.equal(r.json.error, 110005, r.text);
    assert.equal(r.json.message, 'the device is offline: no picture from the camera: no frame within 1000 ms');
    assert.equal(stall.plays(), 1, 'ffmpeg got as far as PLAY: it was waiting for frames');
    await eventually(() => stall.open() === 0, 10_000, "ffmpeg's connection to the camera closed");
  });
});
