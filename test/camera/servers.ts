/**
 * Real cameras for the tests, on 127.0.0.1 only: GStreamer's RTSP server (rtsp_server.py, a
 * process started and stopped by pid) and an ESP32-CAM stand-in (an HTTP server with an MJPEG
 * stream and a capture path, serving JPEGs that ffmpeg made). The Debian packages they need are
 * installed once, when missing, by scripts/ensure-system-deps.sh; when that cannot be done the
 * tests fail with its plain message.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureSystemDeps } from '../helpers/system-deps.ts';

export type RtspAuth = 'none' | 'basic' | 'digest';

export interface RtspServer {
  port: number;
  pid: number;
  auth: RtspAuth;
  /** rtsp://127.0.0.1:<port>/<mount>, with `user:pass@` when given. */
  url(mount: string, account?: { username: string; password: string }): string;
  stop(): Promise<void>;
}

/** Starts GStreamer's RTSP server (test/camera/rtsp_server.py) on 127.0.0.1; port 0 picks one. */
export async function startRtspServer(auth: RtspAuth = 'none', port = 0): Promise<RtspServer> {
  ensureSystemDeps();
  const child: ChildProcess = spawn(
    '/usr/bin/python3',
    ['test/camera/rtsp_server.py', '--port', String(port), '--auth', auth, '--user', 'admin', '--password', 'secret'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  child.stderr?.on('data', (c: Buffer) => {
    if (err.length < 4000) err += c.toString();
  });
  const bound = await new Promise<number>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`the RTSP server did not start: ${err}`)), 20_000);
    child.stdout?.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /READY (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the RTSP server exited with ${code}: ${err}`));
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    port: bound,
    pid: child.pid as number,
    auth,
    url(mount, account) {
      const user = account ? `${encodeURIComponent(account.username)}:${encodeURIComponent(account.password)}@` : '';
      return `rtsp://${user}127.0.0.1:${bound}/${mount.replace(/^\//, '')}`;
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      process.kill(child.pid as number, 'SIGTERM');
      await exited;
    },
  };
}

/** JPEG test pictures of a size, made once by ffmpeg (testsrc, so each frame differs). */
export function makeJpegs(width: number, height: number, count: number): Buffer[] {
  ensureSystemDeps();
  const dir = mkdtempSync(join(tmpdir(), 'opencube-jpeg-'));
  try {
    execFileSync('ffmpeg', [
      '-hide_banner',
      '-loglevel',
      'error',
      '-f',
      'lavfi',
      '-i',
      `testsrc=size=${width}x${height}:rate=5`,
      '-frames:v',
      String(count),
      '-q:v',
      '5',
      join(dir, 'f%02d.jpg'),
    ]);
    return Array.from({ length: count }, (_, i) => readFileSync(join(dir, `f${String(i + 1).padStart(2, '0')}.jpg`)));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Width and height of JPEG bytes as ffprobe decodes them (fails when they are not a picture). */
export function decodedSize(jpeg: Buffer): { width: number; height: number } {
  const out = execFileSync(
    'ffprobe',
    [
      '-v',
      'error',
      '-f',
      'image2pipe',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=width,height,codec_name',
      '-of',
      'json',
      '-i',
      'pipe:0',
    ],
    { input: jpeg },
  ).toString();
  const s = JSON.parse(out).streams?.[0];
  assert.ok(s, `ffprobe found no picture in ${jpeg.length} bytes`);
  assert.equal(s.codec_name, 'mjpeg');
  return { width: s.width, height: s.height };
}

export interface Esp32StandIn {
  /** http://127.0.0.1:<port> */
  base: string;
  port: number;
  /** Connections open to /stream now, and in all. */
  streamsOpen(): number;
  streamsOpened(): number;
  captures(): number;
  /** What /custom answers (status, content type, body), for wrong-path tests. */
  custom: { status: number; type: string; body: Buffer };
  /** Requires Basic `user:pass` when set. */
  account?: { username: string; password: string };
  close(): Promise<void>;
}

/**
 * An ESP32-CAM stand-in as the board's CameraWebServer serves it: `/stream` (MJPEG,
 * multipart/x-mixed-replace, a frame every 100 ms), `/capture` (one JPEG), `/` (an HTML page),
 * `/custom` (whatever the test sets).
 */
export async function startEsp32(frames: Buffer[], port = 0): Promise<Esp32StandIn> {
  const boundary = '123456789000000000000987654321';
  let open = 0;
  let opened = 0;
  let captures = 0;
  let n = 0;
  const sockets = new Set<Socket>();
  const state: Esp32StandIn = {
    base: '',
    port: 0,
    streamsOpen: () => open,
    streamsOpened: () => opened,
    captures: () => captures,
    custom: { status: 200, type: 'text/html', body: Buffer.from('<html></html>') },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  const authorised = (req: IncomingMessage, res: ServerResponse) => {
    if (!state.account) return true;
    const want = `Basic ${Buffer.from(`${state.account.username}:${state.account.password}`).toString('base64')}`;
    if (req.headers.authorization === want) return true;
    res.writeHead(401, { 'www-authenticate': 'Basic realm="esp32"' }).end();
    return false;
  };
  const server: Server = createServer((req, res) => {
    if (!authorised(req, res)) return;
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/capture') {
      captures++;
      const jpeg = frames[n++ % frames.length] as Buffer;
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': jpeg.length });
      res.end(req.method === 'HEAD' ? undefined : jpeg);
      return;
    }
    if (path === '/stream') {
      res.writeHead(200, { 'content-type': `multipart/x-mixed-replace;boundary=${boundary}` });
      if (req.method === 'HEAD') return void res.end();
      open++;
      opened++;
      const send = () => {
        const jpeg = frames[n++ % frames.length] as Buffer;
        res.write(`\r\n--${boundary}\r\nContent-Type: image/jpeg\r\nContent-Length: ${jpeg.length}\r\n\r\n`);
        res.write(jpeg);
      };
      send();
      const timer = setInterval(send, 100);
      res.on('close', () => {
        clearInterval(timer);
        open--;
      });
      return;
    }
    if (path === '/custom') {
      res.writeHead(state.custom.status, { 'content-type': state.custom.type });
      res.end(state.custom.body);
      return;
    }
    if (path === '/') {
      res.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>ESP32-CAM</body></html>');
      return;
    }
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  state.port = (server.address() as AddressInfo).port;
  state.base = `http://127.0.0.1:${state.port}`;
  return state;
}

/** A TCP port on 127.0.0.1 where nothing listens (bound, then closed). */
export async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** A host name that cannot resolve, and whose lookup never leaves the machine (a label over 63 bytes). */
export const UNRESOLVABLE_HOST = `${'x'.repeat(64)}.invalid`;

export interface StallingRtsp {
  port: number;
  /** rtsp://127.0.0.1:<port>/stall */
  url: string;
  /** PLAY requests answered (each is a client now waiting for frames that never come). */
  plays(): number;
  /** Connections open now. */
  open(): number;
  close(): Promise<void>;
}

/**
 * A camera that hangs: an RTSP server that answers OPTIONS, DESCRIBE (one H.264 video track),
 * SETUP (interleaved over the TCP connection) and PLAY like a camera, then never sends a frame.
 * Tests of time limits use it: nothing but a limit ends a client's wait.
 */
export async function startStallingRtsp(): Promise<StallingRtsp> {
  let plays = 0;
  const sockets = new Set<Socket>();
  const server = createNetServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => {});
    let pending = '';
    socket.on('data', (c: Buffer) => {
      pending += c.toString('latin1');
      for (let end = pending.indexOf('\r\n\r\n'); end >= 0; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end);
        pending = pending.slice(end + 4);
        socket.write(answer(head));
      }
    });
  });
  const answer = (head: string): string => {
    const [line = '', ...fields] = head.split('\r\n');
    const field = (name: string) =>
      fields
        .find((f) => f.toLowerCase().startsWith(`${name}:`))
        ?.slice(name.length + 1)
        .trim() ?? '';
    const method = line.split(' ')[0];
    const lines = ['RTSP/1.0 200 OK', `CSeq: ${field('cseq')}`];
    let body = '';
    if (method === 'OPTIONS') lines.push('Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER');
    else if (method === 'DESCRIBE') {
      body = [
        'v=0',
        'o=- 1 1 IN IP4 127.0.0.1',
        's=stalling camera',
        'c=IN IP4 127.0.0.1',
        't=0 0',
        'm=video 0 RTP/AVP 96',
        'a=rtpmap:96 H264/90000',
        'a=fmtp:96 packetization-mode=1',
        'a=control:track1',
        '',
      ].join('\r\n');
      lines.push(`Content-Base: ${state.url}/`, 'Content-Type: application/sdp', `Content-Length: ${body.length}`);
    } else if (method === 'SETUP') {
      lines.push('Transport: RTP/AVP/TCP;unicast;interleaved=0-1', 'Session: 5a17c0de;timeout=60');
    } else if (method === 'PLAY') {
      plays++;
      lines.push('Session: 5a17c0de');
    } else if (method !== 'TEARDOWN' && method !== 'GET_PARAMETER') {
      lines[0] = 'RTSP/1.0 405 Method Not Allowed';
    }
    return `${lines.join('\r\n')}\r\n\r\n${body}`;
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const state: StallingRtsp = {
    port,
    url: `rtsp://127.0.0.1:${port}/stall`,
    plays: () => plays,
    open: () => sockets.size,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
  return state;
}
