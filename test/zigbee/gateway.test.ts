/**
 * Zigbee end to end: the real gateway (registry, routes, event stream) with the Zigbee2MQTT
 * driver connected to a real MQTT broker on 127.0.0.1, where simulated Zigbee2MQTT instances
 * (the only test double, at the Zigbee2MQTT MQTT boundary) serve two base topics.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { call, listDevices, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { SIM_CATEGORIES } from '../helpers/zigbee.ts';

const BASES = ['zigbee2mqtt', 'upstairs'];

interface Dev {
  serial_number: string;
  name: string;
  model: string;
  display_category: string;
  protocol?: string;
  online: boolean;
  state: Record<string, any>;
  capabilities: { capability: string; name?: string }[];
}

let net: SimNetwork;
let g: TestGateway;
let token: string;
let events: EventStream;

const zigbeeSettings = (url: string) => ({
  zigbee: { mode: 'z2m', mqtt_url: url, base_topics: BASES.join(','), permit_join_seconds: 30 },
});

const list = (): Promise<Dev[]> => listDevices(g.url, token);

async function until<T>(what: string, fn: () => Promise<T | undefined> | T | undefined, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function byModel(model: string, base = 'zigbee2mqtt'): Promise<Dev & { ieee: string }> {
  const sim = net.sim(base);
  const simDev = sim.list().find((d) => d.fixture.model === model);
  assert.ok(simDev, `simulated ${model} on ${base}`);
  const d = (await list()).find((x) => x.model === model && x.name === simDev.friendly);
  assert.ok(d, `listed ${model}`);
  return { ...d, ieee: simDev.ieee };
}

const put = (serial: string, body: unknown) =>
  call(g.url, 'PUT', `/open-api/v2/rest/devices/${serial}`, { token, body });

before(async () => {
  net = await startSimNetwork({
    baseTopics: BASES,
    devices: 32,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50 },
  });
  g = await startGateway({ overrides: zigbeeSettings(net.url) });
  token = await g.linkToken();
  events = await openEvents(g.url, token);
  await until('32 zigbee devices', async () => ((await list()).length === 32 ? true : undefined));
});

after(async () => {
  events?.close();
  await g?.stop();
  await net?.stop();
});

describe('Zigbee devices through Zigbee2MQTT', () => {
  it('lists the devices of both base topics with mapped capabilities and categories', async () => {
    const devices = await list();
    assert.equal(devices.length, 32);
    for (const d of devices) {
      assert.equal(d.protocol, 'zigbee');
      assert.ok(d.capabilities.length > 0);
    }
    const categories = new Set(devices.map((d) => d.display_category));
    for (const c of SIM_CATEGORIES) assert.ok(categories.has(c), `category ${c}`);
    // The state the simulators published on start is already there.
    const plug = await byModel('ZNCZ02LM');
    assert.equal(plug.state.power?.powerState, 'off');
    const upstairs = await byModel('SP 120', 'upstairs');
    assert.ok(upstairs.serial_number);
  });

  const rounds: [model: string, command: Record<string, unknown>, property: string, expected: unknown][] = [
    ['ZNCZ02LM', { power: { powerState: 'on' } }, 'state', 'ON'],
    ['QBKG24LM', { toggle: { left: { toggleState: 'on' } } }, 'state_left', 'ON'],
    ['LED1836G9', { brightness: { brightness: 50 } }, 'brightness', 127],
    ['LED1836G9', { startup: { startup: 'off' } }, 'power_on_behavior', 'off'],
    ['LED1836G9', { power: { powerState: 'off' }, brightness: { brightness: 30 } }, 'state', 'OFF'],
    ['LED2201G8', { 'color-temperature': { colorTemperature: 100 } }, 'color_temp', 250],
    ['9290012573A', { 'color-rgb': { red: 0, green: 0, blue: 255 } }, 'color_mode', 'xy'],
    ['E1757', { percentage: { percentage: 30 } }, 'position', 30],
    ['E1757', { 'motor-control': { motorControl: 'close' } }, 'position', 0],
    [
      'SPZB0001',
      { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 23.5 } } },
      'occupied_heating_setpoint',
      23.5,
    ],
    ['SPZB0001', { thermostat: { 'thermostat-mode': { thermostatMode: 'AUTO' } } }, 'system_mode', 'auto'],
    ['99432', { mode: { fanLevel: { modeValue: 'high' } } }, 'fan_mode', 'high'],
  ];
  for (const [model, command, property, expected] of rounds) {
    it(`controls a ${model}: ${JSON.stringify(command)} reaches the device and comes back as its state`, async () => {
      const d = await byModel(model);
      const before = events.events.length;
      const r = await put(d.serial_number, { state: command });
      assert.equal(r.json.error, 0, r.text);
      assert.deepEqual(net.sim().device(d.ieee)?.state[property], expected);
      const cap = Object.keys(command)[0] as string;
      const ev = await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= before &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === d.serial_number &&
          cap in e.data.payload,
      );
      assert.ok(ev);
      const now = (await list()).find((x) => x.serial_number === d.serial_number) as Dev;
      assert.ok(now.state[cap]);
    });
  }

  it('controls a device of the second base topic', async () => {
    const d = await byModel('SP 120', 'upstairs');
    const r = await put(d.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(net.sim('upstairs').device(d.ieee)?.state.state, 'ON');
  });

  it('turns a report into an updateDeviceState event with only what changed (contact inverted)', async () => {
    const d = await byModel('MCCGQ11LM');
    // A sleeping sensor is not read back: its first report after the start brings everything.
    net.sim().report(d.ieee, { contact: true });
    await until('the first report', async () =>
      (await list()).find((x) => x.serial_number === d.serial_number)?.state.contact ? true : undefined,
    );
    const before = events.events.length;
    net.sim().report(d.ieee, { contact: false }); // Zigbee2MQTT: false = open
    const ev = await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === d.serial_number,
    );
    assert.deepEqual(ev.data.payload, { contact: { contact: true } });
  });

  it('reports button presses', async () => {
    const d = await byModel('WXKG01LM');
    const before = events.events.length;
    net.sim().report(d.ieee, { action: 'double' });
    const ev = await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === d.serial_number,
    );
    assert.deepEqual(ev.data.payload.press, { press: 'doublePress' });
  });

  it('queries a device (D6) with /get; the result comes as an updateDeviceState event', async () => {
    const d = await byModel('E1757');
    const before = events.events.length;
    const r = await call(g.url, 'POST', `/open-api/v2/rest/devices/${d.serial_number}/query-state/percentage`, {
      token,
      body: { query_state: { percentage: {} } },
    });
    assert.equal(r.json.error, 0, r.text);
    const ev = await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === d.serial_number,
    );
    assert.ok('percentage' in ev.data.payload);
  });

  it('follows availability: offline devices answer 110005, and come back', async () => {
    const d = await byModel('SP 224', 'upstairs').catch(() => byModel('LED1836G9'));
    const sim = net.sims.find((s) => s.device(d.ieee)) ?? net.sim();
    sim.setOnline(d.ieee, false);
    await events.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === d.serial_number &&
        e.data.payload.online === false,
    );
    const r = await put(d.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(r.json.error, 110005, r.text);
    sim.setOnline(d.ieee, true);
    await events.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === d.serial_number &&
        e.data.payload.online === true,
    );
    const again = await put(d.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(again.json.error, 0, again.text);
  });

  it('answers 110006 when Zigbee2MQTT reports that a set failed', async () => {
    const d = await byModel('ZNCZ02LM');
    const simDev = net.sim().device(d.ieee);
    assert.ok(simDev);
    simDev.failSet = true;
    try {
      const r = await put(d.serial_number, { state: { power: { powerState: 'off' } } });
      assert.equal(r.json.error, 110006, r.text);
      assert.match(r.json.message, /Zigbee2MQTT/);
    } finally {
      simDev.failSet = false;
    }
  });

  it('follows renames in bridge/devices with updateDeviceInfo', async () => {
    const d = await byModel('SNZB-02', 'upstairs').catch(() => byModel('WSDCGQ11LM'));
    const sim = net.sims.find((s) => s.device(d.ieee)) ?? net.sim();
    sim.rename(d.ieee, 'Greenhouse sensor');
    const ev = await events.waitFor(
      (e) => e.type === 'updateDeviceInfo' && e.data.endpoint.serial_number === d.serial_number,
    );
    assert.equal(ev.data.payload.name, 'Greenhouse sensor');
    // State keeps flowing under the new friendly name.
    const before = events.events.length;
    sim.report(d.ieee, { temperature: 31.5 });
    const st = await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === d.serial_number,
    );
    assert.deepEqual(st.data.payload.temperature, { temperature: 31.5 });
  });

  it('pairs through D1: a device that joins and completes its interview is added (addDevice)', async () => {
    const before = events.events.length;
    const count = (await list()).length;
    const on = await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', {
      token,
      body: { enable: true, type: 'zigbee' },
    });
    assert.equal(on.json.error, 0, on.text);
    assert.ok(net.sim().permitJoinOpen());
    const added = await events.waitFor((e) => events.events.indexOf(e) >= before && e.type === 'addDevice');
    assert.equal(added.data.payload.protocol, 'zigbee');
    assert.ok(added.data.payload.capabilities.length > 0);
    assert.ok((await list()).length > count);
    // Removing a device while joining is open is refused with 110001.
    const d = await byModel('SJCGQ11LM');
    const refused = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${d.serial_number}`, { token });
    assert.equal(refused.json.error, 110001, refused.text);
    const off = await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', {
      token,
      body: { enable: false, type: 'Zigbee' },
    });
    assert.equal(off.json.error, 0, off.text);
    assert.equal(net.sim().permitJoinOpen(), false);
    assert.equal(net.sim('upstairs').permitJoinOpen(), false);
  });

  it('reports a failed permit_join of Zigbee2MQTT', async () => {
    net.sim('upstairs').failPermitJoin = true;
    const r = await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', {
      token,
      body: { enable: true, type: 'ZIGBEE' },
    });
    assert.notEqual(r.json.error, 0, r.text);
    assert.match(r.json.message, /permit_join/);
    await call(g.url, 'PUT', '/open-api/v2/rest/devices/discovery', { token, body: { enable: false, type: 'zigbee' } });
  });

  it('removes a device (D5) through bridge/request/device/remove', async () => {
    const d = await byModel('SJCGQ11LM');
    const r = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${d.serial_number}`, { token });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(net.sim().device(d.ieee), undefined);
    await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === d.serial_number);
    assert.equal(
      (await list()).some((x) => x.serial_number === d.serial_number),
      false,
    );
  });

  it('keeps a device whose removal Zigbee2MQTT refuses, and says why', async () => {
    const d = await byModel('JTYJ-GD-01LM/BW');
    const simDev = net.sim().device(d.ieee);
    assert.ok(simDev);
    simDev.failRemove = true;
    const r = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${d.serial_number}`, { token });
    assert.equal(r.json.error, 110006, r.text);
    assert.match(r.json.message, /Failed to remove/);
    assert.ok((await list()).some((x) => x.serial_number === d.serial_number));
    simDev.failRemove = false;
  });

  it('answers a slow removal inside the 5 s clients wait, and removes the device when Zigbee2MQTT completes', async () => {
    const d = await byModel('JTQJ-BF-01LM/BW');
    const simDev = net.sim().device(d.ieee);
    assert.ok(simDev);
    simDev.removeDelayMs = 5000;
    const r = await call(g.url, 'DELETE', `/open-api/v2/rest/devices/${d.serial_number}`, { token });
    // The 4 s the driver waits (inside the 5 s clients wait) are in its answer.
    assert.equal(r.json.error, 110006, r.text);
    assert.match(r.json.message, /has not confirmed the removal .* within 4000 ms; if it completes later/);
    await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === d.serial_number, 15_000);
    assert.equal(
      (await list()).some((x) => x.serial_number === d.serial_number),
      false,
    );
  });

  it('marks a device that leaves the network offline and keeps it', async () => {
    const d = await byModel('SNZB-04', 'upstairs').catch(() => byModel('MCCGQ11LM'));
    const sim = net.sims.find((s) => s.device(d.ieee)) ?? net.sim();
    sim.leave(d.ieee);
    await events.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === d.serial_number &&
        e.data.payload.online === false,
    );
    const kept = (await list()).find((x) => x.serial_number === d.serial_number);
    assert.equal(kept?.online, false);
  });

  it('survives a broker restart: devices keep their state, control works again after reconnecting', async () => {
    const d = await byModel('LED1836G9');
    const stateBefore = (await list()).find((x) => x.serial_number === d.serial_number)?.state;
    await net.stopBroker();
    const down = await put(d.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(down.json.error, 110006, down.text);
    const during = (await list()).find((x) => x.serial_number === d.serial_number);
    assert.equal(during?.online, true);
    assert.deepEqual(during?.state, stateBefore);
    await net.restartBroker();
    await until(
      'control after the broker is back',
      async () => (await put(d.serial_number, { state: { power: { powerState: 'on' } } })).json.error === 0,
      20_000,
    );
    assert.equal(net.sim().device(d.ieee)?.state.state, 'ON');
  });

  it('reconciles known devices after a gateway restart instead of adding them again', async () => {
    const serials = (await list()).map((d) => d.serial_number).sort();
    events.close();
    g = await g.restart();
    token = await g.linkToken();
    events = await openEvents(g.url, token);
    const devices = await until('devices after restart', async () => {
      const l = await list();
      return l.length === serials.length ? l : undefined;
    });
    assert.deepEqual(devices.map((d) => d.serial_number).sort(), serials);
    // A fresh report still flows (the driver knows the devices again).
    const t = await byModel('WSDCGQ11LM');
    net.sim().report(t.ieee, { humidity: 63 });
    await events.waitFor((e) => e.type === 'updateDeviceState' && e.data.endpoint.serial_number === t.serial_number);
    assert.equal(events.of('addDevice').length, 0);
  });
});
