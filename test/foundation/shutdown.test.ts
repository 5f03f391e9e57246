/**
 * A graceful stop (SIGINT/SIGTERM, G8 reboot): requests in flight finish and what they
 * acknowledged is stored; a client that never finishes sending its request cannot hold the
 * stop (and so a reboot) for minutes.
 */
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { it } from 'node:test';
import pino from 'pino';
import { call, listDevices, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, sendJson, startService, successReply } from '../helpers/thirdparty.ts';

/** Rejects after `ms`: a guard against hangs, not a timing assertion. */
function guard<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<never>((_, fail) => {
    timer = setTimeout(() => fail(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([p, limit]).finally(() => clearTimeout(timer));
}

/** Opens a connection and sends the head and a part of the body of a request whose rest never comes. */
function partialRequest(port: number, line: string, token: string) {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => {});
  const closed = new Promise((done) => socket.once('close', done));
  socket.once('connect', () =>
    socket.write(
      `${line} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{"vol',
    ),
  );
  return { socket, closed };
}

const PARTIAL = ['PUT /open-api/v2/rest/bridge/config', 'POST /open-api/v2/rest/thirdparty/event'];

it('stop() finishes although clients never send the rest of their requests', async () => {
  const g = await startGateway();
  const port = Number(new URL(g.url).port);
  const requests = PARTIAL.map((line) => partialRequest(port, line, g.token('slow')));
  try {
    // The requests are in (their connections are busy, not idle) once the gateway answers another.
    await call(g.url, 'GET', '/open-api/v2/rest/bridge');
    await guard(g.stop(), 30_000, 'stop()');
    await Promise.all(requests.map((r) => r.closed));
  } finally {
    for (const r of requests) r.socket.destroy();
    await g.stop();
  }
});

it('a request the client cuts off in the middle of its body is not logged as a server fault', async () => {
  const errors: unknown[] = [];
  const log = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
  const g = await startGateway({ gatewayOptions: { log } });
  try {
    const port = Number(new URL(g.url).port);
    for (const line of PARTIAL) {
      const r = partialRequest(port, line, g.token('cut'));
      await call(g.url, 'GET', '/open-api/v2/rest/bridge');
      r.socket.destroy();
      await r.closed;
      // Later requests are answered after the gateway has seen the first one cut off.
      await call(g.url, 'GET', '/open-api/v2/rest/bridge');
      await call(g.url, 'GET', '/open-api/v2/rest/bridge');
    }
    assert.deepEqual(errors, []);
  } finally {
    await g.stop();
  }
});

it('a D4 in flight when stop() is called is answered, closes its connection, and what it acknowledged is stored', async () => {
  let g = await startGateway();
  let arrived: () => void = () => {};
  const held = new Promise<void>((done) => {
    arrived = done;
  });
  let answer: () => void = () => {};
  const service = await startService((d, _req, res: ServerResponse) => {
    if (d?.directive?.header?.name !== 'UpdateDeviceStates') return sendJson(res, successReply(d));
    answer = () => sendJson(res, successReply(d));
    arrived();
  });
  try {
    const token = g.token('inflight');
    const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('s-1', service.url)] });
    const serial = r.json.payload.endpoints[0].serial_number;
    const d4 = call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, {
      token,
      body: { state: { brightness: { brightness: 77 } } },
    });
    await held;
    const stopping = g.gateway.stop();
    answer();
    const res = await d4;
    assert.deepEqual(res.json, { error: 0, data: {}, message: 'success' });
    // Not kept alive: the stop does not wait for the client to let the connection go.
    assert.equal(res.headers.get('connection'), 'close');
    await guard(stopping, 30_000, 'stop()');
    g = await g.restart();
    const device = (await listDevices(g.url, token)).find((x) => x.serial_number === serial);
    assert.deepEqual(device.state.brightness, { brightness: 77 });
  } finally {
    await g.stop();
    await service.close();
  }
});

it('a second stop() resolves only once the gateway is stopped', async () => {
  const g = await startGateway();
  try {
    const first = g.gateway.stop();
    await g.gateway.stop();
    assert.equal(g.gateway.db.open, false, 'the store is closed');
    await first;
  } finally {
    await g.stop();
  }
});

it("a second gateway refused on a running gateway's data folder leaves that gateway's pid file", async (t) => {
  const first = await startGateway();
  t.after(() => first.stop());
  const pidFile = join(first.dataDir, 'opencube.pid');
  assert.equal(readFileSync(pidFile, 'utf8').trim(), String(process.pid));
  await assert.rejects(startGateway({ dataDir: first.dataDir }), /another gateway is running/);
  assert.ok(existsSync(pidFile), 'the pid file of the running gateway is still there');
});
