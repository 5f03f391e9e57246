/**
 * The herdsman driver with the devices of the fake coordinator, through the API as a client sees
 * it: every control the mapping offers is confirmed and reaches the device, reports and reads
 * come back as state, pairing (D1), leaving and rejoining, removal (D5, 110001), a model the
 * converters do not know, an interview that fails, and what devices send that makes no sense.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { call, eventually, listDevices, rest, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import {
  COLOUR_LIGHT,
  CONTACT_SENSOR,
  COVER,
  FAKE_DEVICES,
  METERING_PLUG,
  REMOTE,
  THERMOSTAT,
  TWO_GANG_SWITCH,
} from '../z2m/fake/devices.ts';
import type { ReceivedRequest } from '../z2m/fake/network.ts';
import type { FakeDeviceSpec } from '../z2m/fake/spec.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

/** A device no converter knows: an on/off plug-in relay under a made-up model id. */
const UNKNOWN_RELAY: FakeDeviceSpec = {
  ieee: '0x00124b00fa4e0010',
  nwk: 0x1a10,
  name: 'unknown_relay',
  type: 'Router',
  manufacturerCode: 0x1234,
  paired: false,
  expectedModel: 'OC-RELAY-1',
  endpoints: [
    {
      id: 1,
      profileId: 0x0104,
      deviceId: 0x0100,
      inputClusters: ['genBasic', 'genOnOff'],
      outputClusters: [],
      attributes: {
        genBasic: { manufacturerName: 'Nobody Ltd', modelId: 'OC-RELAY-1', powerSource: 1, zclVersion: 8 },
        genOnOff: { onOff: 0 },
      },
    },
  ],
};

const SPECS = [...FAKE_DEVICES, UNKNOWN_RELAY];

describe('the herdsman driver with the fake coordinator', () => {
  let s: HerdsmanSetup;
  let g: TestGateway;
  let token: string;
  let events: EventStream;
  const received: ReceivedRequest[] = [];

  const all = () => listDevices(g.url, token);
  const byIeee = async (spec: FakeDeviceSpec) => {
    const d = (await all()).find((x) => x.serial_number && x.model === spec.expectedModel);
    assert.ok(d, `${spec.name} is listed`);
    return d;
  };
  const put = (serial: string, body: unknown) => call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });
  const stateOf = (spec: FakeDeviceSpec, test: (state: any, d: any) => boolean, what: string) =>
    waitForValue(
      async () => {
        const d = (await all()).find((x) => x.model === spec.expectedModel);
        return d && test(d.state, d) ? d : undefined;
      },
      10_000,
      what,
    );
  const attrs = (spec: FakeDeviceSpec, endpoint: number, cluster: string) =>
    s.net.must(spec.ieee).attributes(endpoint, cluster);
  const discovery = (enable: boolean) =>
    call(g.url, 'PUT', rest('v2', 'devices/discovery'), { token, body: { enable, type: 'Zigbee' } });

  before(async () => {
    s = herdsmanSetup(SPECS);
    s.net.events.on('received', (r) => received.push(r));
    g = await startHerdsmanGateway(s);
    token = g.token();
    events = await openEvents(g.url, token);
    await waitForValue(async () => ((await all()).length === 5 ? true : undefined), 15_000, 'the five paired devices');
  });

  after(async () => {
    events?.close();
    await g?.stop();
    s?.net.close();
    if (s) rmSync(s.dataDir, { recursive: true, force: true });
  });

  it('names each device by its model and marks it online, with the firmware its Basic cluster reports', async () => {
    const light = await byIeee(COLOUR_LIGHT);
    assert.equal(light.name, 'Hue white and color ambiance E26/E27/E14');
    assert.equal(light.manufacturer, 'Philips');
    assert.equal(light.firmware_version, '1.50.2_r30933');
    assert.equal(light.online, true);
    assert.equal(light.protocol, 'zigbee');
  });

  it('configures reporting as the models define it, and a report of the device becomes its state', async () => {
    await eventually(
      () =>
        received.some(
          (r) => r.ieee === THERMOSTAT.ieee && r.cluster === 'hvacThermostat' && r.command === 'configReport',
        ),
      10_000,
      'the thermostat configured',
    );
    const thermostat = await byIeee(THERMOSTAT);
    const mark = events.events.length;
    s.net.report(THERMOSTAT.ieee, 3, 'hvacThermostat', { localTemp: 1890 });
    await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= mark &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === thermostat.serial_number &&
        e.data.payload.temperature?.temperature === 18.9,
    );
  });

  // Every control the mapping offers for these models, with what the device must hold afterwards.
  const controls: [FakeDeviceSpec, Record<string, unknown>, (s: any) => boolean, () => boolean][] = [
    [
      COLOUR_LIGHT,
      { power: { powerState: 'on' } },
      (x) => x.power?.powerState === 'on',
      () => attrs(COLOUR_LIGHT, 11, 'genOnOff').onOff === 1,
    ],
    [
      COLOUR_LIGHT,
      { power: { powerState: 'toggle' } },
      (x) => x.power?.powerState === 'off',
      () => attrs(COLOUR_LIGHT, 11, 'genOnOff').onOff === 0,
    ],
    [
      COLOUR_LIGHT,
      { brightness: { brightness: 40 } },
      (x) => x.brightness?.brightness === 40,
      () => attrs(COLOUR_LIGHT, 11, 'genLevelCtrl').currentLevel === 102,
    ],
    [
      COLOUR_LIGHT,
      { 'color-temperature': { colorTemperature: 100 } },
      (x) => x['color-temperature']?.colorTemperature === 100,
      () => attrs(COLOUR_LIGHT, 11, 'lightingColorCtrl').colorTemperature === 153,
    ],
    [
      COLOUR_LIGHT,
      { 'color-rgb': { red: 255, green: 0, blue: 0 } },
      (x) => x['color-rgb']?.red > x['color-rgb']?.blue,
      () => attrs(COLOUR_LIGHT, 11, 'lightingColorCtrl').colorMode !== 2,
    ],
    [
      COLOUR_LIGHT,
      { startup: { startup: 'off' } },
      (x) => x.startup?.startup === 'off',
      () => attrs(COLOUR_LIGHT, 11, 'genOnOff').startUpOnOff === 0,
    ],
    [
      COLOUR_LIGHT,
      { power: { powerState: 'off' }, brightness: { brightness: 80 } },
      (x) => x.power?.powerState === 'off',
      () => attrs(COLOUR_LIGHT, 11, 'genOnOff').onOff === 0,
    ],
    [
      TWO_GANG_SWITCH,
      { toggle: { '1': { toggleState: 'on' }, '2': { toggleState: 'on' } } },
      (x) => x.toggle?.['1']?.toggleState === 'on' && x.toggle?.['2']?.toggleState === 'on',
      () => attrs(TWO_GANG_SWITCH, 1, 'genOnOff').onOff === 1 && attrs(TWO_GANG_SWITCH, 2, 'genOnOff').onOff === 1,
    ],
    [
      TWO_GANG_SWITCH,
      { toggle: { '2': { toggleState: 'off' } } },
      (x) => x.toggle?.['2']?.toggleState === 'off',
      () => attrs(TWO_GANG_SWITCH, 2, 'genOnOff').onOff === 0 && attrs(TWO_GANG_SWITCH, 1, 'genOnOff').onOff === 1,
    ],
    [
      TWO_GANG_SWITCH,
      { 'toggle-startup': { '2': { startup: 'stay' } } },
      (x) => x['toggle-startup']?.['2']?.startup === 'stay',
      () => attrs(TWO_GANG_SWITCH, 2, 'genOnOff').startUpOnOff === 255,
    ],
    [
      TWO_GANG_SWITCH,
      { 'toggle-startup': { '1': { startup: 'on' } } },
      (x) => x['toggle-startup']?.['1']?.startup === 'on',
      () => attrs(TWO_GANG_SWITCH, 1, 'genOnOff').startUpOnOff === 1,
    ],
    [
      THERMOSTAT,
      { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 21.5 } } },
      (x) => x['thermostat-target-setpoint']?.['manual-mode']?.targetSetpoint === 21.5,
      () => attrs(THERMOSTAT, 3, 'hvacThermostat').occupiedHeatingSetpoint === 2150,
    ],
    [
      THERMOSTAT,
      { mode: { airConditionerMode: { modeValue: 'cool' } } },
      (x) => x.mode?.airConditionerMode?.modeValue === 'cool',
      () => attrs(THERMOSTAT, 3, 'hvacThermostat').systemMode === 3,
    ],
    [
      COVER,
      { percentage: { percentage: 70 } },
      (x) => x.percentage?.percentage === 70,
      () => attrs(COVER, 1, 'closuresWindowCovering').currentPositionLiftPercentage === 30,
    ],
    [
      COVER,
      { 'motor-control': { motorControl: 'close' } },
      (x) => x.percentage?.percentage === 0,
      () => attrs(COVER, 1, 'closuresWindowCovering').currentPositionLiftPercentage === 100,
    ],
    [
      COVER,
      { 'motor-control': { motorControl: 'open' } },
      (x) => x.percentage?.percentage === 100,
      () => attrs(COVER, 1, 'closuresWindowCovering').currentPositionLiftPercentage === 0,
    ],
  ];

  it('has a control below for every capability these models let a client control', async () => {
    const tested = new Set(
      controls.flatMap(([spec, cmd]) => Object.keys(cmd).map((c) => `${spec.expectedModel} ${c}`)),
    );
    const controllable = (await all()).flatMap((d) =>
      d.capabilities.filter((c: any) => c.permission[0] === '1').map((c: any) => `${d.model} ${c.capability}`),
    );
    assert.deepEqual(
      [...new Set(controllable)].filter((c) => !tested.has(c)),
      [],
    );
  });

  for (const [spec, command, shows, device] of controls)
    it(`confirms ${JSON.stringify(command)} on ${spec.name}: the device holds it, and the list shows it`, async () => {
      const d = await byIeee(spec);
      const r = await put(d.serial_number, { state: command });
      assert.equal(r.json.error, 0, r.text);
      await eventually(device, 10_000, `${spec.name} holds ${JSON.stringify(command)}`);
      await stateOf(spec, shows, `${spec.name} after ${JSON.stringify(command)}`);
    });

  it('identifies a device on request (the light blinks)', async () => {
    const d = await byIeee(COLOUR_LIGHT);
    const mark = received.length;
    const r = await put(d.serial_number, { state: { identify: { countdown: 3 } } });
    assert.equal(r.json.error, 0, r.text);
    assert.ok(received.slice(mark).some((x) => x.cluster === 'genIdentify' && x.command === 'identify'));
  });

  const queries: [FakeDeviceSpec, string, string][] = [
    [COLOUR_LIGHT, 'brightness', 'genLevelCtrl'],
    [COLOUR_LIGHT, 'power', 'genOnOff'],
    [COLOUR_LIGHT, 'color-temperature', 'lightingColorCtrl'],
    [TWO_GANG_SWITCH, 'toggle', 'genOnOff'],
    [THERMOSTAT, 'thermostat-target-setpoint', 'hvacThermostat'],
    [THERMOSTAT, 'temperature', 'hvacThermostat'],
  ];
  for (const [spec, capability, cluster] of queries)
    it(`answers a query of ${capability} on ${spec.name} by reading ${cluster}, with an updateDeviceState event`, async () => {
      const d = await byIeee(spec);
      const mark = events.events.length;
      const sent = received.length;
      const r = await call(g.url, 'POST', rest('v2', `devices/${d.serial_number}/query-state/${capability}`), {
        token,
        body: { query_state: { [capability]: {} } },
      });
      assert.equal(r.json.error, 0, r.text);
      assert.ok(received.slice(sent).some((x) => x.cluster === cluster && x.command === 'read'));
      await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= mark &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === d.serial_number &&
          e.data.payload[capability] !== undefined,
      );
    });

  it('reports a thermostat reading, a remote held down and a battery level', async () => {
    s.net.report(THERMOSTAT.ieee, 3, 'hvacThermostat', { localTemp: 2345 });
    await stateOf(THERMOSTAT, (x) => x.temperature?.temperature === 23.45, 'the new temperature');
    const remote = await byIeee(REMOTE);
    const mark = events.events.length;
    s.net.command(REMOTE.ieee, 1, 'genLevelCtrl', 'moveWithOnOff', { movemode: 0, rate: 83 });
    const ev = await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= mark &&
        e.type === 'updateDeviceState' &&
        e.data.endpoint.serial_number === remote.serial_number &&
        e.data.payload['multi-press'] !== undefined,
    );
    assert.deepEqual(ev.data.payload['multi-press'], { brightnessup: { press: 'longPress' } });
    // IKEA's remotes report their battery in whole percent (the model says so; most devices report half percent).
    s.net.report(REMOTE.ieee, 1, 'genPowerCfg', { batteryPercentageRemaining: 60 });
    await stateOf(REMOTE, (x) => x.battery?.battery === 60, 'the remote battery at 60 %');
  });

  it('pairs through D1 with the same window as Zigbee2MQTT, refuses D5 meanwhile (110001), and closes', async () => {
    const mark = events.events.length;
    assert.equal((await discovery(true)).json.error, 0);
    assert.equal(s.net.permitJoinOpen(), true);
    const light = await byIeee(COLOUR_LIGHT);
    const refused = await call(g.url, 'DELETE', rest('v2', `devices/${light.serial_number}`), { token });
    assert.equal(refused.json.error, 110001, refused.text);
    for (const spec of [CONTACT_SENSOR, METERING_PLUG, UNKNOWN_RELAY]) assert.equal(s.net.join(spec.ieee).ok, true);
    for (const spec of [CONTACT_SENSOR, METERING_PLUG])
      await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= mark && e.type === 'addDevice' && e.data.payload.model === spec.expectedModel,
        15_000,
      );
    assert.equal((await discovery(false)).json.error, 0);
    assert.equal(s.net.permitJoinOpen(), false);
    // The contact sensor's zone was enrolled with the coordinator during the interview.
    assert.equal(attrs(CONTACT_SENSOR, 1, 'ssIasZone').zoneState, 1);
  });

  it('adds a model the converters do not know with what its clusters offer', async () => {
    const d = await waitForValue(
      async () => (await all()).find((x) => x.model === UNKNOWN_RELAY.expectedModel),
      15_000,
      'the unknown relay',
    );
    assert.equal(d.protocol, 'zigbee');
    assert.ok(d.capabilities.some((c: any) => c.capability === 'power'));
    const r = await put(d.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(attrs(UNKNOWN_RELAY, 1, 'genOnOff').onOff, 1);
  });

  it('reports the contact sensor and the metering plug', async () => {
    s.net.command(CONTACT_SENSOR.ieee, 1, 'ssIasZone', 'statusChangeNotification', {
      zonestatus: 1,
      extendedstatus: 0,
      zoneID: 23,
      delay: 0,
    });
    await stateOf(CONTACT_SENSOR, (x) => x.contact?.contact === true, 'the door open');
    s.net.command(CONTACT_SENSOR.ieee, 1, 'ssIasZone', 'statusChangeNotification', {
      zonestatus: 0,
      extendedstatus: 0,
      zoneID: 23,
      delay: 0,
    });
    await stateOf(CONTACT_SENSOR, (x) => x.contact?.contact === false, 'the door closed');
    s.net.report(METERING_PLUG.ieee, 1, 'haElectricalMeasurement', { activePower: 60 });
    await stateOf(METERING_PLUG, (x) => x['toggle-electric-power']?.['1']?.electricPower === 6000, 'the plug at 60 W');
  });

  it('drops what makes no sense in a report (a battery above 100 %), keeping the rest', async () => {
    s.net.report(CONTACT_SENSOR.ieee, 1, 'genPowerCfg', { batteryPercentageRemaining: 254 });
    s.net.report(CONTACT_SENSOR.ieee, 1, 'genPowerCfg', { batteryPercentageRemaining: 90 });
    await stateOf(CONTACT_SENSOR, (x) => x.battery?.battery === 45, 'the battery at 45 %');
  });

  it('answers a command the device does not answer with 110006 and the reason, at once', async () => {
    const d = await byIeee(TWO_GANG_SWITCH);
    s.net.failNext(TWO_GANG_SWITCH.ieee, 1, 'genOnOff');
    const r = await put(d.serial_number, { state: { toggle: { '1': { toggleState: 'off' } } } });
    assert.equal(r.json.error, 110006, r.text);
    assert.match(r.json.message, /^Zigbee: .*Timeout/);
    // A ping answered: still online.
    assert.equal((await byIeee(TWO_GANG_SWITCH)).online, true);
  });

  it('keeps a device that leaves by itself, offline (110005), and takes it back when it rejoins', async () => {
    const before = await byIeee(TWO_GANG_SWITCH);
    s.net.leave(TWO_GANG_SWITCH.ieee);
    await stateOf(TWO_GANG_SWITCH, (_x, d) => d.online === false, 'the switch offline');
    const r = await put(before.serial_number, { state: { toggle: { '1': { toggleState: 'on' } } } });
    assert.equal(r.json.error, 110005, r.text);
    const mark = events.events.length;
    assert.equal((await discovery(true)).json.error, 0);
    assert.equal(s.net.join(TWO_GANG_SWITCH.ieee).ok, true);
    const back = await stateOf(TWO_GANG_SWITCH, (_x, d) => d.online === true, 'the switch back');
    assert.equal((await discovery(false)).json.error, 0);
    assert.equal(back.serial_number, before.serial_number);
    assert.equal(events.events.slice(mark).filter((e) => e.type === 'addDevice').length, 0);
  });

  it('keeps a device whose leave goes unanswered (110006), and removes one that confirms it (D5)', async () => {
    const plug = await byIeee(METERING_PLUG);
    s.net.failNext(METERING_PLUG.ieee, 1, 'ZDO');
    const kept = await call(g.url, 'DELETE', rest('v2', `devices/${plug.serial_number}`), { token });
    assert.equal(kept.json.error, 110006, kept.text);
    assert.match(kept.json.message, /^Zigbee: the device did not leave the network: /);
    assert.ok((await all()).some((x) => x.serial_number === plug.serial_number));
    const r = await call(g.url, 'DELETE', rest('v2', `devices/${plug.serial_number}`), { token });
    assert.equal(r.json.error, 0, r.text);
    await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === plug.serial_number);
    await eventually(() => !s.net.must(METERING_PLUG.ieee).joined, 5000, 'the plug out of the network');
    assert.equal(
      (await all()).some((x) => x.serial_number === plug.serial_number),
      false,
    );
  });

  it('removes at once a device that left the network already', async () => {
    const sensor = await byIeee(CONTACT_SENSOR);
    s.net.leave(CONTACT_SENSOR.ieee);
    await stateOf(CONTACT_SENSOR, (_x, d) => d.online === false, 'the sensor offline');
    const r = await call(g.url, 'DELETE', rest('v2', `devices/${sensor.serial_number}`), { token });
    assert.equal(r.json.error, 0, r.text);
    assert.equal(
      (await all()).some((x) => x.serial_number === sensor.serial_number),
      false,
    );
  });

  it("announces the network's devices again after a factory reset (they are still paired)", async () => {
    const before = (await all()).map((d) => d.serial_number).sort();
    assert.ok(before.length > 0);
    await g.gateway.reset();
    token = g.token('after-reset');
    const again = await waitForValue(
      async () => {
        const l = await all();
        return l.length === before.length ? l : undefined;
      },
      15_000,
      'the devices again',
    );
    assert.deepEqual(again.map((d) => d.serial_number).sort(), before);
  });
});
