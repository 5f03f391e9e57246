/**
 * Issue 24, finding 3: a token holder must not read or scan the network through the gateway.
 * `POST media/audio-player`, a TTS engine's audio URL and the camera probe (D2) are pointed at
 * what an attacker would scan: a port where nothing listens, one that cuts the connection, one
 * that never answers, a service that is not HTTP or RTSP, web servers answering errors, pages,
 * redirects, and a page with a secret. Every such answer is the same words (per route and code
 * of the spec), and no byte that any of those servers sent reaches the client.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { reachOf, redirectAllowed } from '../../src/lib/address-reach.ts';
import { cameraBody } from '../camera/bodies.ts';
import { closedPort } from '../camera/servers.ts';
import { type AudioGateway, startAudioGateway } from '../helpers/audio.ts';
import { advanceUntil } from '../helpers/clock.ts';
import { call, rest } from '../helpers/foundation.ts';
import { sendEvent } from '../helpers/thirdparty.ts';

// No English in it: the leak check looks for any six of its characters in a row.
const SECRET = `Xq7Zv${Math.random().toString(36).slice(2)}Kp9W`;

/** Every way the bytes of `secret` could show in a message: as text, as hex, in part. */
function leaks(message: string, secret: Buffer): string | undefined {
  const hex = secret.toString('hex');
  for (let i = 0; i + 8 <= hex.length; i += 2)
    if (message.includes(hex.slice(i, i + 8))) return `hex ${hex.slice(i, i + 8)}`;
  const text = secret.toString('latin1');
  for (let i = 0; i + 6 <= text.length; i++)
    if (message.includes(text.slice(i, i + 6))) return `text ${text.slice(i, i + 6)}`;
  return undefined;
}

interface Zoo {
  /** Base URL of the web server with the paths below. */
  web: string;
  /** Ports: a banner that is not HTTP, one that cuts every connection, one that never answers. */
  banner: number;
  reset: number;
  silent: number;
  refused: number;
  close(): Promise<void>;
}

/** What an attacker would scan for: web servers with secrets, other services, dead ports. */
async function startZoo(): Promise<Zoo> {
  const answers: Record<string, (res: ServerResponse) => void> = {
    '/secret': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET),
    '/secret-500': (res) => res.writeHead(500, { 'content-type': 'text/plain' }).end(SECRET),
    '/secret-404': (res) => res.writeHead(404, { 'content-type': `text/${SECRET}` }).end(SECRET),
    '/login': (res) => res.writeHead(401, { 'www-authenticate': `Basic realm="${SECRET}"` }).end(SECRET),
    '/loop': (res) => res.writeHead(302, { location: '/loop' }).end(),
    '/to-file': (res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    // RIFF/WAVE with the secret where the format would be: decoded, it is no audio.
    '/riff': (res) =>
      res
        .writeHead(200, { 'content-type': 'audio/wav' })
        .end(Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE'), Buffer.from(SECRET)])),
  };
  const web: Server = createServer((req, res) => {
    const answer = answers[(req.url ?? '/').split('?')[0] as string];
    if (answer) answer(res);
    else res.writeHead(404).end(SECRET);
  });
  const held = new Set<Socket>();
  const tcp = (onSocket: (s: Socket) => void): Promise<NetServer> =>
    new Promise((resolve) => {
      const s = createNetServer((socket) => {
        held.add(socket);
        socket.on('error', () => {});
        socket.on('close', () => held.delete(socket));
        onSocket(socket);
      });
      s.listen(0, '127.0.0.1', () => resolve(s));
    });
  const banner = await tcp((s) => s.end(`SSH-2.0-${SECRET}\r\n`));
  const reset = await tcp((s) => s.resetAndDestroy());
  const silent = await tcp(() => {});
  await new Promise<void>((resolve) => web.listen(0, '127.0.0.1', resolve));
  const port = (s: { address(): unknown }) => (s.address() as AddressInfo).port;
  return {
    web: `http://127.0.0.1:${port(web)}`,
    banner: port(banner),
    reset: port(reset),
    silent: port(silent),
    refused: await closedPort(),
    async close() {
      for (const s of held) s.destroy();
      web.closeAllConnections();
      await Promise.all([web, banner, reset, silent].map((s) => new Promise((r) => s.close(r))));
    },
  };
}

let zoo: Zoo;
/** One gateway for both surfaces, with short fetch and probe times (a silent port takes them whole). */
let g: AudioGateway;
let token: string;
before(async () => {
  zoo = await startZoo();
  g = await startAudioGateway({
    overrides: { audio: { media_timeout_ms: 1000 }, camera: { probe_timeout_ms: 1000 } },
  });
  token = g.token();
});
after(async () => {
  await g?.stop();
  await zoo?.close();
});

describe('POST media/audio-player pointed at what a scanner looks for', () => {
  const play = async (url: string) => {
    const asked = call(g.url, 'POST', rest('v2', 'media/audio-player'), { token, body: { audio_url: url } });
    return (await advanceUntil(g.clock, asked)).value;
  };

  test('a dead port, a cut connection, a port that never answers, a service that is not HTTP, HTTP errors and redirects all answer in the same words', async () => {
    const targets = [
      `http://127.0.0.1:${zoo.refused}/a.wav`,
      `http://127.0.0.1:${zoo.reset}/a.wav`,
      `http://127.0.0.1:${zoo.silent}/a.wav`,
      `http://127.0.0.1:${zoo.banner}/a.wav`,
      `${zoo.web}/secret-500`,
      `${zoo.web}/secret-404`,
      `${zoo.web}/login`,
      `${zoo.web}/loop`,
      `${zoo.web}/to-file`,
    ];
    const messages = new Map<string, string[]>();
    for (const url of targets) {
      const r = await play(url);
      assert.equal(r.json.error, 400, `${url}: ${r.text}`);
      messages.set(r.json.message, [...(messages.get(r.json.message) ?? []), url]);
    }
    assert.equal(messages.size, 1, JSON.stringify([...messages], null, 1));
    assert.deepEqual(
      [...messages.keys()],
      [
        'audio_url: the audio could not be fetched (the server could not be reached, did not answer in time, or answered with an error or a redirect it may not take)',
      ],
    );
  });

  test('no byte a server answered reaches the error: a secret page, a secret error page, a fake WAV', async () => {
    for (const path of ['/secret', '/secret-500', '/secret-404', '/login', '/riff']) {
      const r = await play(`${zoo.web}${path}`);
      assert.equal(r.json.error, 400, r.text);
      const leak = leaks(r.text, Buffer.from(SECRET));
      assert.equal(leak, undefined, `${path}: ${r.json.message}`);
    }
    const page = await play(`${zoo.web}/secret`);
    assert.equal(page.json.message, 'audio_url: the answer is not audio this gateway plays (WAV or MP3)');
  });

  test('a TTS engine whose audio URL leads to a secret page tells no byte of it either', async (t) => {
    // An engine registered by the token holder that names any URL as its audio.
    const engine: Server = createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => {
        raw += c;
      });
      req.on('end', () => {
        const header = JSON.parse(raw).directive.header;
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            event: {
              header: { name: 'Response', message_id: header.message_id, version: '1' },
              payload: { audio: { url: `${zoo.web}/secret`, label: 'x' } },
            },
          }),
        );
      });
    });
    await new Promise<void>((resolve) => engine.listen(0, '127.0.0.1', resolve));
    t.after(() => new Promise((r) => engine.close(r)));
    const address = `http://127.0.0.1:${(engine.address() as AddressInfo).port}/callback`;
    const reg = await sendEvent(g, token, 'RegisterTTSEngine', { service_address: address, name: 'scanner' });
    const id = reg.json.payload.engine_id as string;
    const r = await call(g.url, 'POST', rest('v2', 'tts/speak'), { token, body: { text: 'hello', engine: id } });
    assert.equal(r.json.error, 110019, r.text);
    assert.equal(leaks(r.text, Buffer.from(SECRET)), undefined, r.json.message);
    assert.match(r.json.message, /the answer is not audio this gateway plays \(WAV or MP3\)$/);
  });
});

describe('the camera probe (D2) pointed at what a scanner looks for', () => {
  const add = async (url: string, protocal: 'RTSP' | 'ESP32-CAM') => {
    const asked = call(g.url, 'POST', rest('v2', 'devices'), { token, body: cameraBody(url, { protocal }) });
    return (await advanceUntil(g.clock, asked)).value;
  };

  test('RTSP: every port that holds no RTSP camera answers 110009 in the same words, whatever listens there', async () => {
    const ports = [zoo.refused, zoo.reset, zoo.silent, zoo.banner, Number(new URL(zoo.web).port)];
    const messages = new Set<string>();
    for (const port of ports) {
      const r = await add(`rtsp://127.0.0.1:${port}/live`, 'RTSP');
      assert.equal(r.json.error, 110009, `${port}: ${r.text}`);
      messages.add(r.json.message.replace(`:${port}`, ':PORT'));
      assert.equal(leaks(r.text, Buffer.from(SECRET)), undefined, r.json.message);
    }
    assert.deepEqual([...messages], ['the camera IP address is wrong: no camera answered at 127.0.0.1:PORT']);
  });

  test('ESP32-CAM: a port without a web server is 110009, and every web answer that is not a camera is 110018 in the same words', async () => {
    const dead = new Set<string>();
    for (const port of [zoo.refused, zoo.reset, zoo.silent, zoo.banner]) {
      const r = await add(`http://127.0.0.1:${port}/stream`, 'ESP32-CAM');
      assert.equal(r.json.error, 110009, `${port}: ${r.text}`);
      dead.add(r.json.message.replace(`:${port}`, ':PORT'));
    }
    assert.deepEqual([...dead], ['the camera IP address is wrong: no camera answered at 127.0.0.1:PORT']);
    const pages = new Set<string>();
    for (const path of ['/secret', '/secret-500', '/secret-404', '/loop', '/riff', '/nothing']) {
      const r = await add(`${zoo.web}${path}`, 'ESP32-CAM');
      assert.equal(r.json.error, 110018, `${path}: ${r.text}`);
      assert.equal(leaks(r.text, Buffer.from(SECRET)), undefined, r.json.message);
      pages.add(r.json.message.replace(path, '/PATH'));
    }
    assert.deepEqual([...pages], ['the ESP camera path is wrong: /PATH answered neither an MJPEG stream nor a JPEG']);
    const login = await add(`${zoo.web}/login`, 'ESP32-CAM');
    assert.equal(login.json.error, 110010, login.text);
    assert.equal(leaks(login.text, Buffer.from(SECRET)), undefined, login.json.message);
  });
});

describe('redirects of fetches on a client’s behalf', () => {
  const table: [string, string, boolean][] = [
    ['203.0.113.7', '203.0.113.8', true],
    ['203.0.113.7', '192.168.1.1', false],
    ['203.0.113.7', '10.0.0.1', false],
    ['203.0.113.7', '169.254.169.254', false],
    ['203.0.113.7', '127.0.0.1', false],
    ['203.0.113.7', '::1', false],
    ['203.0.113.7', '::ffff:127.0.0.1', false],
    ['203.0.113.7', '[::ffff:7f00:1]', false],
    ['203.0.113.7', '::ffff:c0a8:101', false],
    ['203.0.113.7', '::ffff:cb00:7108', true],
    ['203.0.113.7', '::', false],
    ['203.0.113.7', '0.0.0.0', false],
    ['203.0.113.7', 'fd00::1', false],
    ['203.0.113.7', 'fe80::1', false],
    ['192.168.1.20', '192.168.1.1', true],
    ['192.168.1.20', '203.0.113.7', true],
    ['192.168.1.20', '127.0.0.1', false],
    ['127.0.0.1', '127.0.0.2', true],
    ['127.0.0.1', '192.168.1.1', true],
    ['127.0.0.1', '2001:db8::1', true],
  ];
  for (const [from, to, allowed] of table)
    test(`a redirect from ${from} (${reachOf(from)}) to ${to} (${reachOf(to)}) is ${allowed ? 'followed' : 'refused'}`, () => {
      assert.equal(redirectAllowed(from, to), allowed);
    });
});
