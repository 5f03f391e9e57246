import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { advanceUntil, ManualClock } from '../helpers/clock.ts';
import { call, eventually, listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { deadAddress, endpoint, type Service, sendEvent, startService, successReply } from '../helpers/thirdparty.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function send(res: ServerResponse, body: string, type = 'application/json') {
  res.writeHead(200, { 'content-type': type });
  res.end(body);
}

describe('directives to third-party services (T2)', () => {
  let g: TestGateway;
  const clock = new ManualClock();
  let token: string;
  let service: Service;
  let stream: EventStream;
  let serial: string;
  const tags = { toggle: { '1': 'Lamp' }, route: { id: 'abc', b64: 'AAEC' } };

  before(async () => {
    // The gateway's clock is moved by hand: the timeout test moves it past the 700 ms it sets, and
    // no other test depends on how fast the machine is.
    g = await startGateway({ overrides: { thirdparty: { timeout_ms: 700 } }, gatewayOptions: { clock } });
    token = await g.linkToken('wifi-addon');
    service = await startService();
    stream = await openEvents(g.url, token);
    const r = await sendEvent(
      g,
      token,
      'DiscoveryRequest',
      { endpoints: [endpoint('lamp', service.url, { tags })] },
      { version: '2' },
    );
    serial = r.json.payload.endpoints[0].serial_number;
  });
  after(async () => {
    stream.close();
    await g.stop();
    await service.close();
  });

  const control = (state: unknown, s = serial) =>
    call(g.url, 'PUT', `/open-api/v2/rest/devices/${s}`, { token, body: { state } });
  const device = async (s = serial) => (await listDevices(g.url, token)).find((d) => d.serial_number === s);

  test('D4 state sends UpdateDeviceStates with the stored tags; on success the new state is stored and emitted', async () => {
    service.received.length = 0;
    const r = await control({ power: { powerState: 'on' }, brightness: { brightness: 60 } });
    assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' });
    assert.equal(service.received.length, 1);
    const got = service.received[0];
    assert.match(String(got?.headers['content-type']), /^application\/json/);
    const { directive } = got?.body ?? {};
    assert.equal(directive.header.name, 'UpdateDeviceStates');
    assert.match(directive.header.message_id, UUID_V4);
    assert.equal(directive.header.version, '2', 'the version the service synced with');
    assert.deepEqual(directive.endpoint, { serial_number: serial, third_serial_number: 'lamp', tags });
    assert.deepEqual(directive.payload, { state: { power: { powerState: 'on' }, brightness: { brightness: 60 } } });
    const ev = await stream.waitFor((e) => e.type === 'updateDeviceState' && e.data.payload.power?.powerState === 'on');
    assert.deepEqual(ev.data.payload, { power: { powerState: 'on' }, brightness: { brightness: 60 } });
    const d = await device();
    assert.deepEqual(d.state.power, { powerState: 'on' });
    assert.equal(d.state.brightness.brightness, 60);
  });

  test('a toggle command stores the flipped state', async () => {
    await control({ power: { powerState: 'toggle' } });
    assert.deepEqual((await device()).state.power, { powerState: 'off' });
    assert.equal(service.received.at(-1)?.body.directive.payload.state.power.powerState, 'toggle');
  });

  test('an invalid command is refused with 400 naming the path, and nothing is sent', async () => {
    const n = service.received.length;
    const r = await control({ brightness: { brightness: 101 } });
    assert.equal(r.json.error, 400);
    assert.match(r.json.message, /state\.brightness\.brightness/);
    const r2 = await control({ smoke: { smoke: true } });
    assert.equal(r2.json.error, 400);
    assert.equal(service.received.length, n);
  });

  test('every odd success reply form of COMPAT.md is a success', async () => {
    const forms: [string, (d: any, res: ServerResponse) => void][] = [
      ['wrapped UpdateDeviceStatesResponse', (d, res) => send(res, JSON.stringify(successReply(d)))],
      [
        'unwrapped Response',
        (d, res) =>
          send(
            res,
            JSON.stringify({
              header: { name: 'Response', message_id: d.directive.header.message_id, version: '1' },
              payload: {},
            }),
          ),
      ],
      [
        'own directive name',
        (d, res) =>
          send(
            res,
            JSON.stringify({
              event: { header: { name: 'UpdateDeviceStates', message_id: d.directive.header.message_id }, payload: {} },
            }),
          ),
      ],
      ['text/html', (d, res) => send(res, JSON.stringify(successReply(d)), 'text/html')],
      ['null', (_d, res) => send(res, 'null')],
      ['empty body', (_d, res) => send(res, '', 'text/plain')],
      ['not JSON', (_d, res) => send(res, 'OK', 'text/html')],
      [
        '204',
        (_d, res) => {
          res.writeHead(204);
          res.end();
        },
      ],
    ];
    let level = 1;
    for (const [label, reply] of forms) {
      service.handle((d, _req, res) => reply(d, res));
      const r = await control({ brightness: { brightness: level } });
      assert.equal(r.json.error, 0, `${label}: ${r.text}`);
      assert.equal((await device()).state.brightness.brightness, level, label);
      level++;
    }
    service.handle((d, _req, res) => send(res, JSON.stringify(successReply(d))));
  });

  test('each ErrorResponse type maps to a D4 error and leaves the device online', async () => {
    const types = [
      ['ENDPOINT_UNREACHABLE', 110005],
      ['ENDPOINT_LOW_POWER', 110005],
      ['INVALID_DIRECTIVE', 110006],
      ['NO_SUCH_ENDPOINT', 110006],
      ['NOT_SUPPORTED_IN_CURRENT_MODE', 110006],
      ['INTERNAL_ERROR', 110006],
      ['REMOTE_KEY_CODE_NOT_LEARNED', 110006],
    ] as const;
    const before = (await device()).state;
    for (const [type, code] of types) {
      for (const wrapped of [true, false]) {
        service.handle((d, _req, res) => {
          const ev = {
            header: { name: 'ErrorResponse', message_id: d.directive.header.message_id, version: '1' },
            payload: { type },
          };
          send(res, JSON.stringify(wrapped ? { event: ev } : ev));
        });
        const r = await control({ brightness: { brightness: 42 } });
        assert.equal(r.json.error, code, `${type}: ${r.text}`);
        assert.deepEqual(r.json.data, {});
        assert.match(r.json.message, new RegExp(type));
      }
    }
    const d = await device();
    assert.equal(d.online, true);
    assert.deepEqual(d.state, before, 'a refused command changes no state');
    service.handle((d2, _req, res) => send(res, JSON.stringify(successReply(d2))));
  });

  test('a timeout gives 110019 and marks the device offline; a state report brings it back', async () => {
    const held: ServerResponse[] = [];
    service.handle((_d, _req, res) => void held.push(res));
    const pending = control({ power: { powerState: 'on' } });
    await eventually(() => held.length === 1, 5000, 'the directive');
    const { value: r, elapsedMs } = await advanceUntil(clock, pending);
    assert.equal(elapsedMs, 700);
    assert.equal(r.json.error, 110019, r.text);
    assert.match(r.json.message, /: the service could not be reached or answered badly$/);
    for (const res of held) res.destroy();
    await stream.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && e.data.payload.online === false,
    );
    assert.equal((await device()).online, false);
    assert.deepEqual((await device()).state.power, { powerState: 'off' });

    service.handle((d, _req, res) => send(res, JSON.stringify(successReply(d))));
    // A successful directive alone does not bring it back (spec 3); a report does.
    assert.equal((await control({ power: { powerState: 'on' } })).json.error, 0);
    assert.equal((await device()).online, false);
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { power: { powerState: 'on' } } },
      { endpoint: { third_serial_number: 'lamp' } },
    );
    await stream.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' && e.data.endpoint.serial_number === serial && e.data.payload.online === true,
    );
    assert.equal((await device()).online, true);
  });

  test('a refused connection gives 110019 and offline; an online report brings it back', async () => {
    const dead = await deadAddress();
    const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('ghost', dead)] });
    const ghost = r.json.payload.endpoints[0].serial_number;
    const c = await control({ power: { powerState: 'on' } }, ghost);
    assert.equal(c.json.error, 110019);
    assert.equal((await device(ghost)).online, false);
    await sendEvent(g, token, 'DeviceOnlineChangeReport', { online: true }, { endpoint: { serial_number: ghost } });
    assert.equal((await device(ghost)).online, true);
  });

  test('a slow service never delays another device, and concurrent directives to one device all succeed', async () => {
    const slow = await startService();
    const held: { res: ServerResponse; d: any }[] = [];
    slow.handle((d, _req, res) => void held.push({ res, d }));
    try {
      const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('slow', slow.url)] });
      const slowSerial = r.json.payload.endpoints[0].serial_number;
      const pending = [1, 2, 3].map((n) => control({ brightness: { brightness: n * 10 } }, slowSerial));
      while (held.length < 3) await new Promise((done) => setTimeout(done, 5));
      // While three directives wait on the slow service, another device and the API answer.
      assert.equal((await control({ power: { powerState: 'off' } })).json.error, 0);
      assert.equal((await call(g.url, 'GET', '/open-api/v2/rest/bridge', {})).status, 200);
      // The provider answers the held directives together, as some do.
      for (const h of held) send(h.res, JSON.stringify(successReply(h.d)));
      const answers = await Promise.all(pending);
      assert.deepEqual(
        answers.map((a) => a.json.error),
        [0, 0, 0],
      );
      assert.ok([10, 20, 30].includes((await device(slowSerial)).state.brightness.brightness));
    } finally {
      await slow.close();
    }
  });

  test('D6 sends QueryDeviceStates and delivers the result as an updateDeviceState event', async () => {
    const caps = [
      { capability: 'power', permission: '1100' },
      {
        capability: 'power-consumption',
        permission: '1101',
        settings: {
          resolution: { permission: '01', type: 'numeric', value: 3600 },
          timeZoneOffset: { permission: '01', type: 'numeric', min: -12, max: 14, value: 0 },
        },
      },
    ];
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('meter', service.url, { display_category: 'plug', capabilities: caps, state: {} })],
    });
    assert.equal(r.json.header.name, 'Response', JSON.stringify(r.json));
    const meter = r.json.payload.endpoints[0].serial_number;
    const result = {
      type: 'summarize',
      electricityIntervals: [{ usage: 12, start: '2024-01-01T00:00:00.000Z', end: '2024-01-01T01:00:00.000Z' }],
    };
    service.handle((d, _req, res) =>
      send(
        res,
        JSON.stringify({
          event: {
            header: { name: 'Response', message_id: d.directive.header.message_id },
            payload: { state: { 'power-consumption': result } },
          },
        }),
      ),
    );
    const query = {
      'power-consumption': {
        type: 'summarize',
        timeRange: { start: '2024-01-01T00:00:00.000Z', end: '2024-01-02T00:00:00.000Z' },
      },
    };
    for (const method of ['POST', 'PUT']) {
      const q = await call(g.url, method, `/open-api/v2/rest/devices/${meter}/query-state/power-consumption`, {
        token,
        body: { query_state: query },
      });
      assert.deepEqual(q.json, { error: 0, data: {}, message: 'success' }, q.text);
    }
    const sent = service.received.at(-1)?.body.directive;
    assert.equal(sent.header.name, 'QueryDeviceStates');
    assert.deepEqual(sent.payload, { state: query });
    const ev = await stream.waitFor((e) => e.type === 'updateDeviceState' && e.data.endpoint.serial_number === meter);
    assert.deepEqual(ev.data.payload, { 'power-consumption': result });
    const bad = await call(g.url, 'POST', `/open-api/v2/rest/devices/${meter}/query-state/power-consumption`, {
      token,
      body: { query_state: { 'power-consumption': { type: 'weekly' } } },
    });
    assert.equal(bad.json.error, 400);
    assert.match(bad.json.message, /query_state/);
    const missing = await call(g.url, 'POST', `/open-api/v2/rest/devices/${meter}/query-state/power-consumption`, {
      token,
      body: {},
    });
    assert.equal(missing.json.error, 400);
    service.handle((d, _req, res) => send(res, JSON.stringify(successReply(d))));
  });

  test('D4 capabilities sends ConfigureDeviceCapabilities with unchanged permissions; an ErrorResponse gives 110024', async () => {
    const caps = [
      {
        capability: 'temperature',
        permission: '0110',
        settings: { temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] } },
      },
    ];
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [
        endpoint('thermo', service.url, { display_category: 'temperatureSensor', capabilities: caps, state: {} }),
      ],
    });
    const thermo = r.json.payload.endpoints[0].serial_number;
    const change = [
      {
        capability: 'temperature',
        permission: '0110',
        settings: { temperatureUnit: { permission: '11', type: 'enum', value: 'f' } },
      },
    ];
    const ok = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${thermo}`, {
      token,
      body: { capabilities: change },
    });
    assert.equal(ok.json.error, 0, ok.text);
    const sent = service.received.at(-1)?.body.directive;
    assert.equal(sent.header.name, 'ConfigureDeviceCapabilities');
    assert.equal(sent.payload.capabilities[0].permission, '0110');
    assert.equal(sent.payload.capabilities[0].settings.temperatureUnit.value, 'f');
    assert.equal((await device(thermo)).capabilities[0].settings.temperatureUnit.value, 'f');
    await stream.waitFor((e) => e.type === 'updateDeviceInfo' && e.data.endpoint.serial_number === thermo);

    service.handle((d, _req, res) =>
      send(
        res,
        JSON.stringify({
          header: { name: 'ErrorResponse', message_id: d.directive.header.message_id },
          payload: { type: 'INVALID_DIRECTIVE' },
        }),
      ),
    );
    const back = [
      {
        capability: 'temperature',
        permission: '0110',
        settings: { temperatureUnit: { permission: '11', type: 'enum', value: 'c' } },
      },
    ];
    const fail = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${thermo}`, {
      token,
      body: { capabilities: back },
    });
    assert.equal(fail.json.error, 110024);
    assert.equal(
      (await device(thermo)).capabilities[0].settings.temperatureUnit.value,
      'f',
      'unchanged after a failure',
    );
    const perm = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${thermo}`, {
      token,
      body: { capabilities: [{ capability: 'temperature', permission: '0100' }] },
    });
    assert.equal(perm.json.error, 400);
    assert.match(perm.json.message, /permission/);
    service.handle((d, _req, res) => send(res, JSON.stringify(successReply(d))));
  });
});
