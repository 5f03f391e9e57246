/**
 * `GET thirdparty/debug-log/{serial}` (COMPAT.md "seen in clients"): the directives sent to a
 * third-party device with their outcome and latency (the gateway's clock, moved by the test), the
 * events its service sent, the query parameters clients send, and the bounds.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, it } from 'node:test';
import { DEBUG_LOG_SIZE, DeviceDebugLog } from '../../src/core/devices/debug-log.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { makeJpegs, startEsp32 } from '../camera/servers.ts';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { call, eventually, rest, startGateway } from '../helpers/foundation.ts';
import { endpoint, sendEvent, sendJson, startService, successReply } from '../helpers/thirdparty.ts';

const START = Date.UTC(2025, 0, 1);

describe('the debug log of a third-party device', () => {
  it('lists each directive with its outcome and latency, and each event with how it was answered', async (t) => {
    const clock = new ManualClock(START);
    const g = await startGateway({ gatewayOptions: { clock } });
    t.after(() => g.stop());
    const held: { d: any; res: ServerResponse }[] = [];
    const service = await startService((d, _req, res) => {
      held.push({ d, res });
    });
    t.after(() => service.close());
    const token = g.token('debugger');
    const synced = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('dbg-1', service.url)] });
    const serial = synced.json.payload.endpoints[0].serial_number as string;
    const log = (query = '', version = 'v2') =>
      call(g.url, 'GET', `${rest(version, `thirdparty/debug-log/${serial}`)}${query}`, { token });
    const control = (powerState: string) =>
      call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state: { power: { powerState } } } });

    // Answered 700 ms later (gateway clock), then refused, then never answered.
    const first = control('on');
    await eventually(() => held.length === 1, 5000, 'the first directive');
    clock.advance(700);
    (held[0] as (typeof held)[number]).res.end(JSON.stringify(successReply(held[0]?.d)));
    assert.equal((await first).json.error, 0);
    const second = control('off');
    await eventually(() => held.length === 2, 5000, 'the second directive');
    clock.advance(50);
    sendJson((held[1] as (typeof held)[number]).res, {
      event: {
        header: { name: 'ErrorResponse', message_id: held[1]?.d.directive.header.message_id, version: '1' },
        payload: { type: 'INVALID_DIRECTIVE' },
      },
    });
    assert.equal((await second).json.error, 110006);
    const { value: third, elapsedMs } = await advanceUntil(clock, control('on'));
    assert.equal(third.json.error, 110019);
    for (const h of held.slice(2)) h.res.destroy();

    const directives = await log('?type=directive_log');
    assert.equal(directives.json.error, 0, directives.text);
    const d = directives.json.data;
    assert.equal(d.serial_number, serial);
    assert.equal(d.type, 'directive_log');
    assert.equal(d.total, 3);
    assert.equal(d.next_index, 3);
    assert.deepEqual(
      d.logs.map((e: any) => [e.index, e.name, e.result, e.latency_ms, e.error?.code]),
      [
        [0, 'UpdateDeviceStates', 'success', 700, undefined],
        [1, 'UpdateDeviceStates', 'error', 50, 110006],
        [2, 'UpdateDeviceStates', 'timeout', 3000, 110019],
      ],
    );
    assert.equal(elapsedMs, 3000);
    assert.deepEqual(d.logs[0].payload, { state: { power: { powerState: 'on' } } });
    assert.equal(d.logs[0].time, new Date(START + 700).toISOString());
    assert.match(d.logs[1].error.message, /INVALID_DIRECTIVE/);

    // Events: the sync, a report, a report refused; the default type is directive_log.
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { power: { powerState: 'off' } } },
      { endpoint: { serial_number: serial } },
    );
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { power: { powerState: 42 } } },
      { endpoint: { third_serial_number: 'dbg-1' } },
    );
    const events = (await log('?type=event_log', 'v1')).json.data;
    assert.deepEqual(
      events.logs.map((e: any) => [e.index, e.name, e.result, e.error?.type]),
      [
        [0, 'DiscoveryRequest', 'success', undefined],
        [1, 'DeviceStatesChangeReport', 'success', undefined],
        [2, 'DeviceStatesChangeReport', 'error', 'INVALID_PARAMETERS'],
      ],
    );
    assert.equal(events.logs[0].payload.endpoints[0].third_serial_number, 'dbg-1', 'the sync as sent for this device');
    assert.deepEqual(events.logs[1].payload, { state: { power: { powerState: 'off' } } });
    assert.equal((await log()).json.data.type, 'directive_log');

    // The query parameters: limit, from_index, a time window (epoch ms or ISO 8601).
    const pick = async (q: string) => (await log(q)).json.data.logs.map((e: any) => e.index);
    assert.deepEqual(await pick('?type=directive_log&limit=2'), [0, 1]);
    assert.deepEqual(await pick('?type=directive_log&from_index=1'), [1, 2]);
    assert.deepEqual(await pick(`?start_time=${START + 700}&end_time=${START + 750}`), [0, 1]);
    assert.deepEqual(await pick(`?start_time=${new Date(START + 701).toISOString()}`), [1, 2]);
    assert.deepEqual(await pick('?from_index=3'), []);
  });

  it('refuses bad queries and unknown devices with the envelope; a device that is not a third-party one has an empty log', async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const esp = await startEsp32(makeJpegs(160, 120, 1));
    t.after(() => esp.close());
    const token = g.token('debugger');
    const synced = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('dbg-2', 'http://127.0.0.1:9/x')],
    });
    const serial = synced.json.payload.endpoints[0].serial_number as string;
    const at = (s: string, q = '') => call(g.url, 'GET', `${rest('v2', `thirdparty/debug-log/${s}`)}${q}`, { token });
    const cases: [string, RegExp][] = [
      ['?type=all', /^type: "all" is not one of directive_log, event_log$/],
      ['?limit=ten', /^limit: "ten" is not a whole number$/],
      ['?limit=-1', /^limit: "-1" is not a whole number$/],
      ['?from_index=1.5', /^from_index: "1\.5" is not a whole number$/],
      ['?start_time=yesterday', /^start_time: "yesterday" is not epoch milliseconds or an ISO 8601 date$/],
      ['?start_time=2025-13-45T00:00:00Z', /^start_time, end_time: not a valid date$/],
      ['?limit=1&limit=2', /^limit: expected a string, got an array$/],
    ];
    for (const [q, message] of cases) {
      const r = await at(serial, q);
      assert.equal(r.status, 200, q);
      assert.equal(r.json.error, 400, `${q}: ${r.text}`);
      assert.match(r.json.message, message, q);
      assert.deepEqual(r.json.data, {});
    }
    assert.deepEqual((await at('no-such-device')).json, {
      error: 110000,
      data: {},
      message: 'no device with serial_number no-such-device',
    });
    const cam = await call(g.url, 'POST', rest('v2', 'devices'), {
      token,
      body: {
        name: 'Cam',
        display_category: 'camera',
        capabilities: [
          {
            capability: 'camera-stream',
            permission: '0010',
            configuration: {
              streamSetting: { type: 'object', permission: '11', value: { stream_url: `${esp.base}/capture` } },
            },
          },
        ],
        protocal: 'ESP32-CAM',
        manufacturer: 'A',
        model: 'B',
        firmware_version: '1',
      },
    });
    const camera = cam.json.data.serial_number as string;
    // A device that is not a third party's has an empty log, as the hardware gateways answer (the
    // query of a client library's example).
    for (const type of ['directive_log', 'event_log'])
      assert.deepEqual((await at(camera, `?type=${type}&limit=10&from_index=0`)).json, {
        error: 0,
        data: { serial_number: camera, type, total: 0, next_index: 0, logs: [] },
        message: 'success',
      });
    assert.equal((await call(g.url, 'GET', rest('v2', `thirdparty/debug-log/${serial}`))).json.error, 401);
    // A device removed takes its log with it.
    assert.equal((await call(g.url, 'DELETE', rest('v2', `devices/${serial}`), { token })).json.error, 0);
    assert.equal((await at(serial)).json.error, 110000);
  });

  it(`keeps the last ${DEBUG_LOG_SIZE} entries of each kind`, async (t) => {
    const g = await startGateway();
    t.after(() => g.stop());
    const token = g.token('chatty');
    const synced = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('dbg-3', 'http://127.0.0.1:9/x')],
    });
    const serial = synced.json.payload.endpoints[0].serial_number as string;
    for (let i = 0; i < DEBUG_LOG_SIZE + 9; i++)
      await sendEvent(
        g,
        token,
        'DeviceOnlineChangeReport',
        { online: i % 2 === 0 },
        { endpoint: { serial_number: serial } },
      );
    const r = (
      await call(g.url, 'GET', `${rest('v2', `thirdparty/debug-log/${serial}`)}?type=event_log&limit=100`, { token })
    ).json.data;
    assert.equal(r.total, DEBUG_LOG_SIZE);
    assert.equal(r.next_index, DEBUG_LOG_SIZE + 10);
    assert.equal(r.logs[0].index, 10, 'the oldest went first');
    assert.equal(r.logs.length, 100);
  });

  it('keeps at most its bytes in all: past them, the oldest entries of any device go first', () => {
    const bus = new EventBus(100);
    let now = START;
    const log = new DeviceDebugLog(
      () => now,
      () => true,
      bus,
      20_000,
    );
    const report = (serial: string, n: number) =>
      log.eventReceived(
        serial,
        'DeviceStatesChangeReport',
        { state: { n, pad: 'x'.repeat(300) } },
        {
          ok: true,
          payload: {},
        },
      );
    const read = (serial: string) => log.read(serial, { type: 'event_log', limit: 100 });
    // Three devices, 60 reports each, interleaved: about 26,000 bytes of entries offered.
    for (let n = 0; n < 60; n++) {
      now += 1000;
      for (const serial of ['a', 'b', 'c']) report(serial, n);
    }
    assert.ok(log.keptBytes <= 20_000, `${log.keptBytes} bytes kept`);
    const kept = ['a', 'b', 'c'].map(read);
    // Each device keeps its newest entries, from the same point on: the oldest of all went first.
    for (const r of kept) {
      assert.equal(r.next_index, 60);
      assert.ok(r.kept > 10 && r.kept < 60, `${r.kept} kept`);
      assert.deepEqual(
        r.entries.map((e) => (e.payload as { state: { n: number } }).state.n),
        Array.from({ length: r.kept }, (_, i) => 60 - r.kept + i),
      );
      assert.equal(r.entries.at(-1)?.time, new Date(now).toISOString());
    }
    assert.ok(Math.max(...kept.map((r) => r.kept)) - Math.min(...kept.map((r) => r.kept)) <= 1);
    // A device removed gives its bytes back.
    const before = log.keptBytes;
    bus.publish('device#deleteDevice', { endpoint: { serial_number: 'a' } });
    assert.equal(read('a').kept, 0);
    assert.ok(log.keptBytes < before * 0.7, `${log.keptBytes} of ${before} bytes still kept`);
    // And the log goes on within its bytes, however long it runs.
    for (let n = 60; n < 5000; n++) report(n % 2 ? 'b' : 'd', n);
    assert.ok(log.keptBytes <= 20_000);
    assert.equal(read('d').entries.at(-1)?.index, 2469);
  });
});
