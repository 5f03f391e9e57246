/**
 * `GET /metrics` (issue 13): off by default, behind an access token or open as the `metrics`
 * setting says, and metrics that move when requests are made, events published, devices added,
 * commands sent, stream clients connect and the store is written.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { describe, it } from 'node:test';
import { call, eventually, rest, startGateway } from '../helpers/foundation.ts';
import { openEvents } from '../helpers/sse.ts';
import { endpoint, sendEvent, sendJson, startService, successReply } from '../helpers/thirdparty.ts';
import { metricValue, scrape } from './metrics-text.ts';

describe('who may read the metrics', () => {
  it('nobody by default: 404 saying how to turn them on', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const r = await call(g.url, 'GET', '/metrics', { token: g.token() });
    assert.equal(r.status, 404);
    assert.equal(r.text, 'metrics are off: start the gateway with --metrics token (or open); see docs/operations.md\n');
    // The first test of this file (its own process): nothing loaded prom-client before it.
    const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.includes('/prom-client/'));
    assert.deepEqual(loaded, [], 'prom-client (about 12 MB) is not even loaded');
  });

  it('with `metrics: token`, only a request with an access token of the Open API', async (t) => {
    const g = await startGateway({ overrides: { metrics: 'token' } });
    t.after(() => g.stop());
    const tries: Record<string, string>[] = [{}, { authorization: '' }, { authorization: 'Bearer not-a-token' }];
    for (const headers of tries) {
      const r = await call(g.url, 'GET', '/metrics', { headers });
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.equal(r.headers.get('www-authenticate'), 'Bearer');
      assert.match(r.text, /need an access token/);
    }
    const ok = await call(g.url, 'GET', '/metrics', { token: g.token('prometheus') });
    assert.equal(ok.status, 200);
    assert.match(ok.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
    assert.match(ok.text, /^# HELP opencube_http_requests_total /m);
  });

  it('with `metrics: open`, anyone who reaches the port', async (t) => {
    const g = await startGateway({ overrides: { metrics: 'open' } });
    t.after(() => g.stop());
    assert.match(await scrape(g.url), /^# TYPE opencube_devices gauge$/m);
  });
});

describe('metrics that move', () => {
  it('count requests by route and outcome, events, devices by driver and state, commands by outcome, stream clients and store writes', async (t) => {
    const g = await startGateway({ overrides: { metrics: 'open' } });
    t.after(() => g.stop());
    const token = g.token('metrics-test');
    const service = await startService();
    t.after(() => service.close());
    const devices = { route: '/open-api/v2/rest/devices', method: 'GET' };

    const s0 = await scrape(g.url);
    assert.equal(metricValue(s0, 'opencube_http_requests_total', { ...devices, outcome: '0' }), undefined);
    assert.equal(metricValue(s0, 'opencube_devices'), undefined, 'no devices yet');
    const writes0 = metricValue(s0, 'opencube_store_write_seconds_count') ?? 0;

    for (let i = 0; i < 3; i++)
      assert.equal((await call(g.url, 'GET', rest('v2', 'devices'), { token })).json.error, 0);
    assert.equal((await call(g.url, 'GET', rest('v2', 'devices'))).json.error, 401);
    assert.equal((await call(g.url, 'GET', rest('v1', 'security/77/config'), { token })).json.error, 400);
    const synced = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('m-1', service.url), endpoint('m-2', service.url)],
    });
    const [one, two] = (synced.json.payload.endpoints as { serial_number: string }[]).map((e) => e.serial_number);
    const stream = await openEvents(g.url, token);
    t.after(() => stream.close());
    assert.equal((await fetch(`${g.url}/open-api/v2/sse/bridge?access_token=nope`)).status, 401);

    // One command the service carries out, one it refuses.
    const control = (serial: string) =>
      call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state: { power: { powerState: 'on' } } } });
    assert.equal((await control(one as string)).json.error, 0);
    service.handle((d, _req, res) =>
      sendJson(res, {
        event: {
          header: { ...(successReply(d) as any).event.header, name: 'ErrorResponse' },
          payload: { type: 'INVALID_DIRECTIVE' },
        },
      }),
    );
    const refused = await control(two as string);
    assert.equal(refused.json.error, 110006, refused.text);

    const s1 = await scrape(g.url);
    assert.equal(metricValue(s1, 'opencube_http_requests_total', { ...devices, outcome: '0' }), 3);
    assert.equal(metricValue(s1, 'opencube_http_requests_total', { ...devices, outcome: '401' }), 1);
    assert.equal(
      metricValue(s1, 'opencube_http_requests_total', {
        route: '/open-api/v1/rest/security/:security_id/config',
        outcome: '400',
      }),
      1,
    );
    assert.equal(
      metricValue(s1, 'opencube_http_requests_total', {
        route: '/open-api/v2/rest/thirdparty/event',
        outcome: 'Response',
      }),
      1,
    );
    assert.equal(metricValue(s1, 'opencube_http_requests_total', { route: '/metrics', outcome: '200' }), 1);
    assert.equal(
      metricValue(s1, 'opencube_http_requests_total', {
        route: '/open-api/v2/sse/bridge',
        method: 'GET',
        outcome: '401',
      }),
      1,
    );
    assert.equal(metricValue(s1, 'opencube_devices', { driver: 'thirdparty', online: 'true' }), 2);
    assert.equal(metricValue(s1, 'opencube_events_published_total', { event: 'device#addDevice' }), 2);
    assert.equal(
      metricValue(s1, 'opencube_device_commands_total', {
        driver: 'thirdparty',
        command: 'update-state',
        outcome: 'ok',
      }),
      1,
    );
    assert.equal(
      metricValue(s1, 'opencube_device_commands_total', {
        driver: 'thirdparty',
        command: 'update-state',
        outcome: '110006',
      }),
      1,
    );
    assert.equal(
      metricValue(s1, 'opencube_device_command_seconds_count', { driver: 'thirdparty', command: 'update-state' }),
      2,
    );
    assert.equal(metricValue(s1, 'opencube_event_stream_clients', { audience: 'open-api' }), 1);
    assert.equal(metricValue(s1, 'opencube_event_stream_clients_cut_total', { audience: 'open-api' }), 0);
    assert.ok(
      (metricValue(s1, 'opencube_store_write_seconds_count') ?? 0) > writes0,
      'the sync and the state were written',
    );

    stream.close();
    const s2 = await (async () => {
      for (;;) {
        const s = await scrape(g.url);
        if (metricValue(s, 'opencube_event_stream_clients', { audience: 'open-api' }) === 0) return s;
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    assert.equal(
      metricValue(s2, 'opencube_http_requests_total', { ...devices, outcome: '0' }),
      3,
      'scrapes count only themselves',
    );
  });
});

describe('a slow event stream client', () => {
  it('is counted as one client cut in opencube_event_stream_clients_cut_total', async (t) => {
    const g = await startGateway({ overrides: { metrics: 'open', sse: { client_queue_bytes: 64 * 1024 } } });
    t.after(() => g.stop());
    const token = g.token('slow-reader');
    const before = await scrape(g.url);
    assert.equal(metricValue(before, 'opencube_event_stream_clients_cut_total', { audience: 'open-api' }), 0);

    // A client that opens the stream and then reads nothing: its socket fills, then its queue.
    const socket = connect(Number(new URL(g.url).port), '127.0.0.1');
    t.after(() => socket.destroy());
    socket.on('error', () => {});
    await new Promise<void>((done) => socket.once('connect', () => done()));
    socket.write(`GET /open-api/v2/sse/bridge?access_token=${token} HTTP/1.1\r\nHost: x\r\n\r\n`);
    await eventually(() => g.gateway.sse.size === 1, 10_000, 'the stream is open');
    socket.pause();
    const pad = 'p'.repeat(32 * 1024);
    for (let i = 0; i < 2000 && g.gateway.sse.size > 0; i++) {
      g.gateway.bus.publish('device#updateDeviceState', { endpoint: { serial_number: 'd' }, payload: { pad, i } });
      await new Promise((r) => setImmediate(r));
    }
    assert.equal(g.gateway.sse.size, 0, 'the slow client was cut');

    const after = await scrape(g.url);
    assert.equal(metricValue(after, 'opencube_event_stream_clients_cut_total', { audience: 'open-api' }), 1);
    assert.equal(metricValue(after, 'opencube_event_stream_clients_cut_total', { audience: 'console' }), 0);
    assert.equal(metricValue(after, 'opencube_events_dropped_total'), undefined, 'no metric claims events were lost');
  });
});
