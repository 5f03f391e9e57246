/**
 * The contract test: one scenario, the same assertions, against the built-in simulated network,
 * against the real Zigbee2MQTT 2.14.1 (with the fake coordinator), and against the herdsman
 * driver on the same fake coordinator in-process, so that neither the simulator nor the herdsman
 * driver can drift from Zigbee2MQTT. All run the same seven device models (the fake's, captured
 * into the simulator's fixtures); a Backend turns each physical event (a door opens, a remote is
 * pressed, a device leaves, the backend crashes) into what that backend does. The gateway is the
 * real one: in `z2m` mode over a real MQTT broker on 127.0.0.1, or in `herdsman` mode.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { type Broker, loadFixtures, startBroker, Z2mSimulator } from '../../src/drivers/zigbee-sim/index.ts';
import type { ModelFixture } from '../../src/zigbee/index.ts';
import {
  call,
  listDevices,
  rest,
  type StartOptions,
  startGateway,
  type TestGateway,
  waitForValue,
} from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { herdsmanSetup } from '../herdsman/harness.ts';
import {
  COLOUR_LIGHT,
  CONTACT_SENSOR,
  COVER,
  FAKE_DEVICES,
  METERING_PLUG,
  REMOTE,
  THERMOSTAT,
  TWO_GANG_SWITCH,
} from './fake/devices.ts';
import type { FakeDeviceSpec } from './fake/spec.ts';
import { type RealZigbee2mqtt, startRealZigbee2mqtt } from './real-z2m.ts';

type Role = 'light' | 'twoGang' | 'remote' | 'thermostat' | 'cover' | 'contact' | 'plug';

const SPECS: Record<Role, FakeDeviceSpec> = {
  light: COLOUR_LIGHT,
  twoGang: TWO_GANG_SWITCH,
  remote: REMOTE,
  thermostat: THERMOSTAT,
  cover: COVER,
  contact: CONTACT_SENSOR,
  plug: METERING_PLUG,
};
const PAIRED: Role[] = ['light', 'twoGang', 'remote', 'thermostat', 'cover'];
const JOINING: Role[] = ['contact', 'plug'];

/** What the scenario needs of a Zigbee backend: how the gateway reaches it, and the physical world behind it. */
interface Backend {
  readonly name: string;
  /** How the gateway is started on it. */
  readonly gateway: StartOptions;
  /** How the reason of a failed command begins (the backend's own words follow). */
  readonly failure: RegExp;
  /** The door of the contact sensor opens. */
  doorOpens(): Promise<void>;
  /** The remote's middle button is pressed. */
  remotePressed(): Promise<void>;
  /** The next request to a device gets no answer. */
  failNext(role: Role): Promise<void>;
  /** The device leaves the network by itself (reset). */
  leave(role: Role): Promise<void>;
  /** The backend stops without a goodbye (Zigbee2MQTT crashes, the coordinator is unplugged), and comes back. */
  crash(): Promise<void>;
  restart(): Promise<void>;
  /** The model expected for each role. */
  model(role: Role): string;
  /** Every request the devices received, in order (absent where no device can be heard: the simulator has none). */
  readonly received?: readonly Heard[];
  /** A joining device tries to join (the fake coordinator's devices do so when asked, once joining is open). */
  join?(role: Role): Promise<void>;
  stop(): Promise<void>;
}

/** One request a device received. */
interface Heard {
  ieee: string;
  cluster: string;
  command: string;
}

/** The gateway in `z2m` mode on a broker and base topic. */
const z2mGateway = (url: string, base: string): StartOptions => ({
  overrides: { zigbee: { mode: 'z2m', mqtt_url: url, base_topics: base, permit_join_seconds: 60 } },
});

const fixtures = loadFixtures();
const fixture = (model: string): ModelFixture => {
  const f = fixtures.find((x) => x.model === model);
  assert.ok(f, `a simulator fixture of ${model}`);
  return f;
};

async function simulatorBackend(): Promise<Backend> {
  const broker = await startBroker();
  const base = 'contract_sim';
  const sim = new Z2mSimulator({
    url: broker.url,
    baseTopic: base,
    devices: PAIRED.map((r) => fixture(SPECS[r].expectedModel)),
    joinCandidates: JOINING.map((r) => fixture(SPECS[r].expectedModel)),
    joinsPerWindow: JOINING.length,
    joinDelayMs: 50,
    interviewMs: 50,
    reportIntervalMs: 0,
  });
  await sim.start();
  const dev = (role: Role) => {
    const d = sim.list().find((x) => x.fixture.model === SPECS[role].expectedModel);
    assert.ok(d, `simulated ${role}`);
    return d;
  };
  return {
    name: 'the simulated network',
    gateway: z2mGateway(broker.url, base),
    failure: /^Zigbee2MQTT: /,
    async doorOpens() {
      sim.report(dev('contact').ieee, { contact: false }); // Zigbee2MQTT: false = open
    },
    async remotePressed() {
      sim.report(dev('remote').ieee, { action: 'toggle' });
    },
    async failNext(role) {
      dev(role).failNext = 1;
    },
    async leave(role) {
      sim.leave(dev(role).ieee);
    },
    async crash() {
      sim.setInstanceOnline(false);
    },
    async restart() {
      sim.setInstanceOnline(true);
    },
    model: (role) => SPECS[role].expectedModel,
    async stop() {
      await sim.stop();
      await broker.close();
    },
  };
}

async function realBackend(): Promise<Backend> {
  const broker: Broker = await startBroker();
  const base = 'contract_z2m';
  // Availability after an hour: a busy machine must not make a quiet battery device look offline.
  const avail = { availabilityTimeoutSeconds: 3600 };
  let z2m: RealZigbee2mqtt = await startRealZigbee2mqtt({ mqttUrl: broker.url, baseTopic: base, ...avail });
  const hooks: MqttClient = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
  const hook = (path: string, body: unknown = {}) =>
    hooks.publishAsync(`${z2m.hookPrefix}/${path}`, JSON.stringify(body), { qos: 1 }).then(() => {});
  // A device that joined is announced to the fake network only when joining is open: joins are
  // asked for by the scenario through D1, and the fake lets them in on its `join` hook.
  const dataDir = z2m.dataDir;
  const received: Heard[] = [];
  const heard = `${z2m.hookPrefix}/+/received`;
  hooks.on('message', (topic, payload) => {
    const r = JSON.parse(payload.toString());
    received.push({ ieee: topic.split('/').at(-2) ?? '', cluster: r.cluster, command: r.command });
  });
  await hooks.subscribeAsync(heard, { qos: 1 });
  return {
    received,
    name: 'real Zigbee2MQTT 2.14.1',
    gateway: z2mGateway(broker.url, base),
    failure: /^Zigbee2MQTT: /,
    async doorOpens() {
      await hook(`${CONTACT_SENSOR.ieee}/command`, {
        cluster: 'ssIasZone',
        command: 'statusChangeNotification',
        payload: { zonestatus: 1, extendedstatus: 0, zoneID: 23, delay: 0 },
      });
    },
    async remotePressed() {
      await hook(`${REMOTE.ieee}/command`, { cluster: 'genOnOff', command: 'toggle' });
    },
    async failNext(role) {
      await hook(`${SPECS[role].ieee}/fail-next`, { count: 1 });
    },
    async leave(role) {
      await hook(`${SPECS[role].ieee}/leave`);
    },
    async crash() {
      await z2m.kill();
    },
    async restart() {
      z2m = await startRealZigbee2mqtt({ mqttUrl: broker.url, baseTopic: base, dataDir, ...avail });
    },
    model: (role) => SPECS[role].expectedModel,
    async stop() {
      await z2m.stop();
      await hooks.endAsync(true);
      await broker.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
    join: (role) => hook('join', { ieee: SPECS[role].ieee }),
  };
}

/** The herdsman driver (`herdsman` mode) on the fake coordinator, in this process. */
async function herdsmanBackend(): Promise<Backend> {
  const s = herdsmanSetup(FAKE_DEVICES);
  const { net } = s;
  const received: Heard[] = [];
  net.events.on('received', (r) => received.push(r));
  return {
    received,
    name: 'the herdsman driver',
    gateway: { dataDir: s.dataDir, overrides: s.overrides, gatewayOptions: { drivers: { herdsman: s.driver } } },
    failure: /^Zigbee: /,
    async doorOpens() {
      net.command(CONTACT_SENSOR.ieee, undefined, 'ssIasZone', 'statusChangeNotification', {
        zonestatus: 1,
        extendedstatus: 0,
        zoneID: 23,
        delay: 0,
      });
    },
    async remotePressed() {
      net.command(REMOTE.ieee, undefined, 'genOnOff', 'toggle');
    },
    async failNext(role) {
      net.failNext(SPECS[role].ieee, 1);
    },
    async leave(role) {
      net.leave(SPECS[role].ieee);
    },
    async crash() {
      net.unplug();
    },
    async restart() {
      net.plugIn();
    },
    model: (role) => SPECS[role].expectedModel,
    async join(role) {
      const r = net.join(SPECS[role].ieee);
      assert.ok(r.ok, `the ${role} joins`);
    },
    async stop() {
      net.close();
      rmSync(s.dataDir, { recursive: true, force: true });
    },
  };
}

/** Lets the joining devices in, once D1 opened joining (the fake coordinator's devices need to try). */
async function joinAll(b: Backend): Promise<void> {
  if (b.join) for (const r of JOINING) await b.join(r);
}

const BACKENDS: [string, () => Promise<Backend>][] = [
  ['the simulated network', simulatorBackend],
  ['real Zigbee2MQTT 2.14.1', realBackend],
  ['the herdsman driver on the fake coordinator', herdsmanBackend],
];

for (const [title, make] of BACKENDS) {
  describe(`the Zigbee contract, on ${title}`, () => {
    let b: Backend;
    let g: TestGateway;
    let token: string;
    let events: EventStream;

    const all = () => listDevices(g.url, token);
    const find = async (role: Role) => {
      const d = (await all()).find((x) => x.model === b.model(role));
      assert.ok(d, `the ${role} (${b.model(role)}) is listed`);
      return d;
    };
    const put = (serial: string, body: unknown) => call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });
    const stateOf = async (role: Role, test: (state: any, d: any) => boolean, what: string) =>
      waitForValue(
        async () => {
          const d = (await all()).find((x) => x.model === b.model(role));
          return d && test(d.state, d) ? d : undefined;
        },
        15_000,
        what,
      );

    before(async () => {
      b = await make();
      g = await startGateway(b.gateway);
      token = await g.linkToken();
      events = await openEvents(g.url, token);
    });

    after(async () => {
      events?.close();
      await g?.stop();
      await b?.stop();
    });

    it('lists every paired device with its real model, protocol zigbee and its category', async () => {
      const listed = await waitForValue(
        async () => {
          const l = await all();
          return PAIRED.every((r) => l.some((d) => d.model === b.model(r))) ? l : undefined;
        },
        30_000,
        'the paired devices',
      );
      const category = (r: Role) => listed.find((d) => d.model === b.model(r))?.display_category;
      assert.deepEqual(
        PAIRED.map((r) => [r, category(r)]),
        [
          ['light', 'light'],
          ['twoGang', 'switch'],
          ['remote', 'button'],
          ['thermostat', 'airConditioner'],
          ['cover', 'curtain'],
        ],
      );
      for (const d of listed) assert.equal(d.protocol, 'zigbee');
      const sw = listed.find((d) => d.model === b.model('twoGang'));
      assert.deepEqual(
        sw.capabilities.filter((c: any) => c.capability === 'toggle').map((c: any) => c.name),
        ['1', '2'],
      );
      assert.deepEqual(Object.keys(sw.tags?.toggle ?? {}), ['1', '2']);
    });

    it('reads the state of mains-powered devices back without waiting for a report', async () => {
      await stateOf('light', (s) => s.power?.powerState !== undefined && s.brightness !== undefined, 'light state');
      await stateOf('twoGang', (s) => Object.keys(s.toggle ?? {}).length === 2, 'switch state');
    });

    // Every control the mapping offers for these models, with what the device list shows after it.
    // The plug joins in the pairing test below: its controls run after it.
    type Control = [Role, Record<string, unknown>, (s: any) => boolean];
    const controls: Control[] = [
      ['light', { power: { powerState: 'on' } }, (s) => s.power?.powerState === 'on'],
      ['light', { brightness: { brightness: 40 } }, (s) => s.brightness?.brightness === 40],
      ['light', { 'color-temperature': { colorTemperature: 20 } }, (s) => s['color-temperature'] !== undefined],
      ['light', { 'color-rgb': { red: 0, green: 0, blue: 255 } }, (s) => s['color-rgb']?.blue > s['color-rgb']?.red],
      ['light', { startup: { startup: 'off' } }, (s) => s.startup?.startup === 'off'],
      ['light', { startup: { startup: 'on' } }, (s) => s.startup?.startup === 'on'],
      ['light', { power: { powerState: 'off' } }, (s) => s.power?.powerState === 'off'],
      ['twoGang', { toggle: { '1': { toggleState: 'on' } } }, (s) => s.toggle?.['1']?.toggleState === 'on'],
      ['twoGang', { toggle: { '2': { toggleState: 'on' } } }, (s) => s.toggle?.['2']?.toggleState === 'on'],
      ['twoGang', { toggle: { '1': { toggleState: 'off' } } }, (s) => s.toggle?.['1']?.toggleState === 'off'],
      [
        'twoGang',
        { 'toggle-startup': { '1': { startup: 'on' } } },
        (s) => s['toggle-startup']?.['1']?.startup === 'on',
      ],
      [
        'twoGang',
        { 'toggle-startup': { '2': { startup: 'stay' } } },
        (s) => s['toggle-startup']?.['2']?.startup === 'stay' && s['toggle-startup']?.['1']?.startup === 'on',
      ],
      [
        'thermostat',
        { 'thermostat-target-setpoint': { 'manual-mode': { targetSetpoint: 22.5 } } },
        (s) => s['thermostat-target-setpoint']?.['manual-mode']?.targetSetpoint === 22.5,
      ],
      [
        'thermostat',
        { mode: { airConditionerMode: { modeValue: 'cool' } } },
        (s) => s.mode?.airConditionerMode?.modeValue === 'cool',
      ],
      [
        'thermostat',
        { mode: { airConditionerMode: { modeValue: 'heat' } } },
        (s) => s.mode?.airConditionerMode?.modeValue === 'heat',
      ],
      ['cover', { percentage: { percentage: 30 } }, (s) => s.percentage?.percentage === 30],
      ['cover', { 'motor-control': { motorControl: 'close' } }, (s) => s.percentage?.percentage === 0],
      ['cover', { 'motor-control': { motorControl: 'open' } }, (s) => s.percentage?.percentage === 100],
    ];
    const plugControls: Control[] = [
      ['plug', { power: { powerState: 'off' } }, (s) => s.power?.powerState === 'off'],
      ['plug', { power: { powerState: 'on' } }, (s) => s.power?.powerState === 'on'],
    ];
    // identify has no state to show: the device must have been told (where the backend lets a test hear it).
    const identifies: Role[] = ['light', 'remote', 'cover'];
    const confirms = ([role, command, shows]: Control) =>
      it(`confirms ${JSON.stringify(command)} on the ${role}, and shows it in the device list`, async () => {
        const d = await find(role);
        const r = await put(d.serial_number, { state: command });
        assert.equal(r.json.error, 0, r.text);
        await stateOf(role, shows, `${role} after ${JSON.stringify(command)}`);
      });
    for (const c of controls) confirms(c);

    for (const role of identifies)
      it(`identifies the ${role} on request, and the device is told`, async () => {
        const d = await find(role);
        const mark = b.received?.length ?? 0;
        const r = await put(d.serial_number, { state: { identify: { countdown: 3 } } });
        assert.equal(r.json.error, 0, r.text);
        const ieee = SPECS[role].ieee;
        const told = () =>
          b.received
            ?.slice(mark)
            .some((x) => x.ieee === ieee && x.cluster === 'genIdentify' && x.command === 'identify');
        if (b.received) await waitForValue(async () => told() || undefined, 15_000, `the ${role} told to identify`);
      });

    it('answers a query (D6) with the state as an updateDeviceState event', async () => {
      const d = await find('light');
      const mark = events.events.length;
      const r = await call(g.url, 'POST', rest('v2', `devices/${d.serial_number}/query-state/brightness`), {
        token,
        body: { query_state: { brightness: {} } },
      });
      assert.equal(r.json.error, 0, r.text);
      await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= mark &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === d.serial_number &&
          e.data.payload.brightness !== undefined,
      );
    });

    it('turns a button press into a multi-press event', async () => {
      const d = await find('remote');
      const mark = events.events.length;
      await b.remotePressed();
      const ev = await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= mark &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === d.serial_number &&
          e.data.payload['multi-press'] !== undefined,
        15_000,
      );
      assert.ok(Object.values(ev.data.payload['multi-press']).some((p: any) => p.press === 'singlePress'));
    });

    it('pairs through D1: the joining devices are added with addDevice, and joining closes again', async () => {
      const mark = events.events.length;
      const on = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
        token,
        body: { enable: true, type: 'Zigbee' },
      });
      assert.equal(on.json.error, 0, on.text);
      await joinAll(b);
      for (const role of JOINING)
        await events.waitFor(
          (e) => events.events.indexOf(e) >= mark && e.type === 'addDevice' && e.data.payload.model === b.model(role),
          30_000,
        );
      const off = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
        token,
        body: { enable: false, type: 'Zigbee' },
      });
      assert.equal(off.json.error, 0, off.text);
    });

    it('reports a door opening as contact true, on the stream and in the list', async () => {
      const d = await find('contact');
      const mark = events.events.length;
      await b.doorOpens();
      await events.waitFor(
        (e) =>
          events.events.indexOf(e) >= mark &&
          e.type === 'updateDeviceState' &&
          e.data.endpoint.serial_number === d.serial_number &&
          e.data.payload.contact?.contact === true,
        15_000,
      );
      await stateOf('contact', (s) => s.contact?.contact === true, 'contact open');
    });

    for (const c of plugControls) confirms(c);

    it('has tried every control these models let a client use', async () => {
      const tried = new Set([
        ...[...controls, ...plugControls].flatMap(([role, cmd]) =>
          Object.keys(cmd).map((c) => `${b.model(role)} ${c}`),
        ),
        ...identifies.map((role) => `${b.model(role)} identify`),
      ]);
      const controllable = (await all()).flatMap((d) =>
        d.capabilities
          .filter((c: any) => c.permission[0] === '1' || c.capability === 'identify')
          .map((c: any) => `${d.model} ${c.capability}`),
      );
      assert.ok(controllable.length > 0);
      assert.deepEqual(
        [...new Set(controllable)].filter((c) => !tried.has(c)),
        [],
      );
    });

    it('renames a device in the gateway, and keeps the name', async () => {
      const d = await find('cover');
      const r = await put(d.serial_number, { name: 'Bedroom blind' });
      assert.equal(r.json.error, 0, r.text);
      assert.equal((await find('cover')).name, 'Bedroom blind');
    });

    it('answers a failed command at once with the reason the backend gives', async () => {
      const d = await find('twoGang');
      await b.failNext('twoGang');
      const r = await put(d.serial_number, { state: { toggle: { '2': { toggleState: 'off' } } } });
      assert.equal(r.json.error, 110006, r.text);
      assert.match(r.json.message, b.failure);
    });

    it('removes a device through D5', async () => {
      const d = await find('plug');
      const r = await call(g.url, 'DELETE', rest('v2', `devices/${d.serial_number}`), { token });
      assert.equal(r.json.error, 0, r.text);
      await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === d.serial_number);
      assert.equal(
        (await all()).some((x) => x.serial_number === d.serial_number),
        false,
      );
    });

    it('keeps a device that leaves the network by itself, offline', async () => {
      const d = await find('contact');
      await b.leave('contact');
      await stateOf('contact', (_s, dev) => dev.online === false, 'the contact sensor offline');
      const mark = events.events.length;
      await new Promise((r) => setTimeout(r, 300));
      assert.ok(
        (await all()).some((x) => x.serial_number === d.serial_number),
        'still listed',
      );
      assert.equal(events.events.slice(mark).filter((e) => e.type === 'deleteDevice').length, 0);
    });

    it('takes every device offline when the backend goes away, answers 110005 at once, and brings them back', async () => {
      const light = await find('light');
      await b.crash();
      await waitForValue(
        async () => ((await all()).every((d) => d.online === false) ? true : undefined),
        15_000,
        'every device offline',
      );
      const r = await put(light.serial_number, { state: { power: { powerState: 'on' } } });
      assert.equal(r.json.error, 110005, r.text);
      await b.restart();
      await stateOf('light', (_s, d) => d.online === true, 'the light back online');
      const again = await waitForValue(
        async () => {
          const x = await put(light.serial_number, { state: { power: { powerState: 'on' } } });
          return x.json.error === 0 ? x : undefined;
        },
        20_000,
        'control after the restart',
      );
      assert.equal(again.json.error, 0);
    });

    it('keeps every device, name and state across a gateway restart', async () => {
      const before = await all();
      events.close();
      g = await g.restart();
      token = await g.linkToken();
      events = await openEvents(g.url, token);
      const after = await all();
      assert.deepEqual(
        after.map((d) => [d.serial_number, d.name]).sort(),
        before.map((d) => [d.serial_number, d.name]).sort(),
      );
      assert.equal(after.find((d) => d.model === b.model('light'))?.state.power?.powerState, 'on');
      assert.equal((await find('cover')).name, 'Bedroom blind');
    });
  });
}
