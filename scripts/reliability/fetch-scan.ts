/**
 * Issue 24, finding 3, measured against a real `opencube start`: a token holder uses
 * `POST media/audio-player` and the camera probe (D2) as a port scanner and a reader of the network.
 * Targets: a dead port, one that cuts the connection, one that never answers, a service that is not
 * HTTP, web servers answering errors, redirects and pages holding a secret. Figures: how many
 * different answers the targets got (1 each: the scanner learns nothing), how many answers held a
 * byte of the secret (0). In a private network namespace, a server at a public address
 * (203.0.113.7, on loopback there) redirects into the home (10.9.8.7) and onto the gateway's own
 * machine (127.0.0.1): refused; to another public address: followed.
 */
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { type AddressInfo, createServer as createNetServer, type Server as NetServer, type Socket } from 'node:net';
import { encodeWav } from '../../src/core/audio/wav.ts';
import { cameraBody } from '../../test/camera/bodies.ts';
import { closedPort } from '../../test/camera/servers.ts';
import { sine } from '../../test/helpers/audio.ts';
import { tempDir } from '../../test/helpers/foundation.ts';
import { launchGateway, linkToken } from './gateway-process.ts';

export interface FetchScanFigures {
  targets: number;
  /** Different answers of media/audio-player, of the RTSP probe and of the ESP32-CAM probe. */
  audioAnswers: number;
  rtspAnswers: number;
  espAnswers: number;
  /** Answers that held any 6 bytes in a row of the secret, as text or hex. */
  leaks: number;
  /** Redirects from a public address into the home or onto the box: refused, of tried (none when not in a namespace). */
  inwardRefused: number;
  inwardTried: number;
  /** A redirect from a public address to another public one was followed and played. */
  outwardFollowed: boolean | undefined;
}

const SECRET = `Zr4Wq${Math.random().toString(36).slice(2)}Jx8N`;
const PUBLIC = ['203.0.113.7', '203.0.113.8'];
const PRIVATE = '10.9.8.7';

function leaks(text: string): boolean {
  const b = Buffer.from(SECRET);
  const hex = b.toString('hex');
  for (let i = 0; i + 8 <= hex.length; i += 2) if (text.includes(hex.slice(i, i + 8))) return true;
  for (let i = 0; i + 6 <= SECRET.length; i++) if (text.includes(SECRET.slice(i, i + 6))) return true;
  return false;
}

/** Listens on `host`; resolves with the port. */
function listen(server: Server | NetServer, host: string): Promise<number> {
  return new Promise((resolve) => server.listen(0, host, () => resolve((server.address() as AddressInfo).port)));
}

export async function runFetchScan(): Promise<FetchScanFigures> {
  const inNamespace = process.env.OPENCUBE_PRIVATE_NETWORK === '1';
  // Addresses of the internet and of a LAN, on this namespace's own loopback (nothing leaves it).
  if (inNamespace) for (const a of [...PUBLIC, PRIVATE]) execFileSync('ip', ['addr', 'add', `${a}/32`, 'dev', 'lo']);
  const tone = encodeWav(sine(440, 300));
  const servers: (Server | NetServer)[] = [];
  const held = new Set<Socket>();
  const tcp = async (onSocket: (s: Socket) => void) => {
    const s = createNetServer((socket) => {
      held.add(socket);
      socket.on('error', () => {});
      socket.on('close', () => held.delete(socket));
      onSocket(socket);
    });
    servers.push(s);
    return listen(s, '127.0.0.1');
  };
  const web = (host: string, routes: Record<string, (res: import('node:http').ServerResponse) => void>) => {
    const s = createServer((req, res) =>
      (routes[(req.url ?? '/').split('?')[0] as string] ?? ((r) => r.writeHead(404).end(SECRET)))(res),
    );
    servers.push(s);
    return listen(s, host);
  };
  const dataDir = tempDir('opencube-fetch-scan-');
  const g = await launchGateway({
    dataDir,
    flags: ['--audio-media-timeout-ms', '1000', '--camera-probe-timeout-ms', '1000'],
  });
  try {
    const secretPort = await web('127.0.0.1', {
      '/secret': (res) => res.writeHead(200, { 'content-type': 'text/plain' }).end(SECRET),
      '/secret-500': (res) => res.writeHead(500, { 'content-type': `text/${SECRET}` }).end(SECRET),
      '/login': (res) => res.writeHead(401, { 'www-authenticate': `Basic realm="${SECRET}"` }).end(SECRET),
      '/loop': (res) => res.writeHead(302, { location: '/loop' }).end(),
      '/riff': (res) => res.writeHead(200).end(Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVE'), Buffer.from(SECRET)])),
    });
    const ports = {
      refused: await closedPort(),
      reset: await tcp((s) => s.resetAndDestroy()),
      silent: await tcp(() => {}),
      banner: await tcp((s) => s.end(`SSH-2.0-${SECRET}\r\n`)),
    };
    const token = await linkToken(g, 'scanner');
    const post = async (path: string, body: unknown) => {
      const r = await fetch(`${g.url}/open-api/v2/rest/${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify(body),
      });
      return (await r.json()) as { error: number; message: string };
    };
    const play = (url: string) => post('media/audio-player', { audio_url: url });
    const camera = (url: string, protocal: string) => post('devices', cameraBody(url, { protocal }));

    const deadPorts = Object.values(ports);
    const audioTargets = [
      ...deadPorts.map((p) => `http://127.0.0.1:${p}/a.wav`),
      ...['/secret-500', '/login', '/loop'].map((p) => `http://127.0.0.1:${secretPort}${p}`),
    ];
    const answers: { error: number; message: string }[] = [];
    const audio = new Set<string>();
    for (const url of audioTargets) {
      const r = await play(url);
      answers.push(r);
      audio.add(`${r.error} ${r.message}`);
    }
    for (const path of ['/secret', '/riff']) answers.push(await play(`http://127.0.0.1:${secretPort}${path}`));
    const rtsp = new Set<string>();
    const esp = new Set<string>();
    for (const p of [...deadPorts, secretPort]) {
      const r = await camera(`rtsp://127.0.0.1:${p}/live`, 'RTSP');
      answers.push(r);
      rtsp.add(`${r.error} ${r.message.replace(String(p), 'PORT')}`);
    }
    for (const path of ['/secret', '/secret-500', '/loop', '/riff', '/nothing']) {
      const r = await camera(`http://127.0.0.1:${secretPort}${path}`, 'ESP32-CAM');
      answers.push(r);
      esp.add(`${r.error} ${r.message.replace(path, '/PATH')}`);
    }

    let inwardTried = 0;
    let inwardRefused = 0;
    let outwardFollowed: boolean | undefined;
    if (inNamespace) {
      const audioPort = await web(PUBLIC[1] as string, {
        '/tone.wav': (res) => res.writeHead(200, { 'content-type': 'audio/wav' }).end(tone),
      });
      const lanPort = await web(PRIVATE, { '/tone.wav': (res) => res.writeHead(200).end(tone) });
      const loopPort = await web('127.0.0.1', { '/tone.wav': (res) => res.writeHead(200).end(tone) });
      const to = (url: string) => (res: import('node:http').ServerResponse) =>
        res.writeHead(302, { location: url }).end();
      const redirector = await web(PUBLIC[0] as string, {
        '/to-lan': to(`http://${PRIVATE}:${lanPort}/tone.wav`),
        '/to-box': to(`http://127.0.0.1:${loopPort}/tone.wav`),
        '/to-box-v6': to(`http://[::ffff:127.0.0.1]:${loopPort}/tone.wav`),
        '/to-public': to(`http://${PUBLIC[1]}:${audioPort}/tone.wav`),
      });
      for (const path of ['/to-lan', '/to-box', '/to-box-v6']) {
        inwardTried++;
        if ((await play(`http://${PUBLIC[0]}:${redirector}${path}`)).error !== 0) inwardRefused++;
      }
      outwardFollowed = (await play(`http://${PUBLIC[0]}:${redirector}/to-public`)).error === 0;
    }
    return {
      targets: audioTargets.length + deadPorts.length + 1 + 5,
      audioAnswers: audio.size,
      rtspAnswers: rtsp.size,
      espAnswers: esp.size,
      leaks: answers.filter((a) => leaks(JSON.stringify(a))).length,
      inwardRefused,
      inwardTried,
      outwardFollowed,
    };
  } finally {
    await g.stop().catch(() => {});
    for (const s of held) s.destroy();
    for (const s of servers) {
      if (s instanceof Object && 'closeAllConnections' in s) (s as Server).closeAllConnections();
      await new Promise((r) => s.close(r));
    }
    rmSync(dataDir, { recursive: true, force: true });
    if (inNamespace)
      for (const a of [...PUBLIC, PRIVATE])
        try {
          execFileSync('ip', ['addr', 'del', `${a}/32`, 'dev', 'lo']);
        } catch {
          // already gone
        }
  }
}
