/**
 * The RTSP probe against cameras that misbehave, scripted at the protocol boundary (a camera is
 * not ours): Digest with qop auth checked the RFC's way, answers cut into single bytes, RTP
 * frames before the answer, garbage, silence, huge heads and bodies, redirects. Each ends in one
 * error code within its deadline, and the connection is closed every time.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { type AddressInfo, createServer, type Server, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { probeRtsp } from '../../src/drivers/camera/probe-rtsp.ts';
import { parseStreamUrl, type StreamAddress } from '../../src/drivers/camera/stream-url.ts';

const SDP = 'v=0\r\nm=video 0 RTP/AVP 96\r\na=rtpmap:96 H264/90000\r\na=framesize:96 800-600\r\n';

/** A scripted RTSP peer: `answer` gets each request's text and writes what it likes. */
interface Script {
  answer(request: string, socket: Socket, n: number): void;
}

describe('the RTSP probe against misbehaving cameras', () => {
  let server: Server;
  let script: Script;
  let open = 0;
  let address: StreamAddress;

  before(async () => {
    server = createServer((socket) => {
      open++;
      socket.on('close', () => open--);
      socket.on('error', () => {});
      let buffer = '';
      let n = 0;
      socket.on('data', (c) => {
        buffer += c.toString('latin1');
        for (let end = buffer.indexOf('\r\n\r\n'); end >= 0; end = buffer.indexOf('\r\n\r\n')) {
          const req = buffer.slice(0, end);
          buffer = buffer.slice(end + 4);
          script.answer(req, socket, n++);
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const parsed = parseStreamUrl(`rtsp://127.0.0.1:${(server.address() as AddressInfo).port}/live`, 'rtsp');
    assert.ok(!('error' in parsed));
    address = parsed;
  });
  after(() => new Promise<void>((resolve) => server.close(() => resolve())));

  const cseq = (req: string) => /CSeq: (\d+)/.exec(req)?.[1];
  const ok = (req: string, extra = '', body = '') =>
    `RTSP/1.0 200 OK\r\nCSeq: ${cseq(req)}\r\n${extra}${body ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : ''}\r\n${body}`;
  const describeOk = (req: string) =>
    req.startsWith('DESCRIBE')
      ? ok(req, 'Content-Type: application/sdp\r\n', SDP)
      : ok(req, 'Public: OPTIONS, DESCRIBE\r\n');
  const probe = (deadlineMs = 3000, account?: { username: string; password: string }) =>
    probeRtsp(address, account, { deadline: Date.now() + deadlineMs });
  const allClosed = async () => {
    for (let i = 0; i < 200 && open > 0; i++) await new Promise((r) => setTimeout(r, 5));
    assert.equal(open, 0, 'the probe closed its connection');
  };

  test('Digest with qop auth: the answer carries nc, cnonce and a response the camera can verify', async () => {
    const md5 = (s: string) => createHash('md5').update(s).digest('hex');
    const seen: string[] = [];
    script = {
      answer(req, socket) {
        const auth = /Authorization: Digest (.*)/.exec(req)?.[1];
        if (!auth) {
          socket.write(
            `RTSP/1.0 401 Unauthorized\r\nCSeq: ${cseq(req)}\r\nWWW-Authenticate: Digest realm="cam", nonce="abc123", qop="auth", opaque="op"\r\n\r\n`,
          );
          return;
        }
        const p = Object.fromEntries(
          [...auth.matchAll(/(\w+)=(?:"([^"]*)"|([^,\s]+))/g)].map((m) => [m[1], m[2] ?? m[3]]),
        );
        const method = req.split(' ')[0];
        const want = md5(`${md5('admin:cam:secret')}:abc123:${p.nc}:${p.cnonce}:auth:${md5(`${method}:${p.uri}`)}`);
        seen.push(`${method} ${p.nc}`);
        if (p.response !== want || p.opaque !== 'op') {
          socket.write(`RTSP/1.0 401 Unauthorized\r\nCSeq: ${cseq(req)}\r\n\r\n`);
          return;
        }
        socket.write(describeOk(req));
      },
    };
    const r = await probe(3000, { username: 'admin', password: 'secret' });
    assert.deepEqual(r, {
      ok: true,
      facts: { protocol: 'rtsp', videoCodec: 'H264', resolution: { width: 800, height: 600 } },
    });
    assert.deepEqual(seen, ['OPTIONS 00000001', 'DESCRIBE 00000002'], 'the nonce count rises per request');
    const wrong = await probe(3000, { username: 'admin', password: 'nope' });
    assert.equal(wrong.ok ? 0 : wrong.code, 110010);
    await allClosed();
  });

  test('an answer cut into single bytes, and RTP frames before it, are read whole', async () => {
    script = {
      answer(req, socket) {
        const bytes = Buffer.concat([Buffer.from([0x24, 0, 0, 3, 1, 2, 3]), Buffer.from(describeOk(req))]);
        let i = 0;
        const drip = () => {
          if (i < bytes.length) socket.write(bytes.subarray(i, ++i), drip);
        };
        drip();
      },
    };
    const r = await probe();
    assert.equal(r.ok, true, JSON.stringify(r));
    await allClosed();
  });

  test('servers that do not answer RTSP are 110009, one answer for all (no port scanner); cameras that answer badly are 110011, 110010 or 110012, within the deadline', async () => {
    const none = /^the camera IP address is wrong: no camera answered at 127\.0\.0\.1:\d+$/;
    const cases: [string, (req: string, s: Socket, n: number) => void, number, RegExp][] = [
      ['an HTTP server', (_r, s) => s.end('HTTP/1.1 400 Bad Request\r\n\r\n'), 110009, none],
      ['garbage', (_r, s) => s.write(Buffer.from([0, 1, 2, 255, 10, 13, 10])), 110009, none],
      ['silence', () => {}, 110009, none],
      ['a hang-up', (_r, s) => s.destroy(), 110009, none],
      ['a head without end', (_r, s) => s.write(`RTSP/1.0 200 OK\r\nX: ${'a'.repeat(70_000)}`), 110009, none],
      [
        'a huge body',
        (r, s) => s.write(`RTSP/1.0 200 OK\r\nCSeq: ${cseq(r)}\r\nContent-Length: 99999999\r\n\r\n`),
        110009,
        none,
      ],
      [
        'a bad Content-Length',
        (r, s) => s.write(`RTSP/1.0 200 OK\r\nCSeq: ${cseq(r)}\r\nContent-Length: -3\r\n\r\n`),
        110009,
        none,
      ],
      [
        'a redirect',
        (r, s) => s.write(`RTSP/1.0 302 Moved\r\nCSeq: ${cseq(r)}\r\nLocation: rtsp://admin:pw@x/y\r\n\r\n`),
        110011,
        /redirects/,
      ],
      [
        'a 401 without a challenge',
        (r, s) => s.write(`RTSP/1.0 401 Unauthorized\r\nCSeq: ${cseq(r)}\r\n\r\n`),
        110010,
        /needs a username and password$/,
      ],
      [
        'a 403',
        (r, s, n) => s.write(n === 0 ? ok(r) : `RTSP/1.0 403 Forbidden\r\nCSeq: ${cseq(r)}\r\n\r\n`),
        110010,
        /needs a username and password$/,
      ],
      [
        'DESCRIBE without SDP',
        (r, s) => s.write(r.startsWith('DESCRIBE') ? ok(r, 'Content-Type: text/plain\r\n', 'hello') : ok(r)),
        110011,
        /not an SDP/,
      ],
      [
        'an SDP without video',
        (r, s) =>
          s.write(
            r.startsWith('DESCRIBE')
              ? ok(r, 'Content-Type: application/sdp\r\n', 'v=0\r\nm=audio 0 RTP/AVP 0\r\n')
              : ok(r),
          ),
        110012,
        /no video/,
      ],
      [
        'OPTIONS not implemented',
        (r, s) =>
          s.write(
            r.startsWith('DESCRIBE') ? describeOk(r) : `RTSP/1.0 501 Not Implemented\r\nCSeq: ${cseq(r)}\r\n\r\n`,
          ),
        0,
        /./,
      ],
    ];
    for (const [what, answer, code, message] of cases) {
      script = { answer };
      const r = await probe(400);
      assert.equal(r.ok ? 0 : r.code, code, `${what}: ${JSON.stringify(r)}`);
      if (!r.ok) {
        assert.match(r.message, message, what);
        assert.doesNotMatch(r.message, /pw@/, 'credentials in a Location are not repeated');
      }
      await allClosed();
    }
  });

  test('whatever bytes a camera answers, the probe resolves with a value and closes its connection', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.oneof(
            fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b)),
            fc
              .constantFrom(
                'RTSP/1.0 200 OK\r\n',
                'CSeq: 1\r\n',
                'CSeq: 2\r\n',
                'Content-Length: 5\r\n',
                '\r\n',
                '$\0\0\x05',
                SDP,
              )
              .map((s) => Buffer.from(s, 'latin1')),
          ),
          { maxLength: 12 },
        ),
        async (parts) => {
          script = { answer: (_r, s) => s.write(Buffer.concat(parts)) };
          const r = await probe(150);
          assert.ok(r.ok || [110009, 110010, 110011, 110012].includes(r.code), JSON.stringify(r));
          await allClosed();
        },
      ),
      { numRuns: 60 },
    );
  });
});
