/**
 * Directives to third-party services that answer badly: huge bodies, bodies that never finish,
 * wrong Content-Length, redirects, HTTP errors with and without an ErrorResponse, sockets closed
 * mid-reply. Each directive ends with a reply value (never a throw, never a hang), and only a
 * real ErrorResponse or a reply the service gave on purpose counts as one.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { DirectiveClient, type DirectiveReply } from '../../src/drivers/thirdparty/directives.ts';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { call, listDevices, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, startService } from '../helpers/thirdparty.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const error = (type: string) => JSON.stringify({ event: { header: { name: 'ErrorResponse' }, payload: { type } } });

const behaviours: Record<string, Handler> = {
  huge: (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let n = 0;
    const more = () => {
      while (n < 64) {
        n++;
        if (!res.write(chunk)) return void res.once('drain', more);
      }
      res.end();
    };
    more();
  },
  'headers then nothing': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
  },
  'a byte now and then': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    const t = setInterval(() => res.write(' '), 50);
    res.on('close', () => clearInterval(t));
  },
  'Content-Length longer than the body, then close': (req, res) => {
    res.writeHead(200, { 'content-length': '100' });
    res.write('{"event":');
    setImmediate(() => req.socket.destroy());
  },
  'Content-Length shorter than the body': (req) => {
    req.socket.end(`HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n${error('INTERNAL_ERROR')}`);
  },
  'socket closed mid-reply': (req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.write('{"event":{"header":');
    setImmediate(() => req.socket.destroy());
  },
  'socket closed before any reply': (req) => req.socket.destroy(),
  'HTTP 500 with an ErrorResponse': (_req, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(error('ENDPOINT_UNREACHABLE'));
  },
  'HTTP 500 without one': (_req, res) => {
    res.writeHead(500);
    res.end('boom');
  },
  'invalid JSON': (_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end('{"event":{"header":{"name":"ErrorResponse"');
  },
  'a redirect': (_req, res) => {
    res.writeHead(302, { location: 'http://127.0.0.1:9/elsewhere' });
    res.end();
  },
  'a permanent redirect': (_req, res) => {
    res.writeHead(308, { location: '/elsewhere' });
    res.end();
  },
};

/** What each behaviour must come to: the reply kind, and for failures whether the device counts as offline. */
const expected: Record<string, { kind: DirectiveReply['kind']; offline?: boolean; type?: string }> = {
  huge: { kind: 'ok' },
  'headers then nothing': { kind: 'failed', offline: true },
  'a byte now and then': { kind: 'failed', offline: true },
  'Content-Length longer than the body, then close': { kind: 'failed', offline: true },
  'Content-Length shorter than the body': { kind: 'ok' },
  'socket closed mid-reply': { kind: 'failed', offline: true },
  'socket closed before any reply': { kind: 'failed', offline: true },
  'HTTP 500 with an ErrorResponse': { kind: 'error', type: 'ENDPOINT_UNREACHABLE' },
  'HTTP 500 without one': { kind: 'failed', offline: false },
  'invalid JSON': { kind: 'ok' },
  // A redirect is not the service's answer to the directive (it is not followed).
  'a redirect': { kind: 'failed', offline: false },
  'a permanent redirect': { kind: 'failed', offline: false },
};

describe('directives to services that answer badly', () => {
  let server: Server;
  let base: string;
  // The 400 ms of the client run on a clock moved by hand, so a busy machine cannot turn a slow but
  // complete answer into a timeout: answers that come are awaited, and only hanging ones see time move.
  const clock = new ManualClock();
  const client = new DirectiveClient(400, clock);

  before(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => behaviours[decodeURIComponent(req.url?.slice(1) ?? '')]?.(req, res));
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  after(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((done) => server.close(() => done()));
  });

  for (const name of Object.keys(behaviours)) {
    test(`${name}: ${JSON.stringify(expected[name])}`, async () => {
      const want = expected[name];
      assert.ok(want);
      const sent = client.send(
        `${base}/${encodeURIComponent(name)}`,
        'UpdateDeviceStates',
        '1',
        { serial_number: 's', third_serial_number: 't', tags: {} },
        { state: { power: { powerState: 'on' } } },
      );
      const reply = want.kind === 'failed' && want.offline ? (await advanceUntil(clock, sent)).value : await sent;
      assert.equal(reply.kind, want.kind, JSON.stringify(reply));
      if (reply.kind === 'failed') assert.equal(reply.offline, want.offline, reply.reason);
      if (reply.kind === 'error') assert.equal(reply.type, want.type);
    });
  }
});

test('a service that redirects a directive gets 110019; the device keeps its state and stays online', async (t) => {
  const g = await startGateway();
  const service = await startService((_d, _req, res) => {
    res.writeHead(301, { location: 'https://127.0.0.1:9/moved' });
    res.end();
  });
  t.after(async () => {
    await g.stop();
    await service.close();
  });
  const token = await g.linkToken('redirecting');
  const sync = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('r-1', service.url)] });
  const serial = sync.json.payload.endpoints[0].serial_number as string;
  const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, {
    token,
    body: { state: { power: { powerState: 'on' } } },
  });
  assert.equal(r.json.error, 110019, r.text);
  assert.match(r.json.message, /: the service could not be reached or answered badly$/);
  const device = (await listDevices(g.url, token)).find((d: any) => d.serial_number === serial);
  assert.deepEqual(device.state.power, { powerState: 'off' });
  assert.equal(device.online, true);
});
