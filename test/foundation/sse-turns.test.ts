/**
 * The event-stream writer writes the events of one turn of the event loop together, after that
 * turn (src/http/stream/writer.ts): what each stream gets must be what it got when every event
 * was written at once: every event once, in id order, none from before the stream attached
 * unless it asked to resume, and everything published before a stream ends.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { EventBus } from '../../src/core/event-bus.ts';
import { openApiProjection } from '../../src/http/open-api/events.ts';
import { StreamWriter } from '../../src/http/stream/writer.ts';
import { systemClock } from '../../src/lib/clock.ts';
import { type Frame, openStream, type RawStream } from '../helpers/foundation.ts';

function publishState(bus: EventBus, n: number) {
  return bus.publish('device#updateDeviceState', {
    endpoint: { serial_number: `dev-${n}` },
    payload: { n },
  });
}

const numbers = (frames: Frame[]) =>
  frames.filter((f) => f.event !== undefined).map((f) => JSON.parse(f.data[0] as string).payload.n as number);

describe('events written once per turn of the event loop', () => {
  const bus = new EventBus(10_000);
  const hub = new StreamWriter(bus, openApiProjection, { heartbeatMs: 60_000, queueLimit: 5000, clock: systemClock });
  /** What the server does when a stream is opened, before and after it attaches it (set by each test). */
  let onOpen: (req: IncomingMessage, res: ServerResponse) => void = () => {};
  const server = createServer((req, res) => onOpen(req, res));
  let base = '';
  const streams: RawStream[] = [];
  const open = async (path = '/', headers: Record<string, string> = {}) => {
    const s = await openStream(base, path, headers);
    streams.push(s);
    return s;
  };

  before(async () => {
    hub.start();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  after(async () => {
    for (const s of streams) s.close();
    hub.stop();
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('a burst of 1,000 events reaches each of 20 streams once each, in order', async () => {
    onOpen = (_req, res) => hub.attach(res, { variant: 'v2', principal: 'p' }, null);
    const clients = await Promise.all(Array.from({ length: 20 }, () => open()));
    while (hub.size < 20) await new Promise((r) => setImmediate(r));
    for (let n = 0; n < 1000; n++) publishState(bus, n);
    const expected = Array.from({ length: 1000 }, (_, n) => n);
    for (const c of clients) {
      await c.waitFor((frames) => numbers(frames).length >= 1000);
      assert.deepEqual(numbers(c.frames), expected);
    }
  });

  it('a stream that attaches right after an event, in the same turn, does not get that event', async () => {
    onOpen = (_req, res) => {
      publishState(bus, 1);
      hub.attach(res, { variant: 'v2', principal: 'p' }, null);
      publishState(bus, 2);
    };
    const s = await open();
    await s.waitFor((frames) => numbers(frames).length >= 1);
    publishState(bus, 3);
    await s.waitFor((frames) => numbers(frames).includes(3));
    assert.deepEqual(numbers(s.frames), [2, 3]);
  });

  it('a stream that resumes while events wait to be written gets each event it missed once', async () => {
    let first = 0;
    onOpen = (req, res) => {
      first = publishState(bus, 10).id;
      publishState(bus, 11);
      hub.attach(res, { variant: 'v2', principal: 'p' }, Number(req.headers['last-event-id']) || first - 1);
      publishState(bus, 12);
    };
    const s = await open('/', { 'last-event-id': '0' });
    await s.waitFor((frames) => numbers(frames).includes(12));
    publishState(bus, 13);
    await s.waitFor((frames) => numbers(frames).includes(13));
    assert.deepEqual(numbers(s.frames), [10, 11, 12, 13]);
    assert.deepEqual(
      s.events().map((f) => Number(f.id)),
      [first, first + 1, first + 2, first + 3],
    );
  });

  it('the events published before a token is revoked reach its stream before the stream ends', async () => {
    onOpen = (_req, res) => hub.attach(res, { variant: 'v2', principal: 'revoked-app' }, null);
    const s = await open();
    while (hub.size < 1) await new Promise((r) => setImmediate(r));
    const before = hub.size;
    publishState(bus, 20);
    publishState(bus, 21);
    bus.publish('token#revoked', { payload: { token_id: 'revoked-app' } });
    publishState(bus, 22);
    await s.closed;
    assert.deepEqual(numbers(s.frames), [20, 21]);
    assert.equal(hub.size, before - 1);
  });

  it('a stop writes what was published before it, then ends every stream', async () => {
    const bus2 = new EventBus(100);
    const hub2 = new StreamWriter(bus2, openApiProjection, { heartbeatMs: 60_000, queueLimit: 50, clock: systemClock });
    hub2.start();
    const server2 = createServer((_req, res) => hub2.attach(res, { variant: 'v1', principal: 'p' }, null));
    await new Promise<void>((r) => server2.listen(0, '127.0.0.1', () => r()));
    try {
      const s = await openStream(`http://127.0.0.1:${(server2.address() as { port: number }).port}`, '/');
      while (hub2.size < 1) await new Promise((r) => setImmediate(r));
      publishState(bus2, 30);
      hub2.stop();
      await s.closed;
      assert.deepEqual(numbers(s.frames), [30]);
      assert.equal(s.events()[0]?.event, 'device#v1#updateDeviceState');
    } finally {
      server2.closeAllConnections();
      await new Promise<void>((r) => server2.close(() => r()));
    }
  });
});
