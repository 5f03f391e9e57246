/**
 * The attacks of issue 16 against a real `opencube start`, with figures: memory (4 MB tags, a
 * flood of large events and a stream client that never reads, on a 384 MB heap), idle
 * connections (thousands held, no token needed), requests that never complete, and directives
 * hung on one service address while a healthy device behind it is controlled.
 */

import { rmSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tempDir } from '../../test/helpers/foundation.ts';
import { endpoint, startService, successReply } from '../../test/helpers/thirdparty.ts';
import { type GatewayProcess, launchGateway, linkToken } from './gateway-process.ts';

export interface AttackFigures {
  memory: {
    heapMb: number;
    hugeTagsRefused: number;
    largeEventsAccepted: number;
    eventMb: number;
    rssBeforeMb: number;
    rssAfterMb: number;
    slowClientCut: boolean;
    alive: boolean;
  };
  idle: { attempted: number; held: number; answered: number; asked: number };
  timeouts: { silentClosedMs: number; halfBodyClosedMs: number; answered408: number; streamOutlived: boolean };
  headOfLine: { hung: number; controls: number; maxMs: number; medianMs: number };
}

type Send = (name: string, ep: unknown, payload: unknown) => Promise<any>;

function t1(url: string, token: string): Send {
  return (name, ep, payload) =>
    fetch(`${url}/open-api/v2/rest/thirdparty/event`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({
        event: { header: { name, message_id: crypto.randomUUID(), version: '1' }, endpoint: ep, payload },
      }),
    }).then((x) => x.json() as Promise<any>);
}

function open(port: number): Promise<Socket | undefined> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => resolve(s));
    s.once('error', () => resolve(undefined));
  });
}

/** Opens a stream and does not read it (until `wasCut` reads what is left, to see whether it ends). */
async function nonReader(
  g: GatewayProcess,
  token: string,
): Promise<{ closed: () => boolean; wasCut: () => Promise<boolean> }> {
  const s = (await open(g.port)) as Socket;
  let closed = false;
  s.on('close', () => {
    closed = true;
  });
  s.on('error', () => {});
  s.write(`GET /open-api/v2/sse/bridge?access_token=${token} HTTP/1.1\r\nHost: x\r\n\r\n`);
  s.pause();
  return {
    closed: () => closed,
    // A paused socket hears of its end only once it has read what came before: read it all,
    // and a stream that was cut ends; one that was not goes on (its heartbeats) past 10 s.
    async wasCut() {
      s.resume();
      const until = Date.now() + 10_000;
      while (!closed && Date.now() < until) await wait(50);
      s.destroy();
      return closed;
    },
  };
}

const wait = (ms: number) => new Promise((done) => setTimeout(done, ms));
const mb = (bytes: number) => Math.round(bytes / 1048576);

/** Memory: what 4 MB tags did before, and a flood of the largest events allowed. */
async function memory(events: number): Promise<AttackFigures['memory']> {
  const dataDir = tempDir('opencube-memory-');
  const heapMb = 384;
  const g = await launchGateway({ dataDir, env: { NODE_OPTIONS: `--max-old-space-size=${heapMb}` } });
  try {
    const token = await linkToken(g, 'memory');
    const send = t1(g.url, token);
    const sync = await send('DiscoveryRequest', undefined, { endpoints: [endpoint('big', 'http://127.0.0.1:9/x')] });
    const serial = sync.payload.endpoints[0].serial_number;
    const slow = await nonReader(g, token);
    const rssBefore = g.rss();
    let refused = 0;
    const huge = { blob: 'a'.repeat(4 * 1048576) };
    for (let i = 0; i < 50; i++) {
      const r = await send(
        'DeviceInformationUpdatedReport',
        { serial_number: serial },
        { capabilities: [], tags: huge },
      );
      if (r.header?.name === 'ErrorResponse') refused++;
    }
    let accepted = 0;
    let bytes = 0;
    for (let i = 0; i < events; i++) {
      const tags = { blob: `${i}-${'b'.repeat(60 * 1024)}` };
      const r = await send('DeviceInformationUpdatedReport', { serial_number: serial }, { capabilities: [], tags });
      if (r.header?.name === 'Response') {
        accepted++;
        bytes += 60 * 1024;
      }
    }
    await wait(500);
    return {
      heapMb,
      hugeTagsRefused: refused,
      largeEventsAccepted: accepted,
      eventMb: mb(bytes),
      rssBeforeMb: mb(rssBefore),
      rssAfterMb: mb(g.rss()),
      slowClientCut: await slow.wasCut(),
      alive: g.alive(),
    };
  } finally {
    await g.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Idle connections: as many as this process may open (up to `count`), then authorised requests. */
async function idle(g: GatewayProcess, token: string, count: number): Promise<AttackFigures['idle']> {
  const held: Socket[] = [];
  let attempted = 0;
  for (let i = 0; i < count; i += 500) {
    const batch = await Promise.all(Array.from({ length: Math.min(500, count - i) }, () => open(g.port)));
    attempted += batch.length;
    for (const s of batch) {
      if (!s) continue;
      s.on('error', () => {});
      held.push(s);
    }
    if (batch.every((s) => s === undefined)) break;
  }
  const stillOpen = () => held.filter((s) => !s.destroyed).length;
  let answered = 0;
  const asked = 100;
  for (let i = 0; i < asked; i++) {
    try {
      const r = await fetch(`${g.url}/open-api/v2/rest/devices`, {
        headers: { authorization: `Bearer ${token}`, connection: 'close' },
        signal: AbortSignal.timeout(5000),
      });
      if (((await r.json()) as any).error === 0) answered++;
    } catch {
      // reset: not answered
    }
  }
  const figures = { attempted, held: stillOpen(), answered, asked };
  for (const s of held) s.destroy();
  return figures;
}

/** A silent connection and a body that never completes, against the gateway's timeouts. */
async function timeouts(g: GatewayProcess, token: string): Promise<AttackFigures['timeouts']> {
  const closedAfter = async (write: string) => {
    const s = (await open(g.port)) as Socket;
    let text = '';
    s.on('data', (c) => {
      text += c.toString();
    });
    s.on('error', () => {});
    const t = performance.now();
    if (write) s.write(write);
    await new Promise((done) => s.once('close', done));
    return { ms: Math.round(performance.now() - t), is408: text.startsWith('HTTP/1.1 408') };
  };
  const stream = await nonReader(g, token);
  const [silent, half] = await Promise.all([
    closedAfter(''),
    closedAfter(
      `PUT /open-api/v2/rest/bridge/config HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"volume":`,
    ),
  ]);
  return {
    silentClosedMs: silent.ms,
    halfBodyClosedMs: half.ms,
    answered408: Number(silent.is408) + Number(half.is408),
    streamOutlived: !stream.closed(),
  };
}

/** 150 directives hung on one address; controls of a healthy device behind the same address. */
async function headOfLine(g: GatewayProcess, token: string): Promise<AttackFigures['headOfLine']> {
  const held: ServerResponse[] = [];
  const service = await startService((d, _req, res) => {
    if (d?.directive?.endpoint?.third_serial_number === 'hung') held.push(res);
    else res.end(JSON.stringify(successReply(d)));
  });
  try {
    const send = t1(g.url, token);
    const sync = await send('DiscoveryRequest', undefined, {
      endpoints: [endpoint('hung', service.url), endpoint('healthy', service.url)],
    });
    const [hung, healthy] = sync.payload.endpoints.map((e: any) => e.serial_number);
    const control = (serial: string) =>
      fetch(`${g.url}/open-api/v2/rest/devices/${serial}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ state: { power: { powerState: 'on' } } }),
      }).then((x) => x.json());
    const hanging = Array.from({ length: 150 }, () => control(hung).catch(() => undefined));
    while (held.length < 150) await wait(10);
    const times: number[] = [];
    for (let i = 0; i < 20; i++) {
      const t = performance.now();
      await control(healthy);
      times.push(performance.now() - t);
    }
    await Promise.all(hanging);
    times.sort((a, b) => a - b);
    return {
      hung: 150,
      controls: times.length,
      maxMs: Math.round(times[times.length - 1] as number),
      medianMs: Math.round(times[Math.floor(times.length / 2)] as number),
    };
  } finally {
    for (const res of held) res.destroy();
    await service.close();
  }
}

/** Runs every attack. `idleConnections` and `largeEvents` scale the two heavy ones. */
export async function runAttacks(opts: { idleConnections: number; largeEvents: number }): Promise<AttackFigures> {
  const mem = await memory(opts.largeEvents);
  const dataDir = tempDir('opencube-attacks-');
  const g = await launchGateway({
    dataDir,
    flags: ['--http-headers-timeout-ms', '1000', '--http-request-timeout-ms', '2000'],
  });
  try {
    const token = await linkToken(g, 'attacks');
    return {
      memory: mem,
      idle: await idle(g, token, opts.idleConnections),
      timeouts: await timeouts(g, token),
      headOfLine: await headOfLine(g, token),
    };
  } finally {
    await g.stop().catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}
