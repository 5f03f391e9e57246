/**
 * The event stream (spec 6, COMPAT.md) read two ways: raw HTTP (every byte: id, event, one data
 * line, retry, heartbeat) and a real EventSource client (the `eventsource` package) that
 * reconnects with Last-Event-ID after a cut.
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { EventSource } from 'eventsource';
import { Agent, fetch as undiciFetch } from 'undici';
import { EventBus } from '../../src/core/event-bus.ts';
import { openApiProjection } from '../../src/http/open-api/events.ts';
import { StreamWriter } from '../../src/http/stream/writer.ts';
import { systemClock } from '../../src/lib/clock.ts';
import {
  call,
  eventually,
  openStream,
  type RawStream,
  rest,
  startGateway,
  type TestGateway,
} from '../helpers/foundation.ts';

function publishState(bus: EventBus, n: number, extra: Record<string, unknown> = {}) {
  return bus.publish('device#updateDeviceState', {
    endpoint: { serial_number: `dev-${n}` },
    payload: { power: { powerState: n % 2 ? 'on' : 'off' }, n, ...extra },
  });
}

function sse(version: string, token: string, query = ''): string {
  return `/open-api/${version}/sse/bridge?access_token=${encodeURIComponent(token)}${query}`;
}

describe('event stream', () => {
  let gw: TestGateway;
  let token: string;
  const streams: RawStream[] = [];
  const open = async (path: string, headers?: Record<string, string>) => {
    const s = await openStream(gw.url, path, headers);
    streams.push(s);
    return s;
  };

  before(async () => {
    gw = await startGateway({ overrides: { sse: { heartbeat_seconds: 1 } } });
    token = gw.token('sse');
  });
  after(async () => {
    for (const s of streams) s.close();
    await gw.stop();
  });

  describe('a bad token', () => {
    const cases: [string, string][] = [
      ['no token', '/open-api/v2/sse/bridge'],
      ['an empty token', '/open-api/v2/sse/bridge?access_token='],
      ['an unknown token', '/open-api/v2/sse/bridge?access_token=nope'],
      ['an unknown token on v1', '/open-api/v1/sse/bridge?access_token=nope'],
      ['an unknown token on V2', '/open-api/V2/sse/bridge?access_token=nope'],
      ['a repeated token', '/open-api/v2/sse/bridge?access_token=a&access_token=b'],
    ];
    for (const [what, path] of cases) {
      it(`with ${what} gets HTTP 401 and the spec's JSON body, not a stream`, async () => {
        const res = await fetch(`${gw.url}${path}`, { headers: { accept: 'text/event-stream' } });
        assert.equal(res.status, 401);
        assert.match(res.headers.get('content-type') ?? '', /^application\/json/);
        assert.deepEqual(await res.json(), { error: 401, data: {}, message: 'invalid access_token' });
      });
    }

    it('makes a real EventSource client stop instead of retrying', async () => {
      const es = new EventSource(`${gw.url}${sse('v2', 'nope')}`);
      try {
        await new Promise<void>((resolve, reject) => {
          es.onerror = () => resolve();
          es.onopen = () => reject(new Error('opened'));
        });
        await eventually(() => es.readyState === EventSource.CLOSED, 5000, 'EventSource closed');
      } finally {
        es.close();
      }
    });
  });

  for (const version of ['v1', 'v2', 'V2']) {
    it(`on ${version}: retry on connect, then each event with its id, its versioned name and ONE data line, in order`, async () => {
      const s = await open(sse(version, token));
      assert.equal(s.status, 200);
      assert.match(String(s.headers['content-type']), /^text\/event-stream/);
      await s.waitFor((f) => f.length >= 1);
      assert.match(s.text(), /^retry: \d+\n/);
      const v = version.toLowerCase();
      const published = [];
      for (let i = 0; i < 5; i++) published.push(publishState(gw.gateway.bus, i, { text: 'line1\nline2\r\n"quoted"' }));
      // security events through the API, to see the names clients compare
      await call(gw.url, 'PUT', rest(version, 'security/1/enable'), { token });
      await call(gw.url, 'PUT', rest(version, 'security/disable'), { token });
      await s.waitFor(() => s.events().length >= 7);
      const events = s.events();
      assert.deepEqual(
        events.slice(0, 5).map((f) => [f.id, f.event, f.data.length]),
        published.map((e) => [String(e.id), `device#${v}#updateDeviceState`, 1]),
      );
      assert.deepEqual(JSON.parse(events[0]?.data[0] as string), published[0]?.data);
      assert.deepEqual(
        events.slice(5).map((f) => [f.event, JSON.parse(f.data[0] as string)]),
        [
          [`security#${v}#updateArmState`, { payload: { arm_state: 'arming', detail: { sid: 1, name: 'home_mode' } } }],
          [
            `security#${v}#updateArmState`,
            { payload: { arm_state: 'disarming', detail: { sid: 1, name: 'home_mode' } } },
          ],
        ],
      );
      const ids = events.map((f) => Number(f.id));
      for (let i = 1; i < ids.length; i++) assert.equal(ids[i], (ids[i - 1] as number) + 1, 'ids rise by one');
      for (const f of events) assert.equal(f.data.length, 1, 'one data line');
      s.close();
    });
  }

  it('sends a comment heartbeat on a quiet stream', async () => {
    const s = await open(sse('v2', token));
    await s.waitFor((frames) => frames.some((f) => f.comments.includes('ping')), 10_000);
    s.close();
  });

  for (const [how, version, byQuery] of [
    ['the Last-Event-ID header', 'v2', false],
    ['the lastEventId query parameter', 'v1', true],
  ] as const) {
    it(`replays exactly the missed events to a client that resumes with ${how}`, async () => {
      const seen = publishState(gw.gateway.bus, 100);
      const missed = [101, 102, 103].map((n) => publishState(gw.gateway.bus, n));
      const s = byQuery
        ? await open(sse(version, token, `&lastEventId=${seen.id}`))
        : await open(sse(version, token), { 'last-event-id': String(seen.id) });
      await s.waitFor(() => s.events().length >= 3);
      const live = publishState(gw.gateway.bus, 104);
      await s.waitFor(() => s.events().length >= 4);
      assert.deepEqual(
        s.events().map((f) => Number(f.id)),
        [...missed.map((e) => e.id), live.id],
      );
      assert.equal(s.events()[0]?.event, `device#${version}#updateDeviceState`);
      s.close();
    });
  }

  it('a client that is up to date gets no replay', async () => {
    const last = publishState(gw.gateway.bus, 200);
    const s = await open(sse('v2', token), { 'last-event-id': String(last.id) });
    const live = publishState(gw.gateway.bus, 201);
    await s.waitFor(() => s.events().length >= 1);
    assert.deepEqual(
      s.events().map((f) => Number(f.id)),
      [live.id],
    );
    s.close();
  });

  it('tells a client whose id is older than the buffer that events were lost, then streams on', async () => {
    const bus = gw.gateway.bus;
    const old = publishState(bus, 300);
    // capacity + 1 newer events push `old` and the one after it out of the ring
    for (let i = 0; i <= bus.capacity; i++) publishState(bus, 301 + i);
    for (const [version, lastId] of [
      ['v2', old.id],
      ['v1', 1],
    ] as const) {
      const s = await open(sse(version, token), { 'last-event-id': String(lastId) });
      await s.waitFor(() => s.events().length >= 1);
      const gap = s.events()[0];
      assert.equal(gap?.event, `bridge#${version}#eventsLost`);
      assert.equal(Number(gap?.id), bus.last, 'the gap event carries the current id, so the next resume is exact');
      assert.deepEqual(JSON.parse(gap?.data[0] as string), {
        payload: { last_event_id: lastId, oldest_event_id: bus.oldest, current_event_id: bus.last },
      });
      const live = publishState(bus, 1);
      await s.waitFor(() => s.events().length >= 2);
      assert.equal(Number(s.events()[1]?.id), live.id);
      assert.equal(s.events().length, 2, 'no replay of what is kept: the client knows it must resync');
      s.close();
    }
  });

  it('a real EventSource client receives events and, after a cut, exactly the ones it missed', async () => {
    const sockets = new Set<Socket>();
    const track = (socket: Socket) => sockets.add(socket);
    gw.gateway.app.server.on('connection', track);
    // Its own connection pool, so that its connection is a new one the server reports.
    const agent = new Agent();
    const es = new EventSource(`${gw.url}${sse('v1', token)}`, {
      fetch: (url, init) => undiciFetch(url, { ...init, dispatcher: agent } as Parameters<typeof undiciFetch>[1]),
    });
    const got: { id: string; name: string; data: unknown }[] = [];
    let opens = 0;
    es.addEventListener('open', () => opens++);
    es.addEventListener('device#v1#updateDeviceState', (e) => {
      got.push({ id: e.lastEventId, name: e.type, data: JSON.parse(e.data) });
    });
    try {
      await eventually(() => opens === 1, 5000, 'EventSource open');
      const before = [1, 2].map((n) => publishState(gw.gateway.bus, 400 + n));
      await eventually(() => got.length === 2, 5000, 'two events');
      // Cut the connection from the server side and publish while the client is away.
      for (const s of sockets) s.destroy();
      await eventually(() => es.readyState === EventSource.CONNECTING, 5000, 'client noticed the cut');
      const missed = [3, 4, 5].map((n) => publishState(gw.gateway.bus, 400 + n));
      await eventually(() => opens === 2, 15_000, 'EventSource reconnected');
      const live = publishState(gw.gateway.bus, 406);
      await eventually(() => got.length === 6, 5000, 'six events');
      assert.deepEqual(
        got.map((g) => g.id),
        [...before, ...missed, live].map((e) => String(e.id)),
      );
      assert.deepEqual(got[2]?.data, missed[0]?.data);
      assert.ok(got.every((g) => g.name === 'device#v1#updateDeviceState'));
    } finally {
      es.close();
      gw.gateway.app.server.off('connection', track);
      await agent.close();
    }
  });

  it('200 concurrent streams on loopback all get an event', async () => {
    const many = await Promise.all(
      Array.from({ length: 200 }, (_, i) => openStream(gw.url, sse(i % 2 ? 'v1' : 'v2', token))),
    );
    streams.push(...many);
    try {
      assert.ok(gw.gateway.sse.size >= 200);
      const e = publishState(gw.gateway.bus, 500);
      await Promise.all(many.map((s) => s.waitFor(() => s.events().some((f) => f.id === String(e.id)))));
      for (const [i, s] of many.entries()) {
        const f = s.events().find((x) => x.id === String(e.id));
        assert.equal(f?.event, `device#${i % 2 ? 'v1' : 'v2'}#updateDeviceState`);
      }
    } finally {
      for (const s of many) s.close();
    }
    await eventually(() => gw.gateway.sse.size < 200, 5000, 'closed streams leave the hub');
  });
});

/** A client that sends the request and then never reads a byte. */
function stalledClient(url: string, path: string): Promise<Socket> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\n\r\n`);
      socket.pause();
      resolve(socket);
    });
    socket.on('error', () => {});
    socket.once('error', reject);
  });
}

describe('a slow client', () => {
  it('is disconnected when its queue overflows, while a fast client keeps getting every event', async (t) => {
    const gw = await startGateway({ overrides: { sse: { client_queue: 10 } } });
    const token = gw.token();
    const fast = await openStream(gw.url, sse('v2', token));
    const slow = await stalledClient(gw.url, sse('v2', token));
    t.after(async () => {
      fast.close();
      slow.destroy();
      await gw.stop();
    });
    await eventually(() => gw.gateway.sse.size === 2, 5000, 'both streams attached');
    const big = 'x'.repeat(64 * 1024);
    const published: number[] = [];
    // Publish until the stalled client's socket buffers are full and its queue overflows
    // (bounded: 4000 x 64 KiB is far beyond any loopback socket buffer).
    for (let i = 0; i < 4000 && gw.gateway.sse.size === 2; i++) {
      published.push(publishState(gw.gateway.bus, i, { big }).id);
      if (i % 4 === 0) await new Promise((r) => setImmediate(r));
    }
    assert.equal(gw.gateway.sse.size, 1, 'the slow client was cut off');
    const after = [1, 2, 3].map((n) => publishState(gw.gateway.bus, n).id);
    await fast.waitFor(() => fast.events().length === published.length + after.length, 30_000);
    assert.deepEqual(
      fast.events().map((f) => Number(f.id)),
      [...published, ...after],
      'the fast client got every event, in order',
    );
    // The slow client can come back and resume from where it was.
    const resumed = await openStream(gw.url, sse('v2', token), { 'last-event-id': String(published.at(-1)) });
    t.after(() => resumed.close());
    await resumed.waitFor(() => resumed.events().length === 3);
    assert.deepEqual(
      resumed.events().map((f) => Number(f.id)),
      after,
    );
  });

  it('does not hold up a graceful stop', async () => {
    const gw = await startGateway({ overrides: { sse: { client_queue: 100_000 } } });
    const token = gw.token();
    const slow = await stalledClient(gw.url, sse('v2', token));
    const fast = await openStream(gw.url, sse('v1', token));
    try {
      await eventually(() => gw.gateway.sse.size === 2, 5000, 'both streams attached');
      const big = 'y'.repeat(64 * 1024);
      for (let i = 0; i < 400; i++) {
        publishState(gw.gateway.bus, i, { big });
        if (i % 8 === 0) await new Promise((r) => setImmediate(r));
      }
      await gw.stop();
      await fast.closed;
      assert.equal(gw.gateway.sse.size, 0);
    } finally {
      slow.destroy();
      fast.close();
      await gw.stop();
    }
  });
});

describe('edges of the stream', () => {
  // The canonical path is served ahead of Fastify (src/http/open-api/events.ts, rawStreamRoute);
  // other spellings reach the Fastify route. Both must answer alike.
  const spellings = [
    ['the canonical path', (q: string) => `/open-api/v2/sse/bridge?${q}`],
    ['a trailing slash', (q: string) => `/open-api/v2/sse/bridge/?${q}`],
    ['a doubled slash', (q: string) => `//open-api/v2/sse/bridge?${q}`],
  ] as const;

  for (const [what, path] of spellings) {
    it(`HEAD on the stream path (${what}) gets the head of a stream and ends`, async (t) => {
      const gw = await startGateway();
      t.after(() => gw.stop());
      const res = await fetch(`${gw.url}${path(`access_token=${gw.token()}`)}`, { method: 'HEAD' });
      assert.equal(res.status, 200);
      assert.match(res.headers.get('content-type') ?? '', /^text\/event-stream/);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.equal(gw.gateway.sse.size, 0);
    });

    it(`a valid token given twice (${what}) is no token: HTTP 401 with the JSON body`, async (t) => {
      const gw = await startGateway();
      t.after(() => gw.stop());
      const token = gw.token();
      const res = await fetch(`${gw.url}${path(`access_token=${token}&access_token=${token}`)}`, {
        headers: { accept: 'text/event-stream' },
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('access-control-allow-origin'), '*');
      assert.deepEqual(await res.json(), { error: 401, data: {}, message: 'invalid access_token' });
    });

    it(`a stream (${what}) resumes from lastEventId in the query and follows the bus`, async (t) => {
      const gw = await startGateway();
      t.after(() => gw.stop());
      const before = publishState(gw.gateway.bus, 1).id;
      publishState(gw.gateway.bus, 2);
      const s = await openStream(gw.url, path(`access_token=${gw.token()}&lastEventId=${before}`));
      t.after(() => s.close());
      await eventually(() => gw.gateway.sse.size === 1, 5000, 'the stream attached');
      publishState(gw.gateway.bus, 3);
      await s.waitFor(() => s.events().length === 2);
      assert.deepEqual(
        s.events().map((f) => JSON.parse(f.data[0] as string).payload.n),
        [2, 3],
      );
      assert.equal(s.headers['access-control-allow-origin'], '*');
    });
  }

  it('a stream opened while the gateway stops is told to retry and ended, so the stop completes', async (t) => {
    const bus = new EventBus(10_000);
    const hub = new StreamWriter(bus, openApiProjection, { heartbeatMs: 1000, queueLimit: 10, clock: systemClock });
    hub.start();
    hub.stop();
    const server = createServer((_req, res) => hub.attach(res, { variant: 'v2', principal: 'p' }, null));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    t.after(() => new Promise<void>((r) => server.close(() => r())));
    const addr = server.address() as { port: number };
    const s = await openStream(`http://127.0.0.1:${addr.port}`, '/');
    await s.closed;
    assert.equal(s.status, 200);
    assert.equal(s.text(), 'retry: 3000\n: the gateway is stopping, come back\n\n');
    assert.equal(hub.size, 0);
  });
});
