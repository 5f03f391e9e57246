import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { endpoint, type Service, sendEvent, startService } from '../helpers/thirdparty.ts';

describe('devices (D3, D4, D5) and persistence', () => {
  let g: TestGateway;
  let token: string;
  let service: Service;
  let stream: EventStream;
  let serials: string[];

  before(async () => {
    g = await startGateway();
    token = await g.linkToken('node-red');
    service = await startService();
    stream = await openEvents(g.url, token, 'v1');
    const r = await sendEvent(g, token, 'DiscoveryRequest', {
      endpoints: [endpoint('p-1', service.url), endpoint('p-2', service.url), endpoint('p-3', service.url)],
    });
    serials = r.json.payload.endpoints.map((e: any) => e.serial_number);
  });
  after(async () => {
    stream.close();
    await g.stop();
    await service.close();
  });

  const list = (v = 'v2') => listDevices(g.url, token, v);

  test('D3 needs a token, and lists the same devices on v1, v2 and V2', async () => {
    const noToken = await call(g.url, 'GET', '/open-api/v2/rest/devices');
    assert.deepEqual(noToken.json, { error: 401, data: {}, message: 'headers.Authorization is invalid' });
    const v2 = await list('v2');
    assert.deepEqual(await list('v1'), v2);
    assert.deepEqual(await list('V2'), v2);
    assert.deepEqual(
      v2.map((d) => d.serial_number),
      serials,
    );
    for (const d of v2) {
      for (const k of [
        'serial_number',
        'name',
        'manufacturer',
        'model',
        'firmware_version',
        'display_category',
        'capabilities',
        'online',
      ])
        assert.ok(k in d, `${k} is served`);
      assert.equal('driver' in d || 'extra' in d || 'driver_ref' in d, false, 'internal fields stay inside');
    }
    const added = await stream.waitFor(
      (e) => e.name === 'device#v1#addDevice' && e.data.payload.serial_number === serials[2],
    );
    assert.equal(added.data.payload.third_serial_number, 'p-3');
  });

  test('D4 renames and retags (verbatim), answers {} and emits updateDeviceInfo', async () => {
    const tags = {
      toggle: { '1': 'Kitchen' },
      nested: { a: [1, 2, { b: null }] },
      b64: 'eyJ4IjoxfQ==',
      ключ: 'значение',
    };
    const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serials[0]}`, {
      token,
      body: { name: 'Kitchen lamp', tags },
    });
    assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' });
    const d = (await list()).find((x) => x.serial_number === serials[0]);
    assert.equal(d.name, 'Kitchen lamp');
    assert.deepEqual(d.tags, tags);
    const ev = await stream.waitFor(
      (e) => e.type === 'updateDeviceInfo' && e.data.endpoint.serial_number === serials[0],
    );
    assert.equal(ev.data.payload.name, 'Kitchen lamp');
    assert.deepEqual(ev.data.payload.tags, tags);
    assert.deepEqual(ev.data.endpoint, { serial_number: serials[0], third_serial_number: 'p-1' });
  });

  test('a user-given name survives a re-sync of the device', async () => {
    await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('p-1', service.url, { name: 'Sync name' })] });
    assert.equal((await list()).find((x) => x.serial_number === serials[0]).name, 'Kitchen lamp');
  });

  test('D4 refuses bad bodies with 400 naming the field, and unknown devices with 110000', async () => {
    const cases: [unknown, RegExp][] = [
      [{ name: 5 }, /^name: expected a string, got 5/],
      [{ name: '  ' }, /^name: " {2}" is not a non-empty name/],
      [{ tags: [1] }, /^tags: /],
      [{ tags: { temperature_unit: 'kelvin' } }, /tags\.temperature_unit/],
      [{ state: { power: { powerState: 'dim' } } }, /state\.power\.powerState/],
      [{ configuration: { x: 1 } }, /configuration: only a camera/],
      [{ capabilities: { not: 'an array' } }, /^capabilities: /],
    ];
    for (const [body, message] of cases) {
      const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serials[1]}`, { token, body });
      assert.equal(r.json.error, 400, JSON.stringify(body));
      assert.match(r.json.message, message);
      assert.deepEqual(r.json.data, {});
    }
    const notJson = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serials[1]}`, { token, body: '{' });
    assert.equal(notJson.json.error, 400);
    const unknown = await call(g.url, 'PUT', '/open-api/v2/rest/devices/nope', { token, body: { name: 'x' } });
    assert.equal(unknown.json.error, 110000);
    const unknownDelete = await call(g.url, 'DELETE', '/open-api/v2/rest/devices/nope', { token });
    assert.equal(unknownDelete.json.error, 110000);
    const unknownQuery = await call(g.url, 'POST', '/open-api/v2/rest/devices/nope/query-state/power', {
      token,
      body: { query_state: {} },
    });
    assert.equal(unknownQuery.json.error, 110000);
    const empty = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${serials[1]}`, { token, body: '' });
    assert.equal(empty.json.error, 0, 'an empty body changes nothing');
  });

  test('D5 deletes a third-party device and emits deleteDevice', async () => {
    const r = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${serials[2]}`, { token });
    assert.deepEqual(r.json, { error: 0, data: {}, message: 'success' });
    assert.equal(
      (await list()).some((d) => d.serial_number === serials[2]),
      false,
    );
    const ev = await stream.waitFor((e) => e.name === 'device#v1#deleteDevice');
    assert.deepEqual(ev.data, { endpoint: { serial_number: serials[2], third_serial_number: 'p-3' } });
    const again = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${serials[2]}`, { token });
    assert.equal(again.json.error, 110000);
  });

  test('D1 without a Zigbee network is refused; a type other than Zigbee is a 400', async () => {
    const r = await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', {
      token,
      body: { enable: true, type: 'Bluetooth' },
    });
    assert.equal(r.json.error, 400);
    const missing = await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', {
      token,
      body: { type: 'zigbee' },
    });
    assert.match(missing.json.message, /^enable: required/);
  });

  test('a restart keeps devices, names, tags, states, online flags and engines; reset clears them', async () => {
    await sendEvent(
      g,
      token,
      'DeviceStatesChangeReport',
      { state: { toggle: { '2': { toggleState: 'on' } } } },
      { endpoint: { serial_number: serials[1] } },
    );
    await sendEvent(
      g,
      token,
      'DeviceOnlineChangeReport',
      { online: false },
      { endpoint: { serial_number: serials[1] } },
    );
    const engine = await sendEvent(g, token, 'RegisterTTSEngine', {
      service_address: 'http://127.0.0.1:9/tts',
      name: 'Engine',
    });
    const beforeList = await list();
    stream.close();
    g = await g.restart();
    const afterList = await list();
    assert.deepEqual(afterList, beforeList);
    const d = afterList.find((x) => x.serial_number === serials[1]);
    assert.equal(d.online, false);
    assert.deepEqual(d.state.toggle, { '2': { toggleState: 'on' } });
    const engines = await call(g.url, 'GET', '/open-api/v2/rest/tts/engines', { token });
    assert.deepEqual(engines.json.data.engines, [
      { id: engine.json.payload.engine_id, name: 'Engine' },
      { id: 'espeak-ng', name: 'eSpeak NG (built-in)' },
    ]);
    // The same third_serial_number after a restart still updates the same device.
    const again = await sendEvent(g, token, 'DiscoveryRequest', { endpoints: [endpoint('p-2', service.url)] });
    assert.equal(again.json.payload.endpoints[0].serial_number, serials[1]);

    stream = await openEvents(g.url, token, 'v2');
    await g.gateway.reset();
    const ev = await stream.waitFor((e) => e.type === 'deleteDevice');
    assert.ok(serials.includes(ev.data.endpoint.serial_number));
    assert.equal(g.gateway.devices.registry.size, 0);
    assert.deepEqual(g.gateway.tts.list(), []);
    g = await g.restart();
    assert.equal(g.gateway.devices.registry.size, 0, 'the reset was committed');
  });
});
