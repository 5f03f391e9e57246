/**
 * D2's budget (4.5 s, inside the 5 s clients wait) and the probe's time are read on the gateway's
 * clock, not the wall clock: a scripted camera moves the injected clock past the budget while it
 * answers, and the probe gives up at once, though almost no real time went by. Both surfaces that
 * add cameras (the Open API's D2 and the console's POST cameras) are checked.
 */
import assert from 'node:assert/strict';
import { type AddressInfo, createServer, type Server } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { consoleClient } from '../console/client.ts';
import { ManualClock } from '../helpers/clock.ts';
import { call, listDevices, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { cameraBody } from './bodies.ts';

const SDP = 'v=0\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=framesize:96 800-600\r\n';
const PASSWORD = 'deadline-test-password';

describe("a camera probe's deadline follows the gateway's clock", () => {
  const clock = new ManualClock();
  let g: TestGateway;
  let token: string;
  let camera: Server;
  let url: string;
  /** Real-time pause of the camera between the two halves of its OPTIONS answer. */
  const halves: NodeJS.Timeout[] = [];

  before(async () => {
    g = await startGateway({ gatewayOptions: { clock } });
    token = g.token('deadline');
    // A camera that is slow on the gateway's clock only: while it answers OPTIONS the clock moves
    // 5 s (past the 4.5 s budget); 50 ms of real time later it finishes that answer, and it would
    // then describe a good H.264 stream. A probe that reads the wall clock would go on and add it.
    camera = createServer((socket) => {
      socket.on('error', () => {});
      let buffer = '';
      socket.on('data', (c) => {
        buffer += c.toString('latin1');
        for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
          const req = buffer.slice(0, end);
          buffer = buffer.slice(end + 4);
          const cseq = /CSeq: (\d+)/.exec(req)?.[1];
          if (req.startsWith('OPTIONS')) {
            clock.advance(5000);
            socket.write('RTSP/1.0 200 OK\r\n');
            halves.push(
              setTimeout(() => {
                if (!socket.destroyed) socket.write(`CSeq: ${cseq}\r\nPublic: OPTIONS, DESCRIBE\r\n\r\n`);
              }, 50),
            );
          } else
            socket.write(
              `RTSP/1.0 200 OK\r\nCSeq: ${cseq}\r\nContent-Type: application/sdp\r\nContent-Length: ${SDP.length}\r\n\r\n${SDP}`,
            );
        }
      });
    });
    await new Promise<void>((resolve) => camera.listen(0, '127.0.0.1', resolve));
    url = `rtsp://127.0.0.1:${(camera.address() as AddressInfo).port}/live`;
  });
  after(async () => {
    for (const t of halves) clearTimeout(t);
    await g?.stop();
    await new Promise<void>((resolve) => camera.close(() => resolve()));
  });

  test('D2: the camera that runs past the budget is 110009 "no camera answered", and nothing is added', async () => {
    const r = await call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url) });
    assert.equal(r.status, 200);
    assert.equal(r.json.error, 110009, r.text);
    assert.match(r.json.message, /no camera answered at 127\.0\.0\.1:\d+$/);
    assert.deepEqual(await listDevices(g.url, token), []);
  });

  test('the console: the same camera is refused the same way', async () => {
    await g.gateway.setConsolePassword(PASSWORD);
    const c = consoleClient(g.url);
    await c.login(PASSWORD);
    const r = await c.call('POST', '/cameras', { name: 'Porch', protocol: 'RTSP', stream_url: url });
    assert.equal(r.status, 422, JSON.stringify(r.body));
    assert.match(JSON.stringify(r.body), /no camera answered at 127\.0\.0\.1:\d+/);
    assert.deepEqual(await listDevices(g.url, token), []);
  });
});
