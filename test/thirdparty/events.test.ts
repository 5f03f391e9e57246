import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { endpoint, type Service, sendEvent, startService } from '../helpers/thirdparty.ts';

describe('third-party events (T1)', () => {
  let g: TestGateway;
  let token: string;
  let service: Service;
  let stream: EventStream;

  before(async () => {
    g = await startGateway();
    token = await g.linkToken('tasmota-sync');
    service = await startService();
    stream = await openEvents(g.url, token);
  });
  after(async () => {
    stream.close();
    await g.stop();
    await service.close();
  });

  const list = () => listDevices(g.url, token);

  test('a DiscoveryRequest with several endpoints adds them all, listed before the reply is read', async () => {
    const tags = {
      toggle: { '1': 'Left', '2': 'Right' },
      deep: { nested: [1, { b: 'x' }] },
      blob: 'aGVsbG8=',
      'odd key': null,
    };
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('a-1', service.url, { tags }), endpoint('a-2', service.url), endpoint('a-3', service.url)],
    });
    assert.equal(r.status, 200);
    assert.equal(r.json.header.name, 'Response');
    assert.equal(r.json.header.version, '1');
    assert.equal(r.json.payload.endpoints.length, 3);
    assert.deepEqual(
      r.json.payload.endpoints.map((e: any) => e.third_serial_number),
      ['a-1', 'a-2', 'a-3'],
    );
    const devices = await list();
    for (const e of r.json.payload.endpoints) {
      const d = devices.find((x) => x.serial_number === e.serial_number);
      assert.ok(d, `device ${e.serial_number} is listed`);
      assert.equal(d.third_serial_number, e.third_serial_number);
      assert.equal(d.online, true);
      assert.equal(d.app_name, 'tasmota-sync');
      assert.equal(d.service_address, service.url);
      assert.equal('protocol' in d, false, 'third-party devices carry no protocol');
      assert.deepEqual(d.state, { power: { powerState: 'off' }, brightness: { brightness: 10 } });
    }
    const first = devices.find((x) => x.third_serial_number === 'a-1');
    assert.deepEqual(first.tags, tags, 'tags round-trip verbatim');
    const added = await stream.waitFor((e) => e.type === 'addDevice' && e.data.payload.third_serial_number === 'a-3');
    assert.equal(added.data.payload.name, 'Device a-3');
    assert.equal('protocol' in added.data.payload, false);
  });

  test('the same third_serial_number from the same token updates the device instead of adding another', async () => {
    const before = await list();
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('a-2', service.url, { name: 'Renamed by sync', model: 'L2' })],
    });
    assert.equal(r.json.header.name, 'Response');
    const after = await list();
    assert.equal(after.length, before.length);
    const d = after.find((x) => x.third_serial_number === 'a-2');
    assert.equal(d.serial_number, r.json.payload.endpoints[0].serial_number);
    assert.equal(d.name, 'Renamed by sync');
    assert.equal(d.model, 'L2');
    await stream.waitFor((e) => e.type === 'updateDeviceInfo' && e.data.payload.name === 'Renamed by sync');
  });

  test('another token with the same third_serial_number gets its own device', async () => {
    const other = await g.linkToken('other-app');
    const r = await sendEvent(g, other, 'DiscoveryRequest', { endpoints: [endpoint('a-1', service.url)] });
    assert.equal(r.json.header.name, 'Response');
    const mine = (await list()).filter((x) => x.third_serial_number === 'a-1');
    assert.equal(mine.length, 2);
    assert.deepEqual(mine.map((d) => d.app_name).sort(), ['other-app', 'tasmota-sync']);
    const del = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${r.json.payload.endpoints[0].serial_number}`, {
      token,
    });
    assert.equal(del.json.error, 0);
  });

  test('cameras, bad service addresses and bad capabilities are refused as a whole with INVALID_PARAMETERS', async () => {
    const count = (await list()).length;
    const cases: [unknown, RegExp][] = [
      [
        endpoint('cam', service.url, { display_category: 'camera' }),
        /payload\.endpoints\.1\.display_category: cameras/,
      ],
      [endpoint('x', ''), /payload\.endpoints\.1\.service_address/],
      [endpoint('x', 'not a url'), /service_address/],
      [
        endpoint('x', service.url, { capabilities: [{ capability: 'power', permission: 'sometimes' }] }),
        /capabilities\.0\.permission/,
      ],
      [
        endpoint('x', service.url, { display_category: 'toaster' }),
        /display_category: "toaster" is not a display category/,
      ],
      [endpoint('x', service.url, { manufacturer: undefined }), /manufacturer: required/],
      [endpoint('', service.url), /third_serial_number: must not be empty/],
      [endpoint('x', service.url, { tags: 'blue' }), /payload\.endpoints\.1\.tags: expected an object/],
      [endpoint('x', service.url, { hostname: 5 }), /payload\.endpoints\.1\.hostname: expected a string, got 5/],
      [endpoint('x'.repeat(5000), service.url), /third_serial_number: longer than \d+ characters/],
    ];
    for (const [bad, message] of cases) {
      const r = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('ok-1', service.url), bad] });
      assert.equal(r.status, 200);
      assert.equal(r.json.header.name, 'ErrorResponse', JSON.stringify(bad));
      assert.equal(r.json.payload.type, 'INVALID_PARAMETERS');
      assert.match(r.json.payload.description, message);
    }
    assert.equal((await list()).length, count, 'nothing was added');
  });

  test('tags that bend spec 2.7 (a numeric toggle label, an odd temperature_unit) are kept verbatim', async () => {
    const tags = { toggle: { '1': 5 }, temperature_unit: 'k' };
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('odd-tags', service.url, { tags })],
    });
    assert.equal(r.json.header.name, 'Response');
    const d = (await list()).find((x) => x.third_serial_number === 'odd-tags');
    assert.deepEqual(d.tags, tags);
  });

  test('replies keep the event shape: message_id echoed ("" when absent), version echoed', async () => {
    const id = crypto.randomUUID();
    const r2 = await sendEvent(
      g,
      token,
      'DeviceOnlineChangeReport',
      { online: true },
      {
        endpoint: { third_serial_number: 'a-1' },
        version: '2',
        messageId: id,
      },
    );
    assert.deepEqual(r2.json, { header: { name: 'Response', message_id: id, version: '2' }, payload: {} });

    const bare = await call(g.url, 'POST', '/open-api/v2/rest/thirdparty/event', {
      token,
      body: {
        event: {
          header: { name: 'DeviceOnlineChangeReport', version: '1' },
          endpoint: { third_serial_number: 'a-1' },
          payload: { online: true },
        },
      },
    });
    assert.equal(bare.json.header.message_id, '');
    assert.equal(bare.json.header.name, 'Response');

    const notJson = await call(g.url, 'POST', '/open-api/v2/rest/thirdparty/event', { token, body: '{"event":' });
    assert.equal(notJson.status, 200);
    assert.equal(notJson.json.header.name, 'ErrorResponse');
    assert.equal(notJson.json.payload.type, 'INVALID_PARAMETERS');
    assert.equal(notJson.json.header.message_id, '');

    const unknown = await sendEvent(g, token, 'Dance', {});
    assert.equal(unknown.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(unknown.json.payload.description, /header\.name/);
  });

  test('a bad or missing token gets ErrorResponse AUTH_FAILURE, on v1 too', async () => {
    for (const [path, t] of [
      ['/open-api/v2/rest/thirdparty/event', 'nope'],
      ['/open-api/V1/rest/thirdparty/event', undefined],
      ['/open-api/v1/rest/thirdparty/event', ''],
    ] as const) {
      const r = await sendEvent(
        g,
        t,
        'DiscoveryRequest',
        { endpoints: [endpoint('z', service.url)] },
        { path, messageId: 'm-1', version: '2' },
      );
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, {
        header: { name: 'ErrorResponse', message_id: 'm-1', version: '2' },
        payload: { type: 'AUTH_FAILURE', description: 'headers.Authorization is invalid' },
      });
    }
  });

  test('a state report merges per capability and name, and a repeated report emits nothing', async () => {
    const ep = { third_serial_number: 'a-3' };
    const serial = (await list()).find((d) => d.third_serial_number === 'a-3').serial_number;
    const r1 = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { toggle: { '1': { toggleState: 'on' } } } },
      { endpoint: ep },
    );
    assert.equal(r1.json.header.name, 'Response');
    assert.deepEqual(r1.json.payload, {});
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { toggle: { '2': { toggleState: 'off' } } } },
      { endpoint: { serial_number: serial } },
    );
    // The same report again, then a marker: no second event for the repeat may come before the marker.
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { toggle: { '2': { toggleState: 'off' } } } },
      { endpoint: ep },
    );
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { brightness: { brightness: 77 } } },
      { endpoint: ep },
    );
    await stream.waitFor((e) => e.type === 'updateDeviceState' && e.data.payload.brightness?.brightness === 77);
    const mine = stream.of('updateDeviceState').filter((e) => e.data.endpoint.serial_number === serial);
    assert.deepEqual(
      mine.map((e) => e.data.payload),
      [
        { toggle: { '1': { toggleState: 'on' } } },
        { toggle: { '2': { toggleState: 'off' } } },
        { brightness: { brightness: 77 } },
      ],
    );
    assert.deepEqual(mine[0]?.data.endpoint, { serial_number: serial, third_serial_number: 'a-3' });
    const d = (await list()).find((x) => x.serial_number === serial);
    assert.deepEqual(d.state.toggle, { '1': { toggleState: 'on' }, '2': { toggleState: 'off' } });
    assert.deepEqual(d.state.power, { powerState: 'off' });
  });

  test('a report with nothing valid is INVALID_PARAMETERS naming the field; a partly bad one is cleaned', async () => {
    const ep = { third_serial_number: 'a-3' };
    const bad = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { smoke: { smoke: true } } },
      { endpoint: ep },
    );
    assert.equal(bad.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(bad.json.payload.description, /smoke/);
    const partly = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { smoke: { smoke: true }, brightness: { brightness: 150 } } },
      { endpoint: ep },
    );
    assert.equal(partly.json.header.name, 'Response');
    const d = (await list()).find((x) => x.third_serial_number === 'a-3');
    assert.equal(d.state.brightness.brightness, 100, 'clamped to max');
    const unknown = await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: {} },
      { endpoint: { third_serial_number: 'nobody' } },
    );
    assert.equal(unknown.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(unknown.json.payload.description, /no third-party device/);
    const noState = await sendEvent(g, token, 'DeviceStatesChangeReport', {}, { endpoint: ep });
    assert.match(noState.json.payload.description, /payload\.state/);
  });

  test('online reports change the online flag once and emit updateDeviceOnline only on change', async () => {
    const ep = { third_serial_number: 'a-2' };
    for (const online of [false, false, true]) {
      const r = await sendEvent(g, token, 'DeviceOnlineChangeReport', { online }, { endpoint: ep });
      assert.equal(r.json.header.name, 'Response');
    }
    const d = (await list()).find((x) => x.third_serial_number === 'a-2');
    await stream.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' &&
        e.data.payload.online === true &&
        e.data.endpoint.serial_number === d.serial_number,
    );
    const mine = stream.of('updateDeviceOnline').filter((e) => e.data.endpoint.serial_number === d.serial_number);
    assert.deepEqual(
      mine.map((e) => e.data.payload.online),
      [false, true],
    );
    const bad = await sendEvent(g, token, 'DeviceOnlineChangeReport', { online: 'yes' }, { endpoint: ep });
    assert.match(bad.json.payload.description, /payload\.online/);
  });

  test('DeviceInformationUpdatedReport updates setting values (01/11 only) and tags', async () => {
    const caps = [
      { capability: 'power', permission: '1100' },
      {
        capability: 'percentage',
        permission: '1100',
        settings: { percentageRange: { permission: '01', type: 'numeric', min: 0, max: 100, step: 1 } },
      },
      {
        capability: 'temperature',
        permission: '0110',
        settings: {
          temperatureUnit: { permission: '11', type: 'enum', value: 'c', values: ['c', 'f'] },
        },
      },
    ];
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('info-1', service.url, { display_category: 'sensor', capabilities: caps, state: {} })],
    });
    assert.equal(r.json.header.name, 'Response', JSON.stringify(r.json));
    const serial = r.json.payload.endpoints[0].serial_number;
    const upd = await sendEvent(
      g,
      token,
      'DeviceInformationUpdatedReport',
      {
        capabilities: [
          {
            capability: 'temperature',
            permission: '0110',
            settings: { temperatureUnit: { permission: '11', type: 'enum', value: 'f' } },
          },
        ],
        tags: { temperature_unit: 'f', room: 'attic' },
      },
      { endpoint: { serial_number: serial } },
    );
    assert.equal(upd.json.header.name, 'Response', JSON.stringify(upd.json));
    const info = await stream.waitFor((e) => e.type === 'updateDeviceInfo' && e.data.endpoint.serial_number === serial);
    assert.deepEqual(info.data.payload.tags, { temperature_unit: 'f', room: 'attic' });
    const d = (await list()).find((x) => x.serial_number === serial);
    assert.equal(d.capabilities[2].settings.temperatureUnit.value, 'f');
    assert.deepEqual(d.tags, { temperature_unit: 'f', room: 'attic' });

    const perm = await sendEvent(
      g,
      token,
      'DeviceInformationUpdatedReport',
      { capabilities: [{ capability: 'power', permission: '0100' }] },
      { endpoint: { serial_number: serial } },
    );
    assert.equal(perm.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(perm.json.payload.description, /permission/);
    const none = await sendEvent(
      g,
      token,
      'DeviceInformationUpdatedReport',
      { tags: {} },
      { endpoint: { serial_number: serial } },
    );
    assert.match(none.json.payload.description, /payload\.capabilities: required/);
  });

  test('RegisterTTSEngine stores an engine and GET tts/engines lists it as {id, name}', async () => {
    const r = await sendEvent(g, token, 'RegisterTTSEngine', {
      service_address: 'http://127.0.0.1:9/tts',
      name: 'Piper',
    });
    assert.equal(r.json.header.name, 'Response');
    assert.equal(typeof r.json.payload.engine_id, 'string');
    const again = await sendEvent(g, token, 'RegisterTTSEngine', {
      service_address: 'http://127.0.0.1:9/tts',
      name: 'Piper',
    });
    assert.equal(again.json.payload.engine_id, r.json.payload.engine_id, 're-registering keeps the id');
    const engines = await call(g.url, 'GET', '/open-api/v1/rest/tts/engines', { token });
    assert.deepEqual(engines.json, {
      error: 0,
      // The built-in engine is listed after the registered ones.
      data: {
        engines: [
          { id: r.json.payload.engine_id, name: 'Piper' },
          { id: 'espeak-ng', name: 'eSpeak NG (built-in)' },
        ],
      },
      message: 'success',
    });
    const bad = await sendEvent(g, token, 'RegisterTTSEngine', { service_address: '', name: 'x' });
    assert.equal(bad.json.payload.type, 'INVALID_PARAMETERS');
    assert.match(bad.json.payload.description, /service_address/);
  });
});
