/**
 * Idle and half-sent connections cannot exhaust the server (issue 16, point 5): a connection
 * that sends no request headers, or a body that never completes, is answered HTTP 408 and closed
 * once its time is up on the gateway's clock; past the connection limit a new connection takes
 * the place of an idle one, so authorised clients keep being served while idle connections are
 * held; event streams are neither cut by the timeouts nor displaced, and their number is bounded.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { connectionStats } from '../../src/http/server.ts';
import { ManualClock, settle } from '../helpers/clock.ts';
import {
  call,
  eventually,
  openStream,
  type RawStream,
  rest,
  startGateway,
  type TestGateway,
} from '../helpers/foundation.ts';

interface Raw {
  socket: Socket;
  text(): string;
  closed(): boolean;
}

/** A raw TCP connection to the gateway that keeps what it receives. */
async function rawConnection(url: string): Promise<Raw> {
  const socket = connect(Number(new URL(url).port), '127.0.0.1');
  let text = '';
  let closed = false;
  socket.setEncoding('utf8');
  socket.on('data', (c: string) => {
    text += c;
  });
  socket.on('close', () => {
    closed = true;
  });
  socket.on('error', () => {});
  await new Promise<void>((done) => socket.once('connect', () => done()));
  return { socket, text: () => text, closed: () => closed };
}

function sse(token: string): string {
  return `/open-api/v2/sse/bridge?access_token=${encodeURIComponent(token)}`;
}

describe('connection timeouts (gateway clock)', () => {
  const clock = new ManualClock();
  let gw: TestGateway;
  const raws: Raw[] = [];
  before(async () => {
    gw = await startGateway({
      overrides: { http: { headers_timeout_ms: 5000, request_timeout_ms: 20_000 } },
      gatewayOptions: { clock },
    });
  });
  after(async () => {
    for (const r of raws) r.socket.destroy();
    await gw.stop();
  });
  const stats = () => connectionStats(gw.gateway.app);

  it('a connection that sends nothing is answered 408 with the envelope and closed when its headers time is up', async () => {
    const raw = await rawConnection(gw.url);
    raws.push(raw);
    await eventually(() => stats()?.open === 1, 10_000, 'the server holds the connection');
    clock.advance(4999);
    await settle();
    assert.equal(raw.closed(), false, 'still open before its time');
    clock.advance(1);
    await eventually(raw.closed, 10_000, 'the connection closed');
    assert.match(raw.text(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.deepEqual(JSON.parse(raw.text().split('\r\n\r\n')[1] as string), {
      error: 400,
      data: {},
      message: 'request timeout: no request headers within 5 s',
    });
  });

  it('a body that never completes is answered 408 and closed when the request time is up', async () => {
    const raw = await rawConnection(gw.url);
    raws.push(raw);
    raw.socket.write(
      `PUT ${rest('v2', 'bridge/config')} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${gw.token()}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"volume":`,
    );
    await eventually(() => stats()?.open === 1, 10_000, 'the server holds the connection');
    await settle(100);
    clock.advance(19_999);
    await settle();
    assert.equal(raw.closed(), false, 'still open before its time');
    clock.advance(1);
    await eventually(raw.closed, 10_000, 'the connection closed');
    assert.match(raw.text(), /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.match(raw.text(), /"message":"request timeout: the body did not arrive within 20 s"/);
  });

  it('an event stream is not cut by either timeout: it gets the events published after them', async () => {
    const token = gw.token('stream');
    const s = await openStream(gw.url, sse(token));
    try {
      clock.advance(60_000);
      await settle();
      gw.gateway.bus.publish('device#deleteDevice', { endpoint: { serial_number: 'after-the-timeouts' } });
      await s.waitFor(() => s.events().length === 1);
      assert.match(s.events()[0]?.data[0] as string, /after-the-timeouts/);
    } finally {
      s.close();
    }
  });
  it('open event streams hold no timer of the gateway clock, however many there are', async () => {
    const token = gw.token('streams');
    const held = clock.pending();
    const streams = await Promise.all(Array.from({ length: 5 }, () => openStream(gw.url, sse(token))));
    try {
      await eventually(() => gw.gateway.sse.size === 5, 5000, 'the streams attached');
      assert.equal(clock.pending(), held);
    } finally {
      for (const s of streams) s.close();
    }
  });
});

describe('the connection limit', () => {
  let gw: TestGateway;
  const raws: Raw[] = [];
  const streams: RawStream[] = [];
  before(async () => {
    gw = await startGateway({ overrides: { http: { max_connections: 16 }, sse: { max_streams: 4 } } });
  });
  after(async () => {
    for (const r of raws) r.socket.destroy();
    for (const s of streams) s.close();
    await gw.stop();
  });
  const stats = () => connectionStats(gw.gateway.app);

  it('keeps serving authorised clients while idle connections fill it; open streams stay', async () => {
    const token = gw.token('client');
    for (let i = 0; i < 3; i++) {
      const s = await openStream(gw.url, sse(token));
      await s.waitFor((f) => f.length >= 1);
      streams.push(s);
    }
    // Far more idle connections than the limit, none sending a byte (no token needed for that).
    for (let i = 0; i < 64; i++) raws.push(await rawConnection(gw.url));
    await eventually(() => (stats()?.open ?? 0) <= 16 && (stats()?.evicted ?? 0) >= 64 - 13, 10_000, 'the limit holds');
    for (let i = 0; i < 20; i++) {
      const r = await call(gw.url, 'GET', rest('v2', 'security'), { token, headers: { connection: 'close' } });
      assert.equal(r.json?.error, 0, r.text);
      raws.push(await rawConnection(gw.url));
    }
    assert.ok((stats()?.open ?? 0) <= 16, `${stats()?.open} connections open`);
    gw.gateway.bus.publish('device#deleteDevice', { endpoint: { serial_number: 'still-streaming' } });
    for (const s of streams) await s.waitFor(() => s.events().some((f) => f.data[0]?.includes('still-streaming')));
  });

  it('tells a stream past `sse.max_streams` to come back later, and REST keeps working', async () => {
    const token = gw.token('more');
    const fourth = await openStream(gw.url, sse(token));
    streams.push(fourth);
    await fourth.waitFor((f) => f.length >= 1);
    const fifth = await openStream(gw.url, sse(token));
    await fifth.closed;
    assert.equal(fifth.status, 200);
    assert.match(fifth.text(), /^retry: 10000\n: too many event streams are open, come back later\n\n$/);
    assert.equal((await call(gw.url, 'GET', rest('v2', 'security'), { token })).json.error, 0);
  });
});
