/**
 * The simulated network speaks Zigbee2MQTT's MQTT API: checked with a bare MQTT client on the
 * embedded broker (127.0.0.1), and through the gateway in its default `sim` mode.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { loadFixtures } from '../../src/drivers/zigbee-sim/network.ts';
import { drift, initialState, seeded, simProperties } from '../../src/drivers/zigbee-sim/values.ts';
import { listDevices, startGateway } from '../helpers/foundation.ts';
import { SIM_CATEGORIES } from '../helpers/zigbee.ts';

interface Msg {
  topic: string;
  text: string;
  json: any;
  retain: boolean;
}

async function watch(
  url: string,
  topic: string,
): Promise<{ client: MqttClient; msgs: Msg[]; next(pred: (m: Msg) => boolean): Promise<Msg> }> {
  const client = await mqtt.connectAsync(url, { reconnectPeriod: 0 });
  const msgs: Msg[] = [];
  const waiters = new Set<() => void>();
  client.on('message', (t, p, packet) => {
    let json: unknown;
    try {
      json = JSON.parse(p.toString());
    } catch {
      json = undefined;
    }
    msgs.push({ topic: t, text: p.toString(), json, retain: packet.retain });
    for (const w of waiters) w();
  });
  await client.subscribeAsync(topic);
  return {
    client,
    msgs,
    next(pred) {
      const found = msgs.find(pred);
      if (found) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no such message')), 10_000);
        const w = () => {
          const m = msgs.find(pred);
          if (!m) return;
          clearTimeout(timer);
          waiters.delete(w);
          resolve(m);
        };
        waiters.add(w);
      });
    },
  };
}

describe('the simulated Zigbee2MQTT', () => {
  let net: SimNetwork;
  let w: Awaited<ReturnType<typeof watch>>;
  before(async () => {
    net = await startSimNetwork({
      baseTopics: ['zigbee2mqtt'],
      devices: 16,
      sim: { reportIntervalMs: 20, joinDelayMs: 10, interviewMs: 10 },
    });
    w = await watch(net.url, 'zigbee2mqtt/#');
  });
  after(async () => {
    await w?.client.endAsync();
    await net?.stop();
  });

  it('publishes retained bridge/state, bridge/info, bridge/devices and availability', async () => {
    assert.match(net.url, /^mqtt:\/\/opencube:[\w-]{32}@127\.0\.0\.1:\d+$/, 'credentials generated at start');
    const state = await w.next((m) => m.topic === 'zigbee2mqtt/bridge/state');
    assert.deepEqual(state.json, { state: 'online' });
    const info = await w.next((m) => m.topic === 'zigbee2mqtt/bridge/info');
    assert.equal(info.json.permit_join, false);
    const devices = await w.next((m) => m.topic === 'zigbee2mqtt/bridge/devices');
    assert.ok(devices.retain);
    assert.equal(devices.json.length, 17);
    assert.equal(devices.json[0].type, 'Coordinator');
    for (const d of devices.json.slice(1)) {
      assert.equal(d.interview_state, 'SUCCESSFUL');
      assert.ok(Array.isArray(d.definition.exposes));
      await w.next((m) => m.topic === `zigbee2mqtt/${d.friendly_name}/availability` && m.json.state === 'online');
    }
  });

  it('reports plausible changing sensor values on a schedule', async () => {
    const sensor = net
      .sim()
      .list()
      .find((d) => d.fixture.model === 'WSDCGQ11LM');
    assert.ok(sensor);
    const first = await w.next(
      (m) => m.topic === `zigbee2mqtt/${sensor.friendly}` && typeof m.json?.temperature === 'number',
    );
    const changed = await w.next(
      (m) =>
        m.topic === `zigbee2mqtt/${sensor.friendly}` &&
        typeof m.json?.temperature === 'number' &&
        m.json.temperature !== first.json.temperature,
    );
    assert.ok(changed.json.temperature >= 15 && changed.json.temperature <= 30);
    assert.ok(changed.json.humidity >= 0 && changed.json.humidity <= 100);
  });

  it('answers /set by changing state and republishing it, and logs keys it cannot convert', async () => {
    const plug = net
      .sim()
      .list()
      .find((d) => d.fixture.model === 'ZNCZ02LM');
    assert.ok(plug);
    w.client.publish(`zigbee2mqtt/${plug.friendly}/set`, JSON.stringify({ state: 'on' }));
    const on = await w.next((m) => m.topic === `zigbee2mqtt/${plug.friendly}` && m.json?.state === 'ON');
    assert.ok(on.json.power > 0, 'a plug switched on reports its load');
    w.client.publish(`zigbee2mqtt/${plug.friendly}/set`, JSON.stringify({ colour: 'blue' }));
    const log = await w.next(
      (m) =>
        m.topic === 'zigbee2mqtt/bridge/logging' &&
        /^z2m: No converter available for 'set' 'colour'/.test(m.json?.message),
    );
    assert.equal(log.json.level, 'error');
  });

  it('answers permit_join with its transaction, then a device joins with an interview', async () => {
    w.client.publish('zigbee2mqtt/bridge/request/permit_join', JSON.stringify({ time: 20, transaction: 'abc' }));
    const res = await w.next((m) => m.topic === 'zigbee2mqtt/bridge/response/permit_join');
    assert.deepEqual(res.json, { data: { time: 20 }, status: 'ok', transaction: 'abc' });
    const joined = await w.next((m) => m.topic === 'zigbee2mqtt/bridge/event' && m.json.type === 'device_joined');
    const ieee = joined.json.data.ieee_address;
    const done = await w.next(
      (m) =>
        m.topic === 'zigbee2mqtt/bridge/event' &&
        m.json.type === 'device_interview' &&
        m.json.data.status === 'successful',
    );
    assert.equal(done.json.data.ieee_address, ieee);
    assert.ok(done.json.data.definition.exposes.length > 0);
    w.client.publish('zigbee2mqtt/bridge/request/permit_join', JSON.stringify({ time: 0 }));
    await w.next(
      (m) =>
        m.topic === 'zigbee2mqtt/bridge/info' &&
        m.json.permit_join === false &&
        w.msgs.indexOf(m) > w.msgs.indexOf(done),
    );
  });

  it('answers device/remove, with an error for an unknown device', async () => {
    w.client.publish('zigbee2mqtt/bridge/request/device/remove', JSON.stringify({ id: '0xdeadbeef', transaction: 7 }));
    const res = await w.next(
      (m) => m.topic === 'zigbee2mqtt/bridge/response/device/remove' && m.json.transaction === 7,
    );
    assert.equal(res.json.status, 'error');
    assert.match(res.json.error, /does not exist/);
  });

  it('holds 200 devices for the benchmark', async () => {
    const big = await startSimNetwork({ baseTopics: ['big'], devices: 200, sim: { reportIntervalMs: 0 } });
    try {
      const b = await watch(big.url, 'big/bridge/devices');
      const devices = await b.next(() => true);
      assert.equal(devices.json.length, 201);
      await b.client.endAsync();
    } finally {
      await big.stop();
    }
  });
});

describe('the gateway in its default sim mode', () => {
  it('comes up with the simulated devices of every family', async () => {
    const g = await startGateway({ overrides: { zigbee: { mode: 'sim', sim_devices: 16 } } });
    try {
      const token = await g.linkToken();
      let devices: any[] = [];
      const end = Date.now() + 15_000;
      while (devices.length < 16 && Date.now() < end) {
        devices = await listDevices(g.url, token);
        if (devices.length < 16) await new Promise((r) => setTimeout(r, 25));
      }
      assert.equal(devices.length, 16);
      const categories = new Set(devices.map((d) => d.display_category));
      for (const c of SIM_CATEGORIES) assert.ok(categories.has(c), `category ${c}`);
    } finally {
      await g.stop();
    }
  });
});

describe('what the simulated devices report on their own', () => {
  it('motion flips now and then; doors, tampers, smoke, gas and leaks never (an armed Home mode or the alarm unarmed would ring)', () => {
    const flipped = new Set<string>();
    const rand = seeded(7);
    for (const fixture of loadFixtures()) {
      const props = simProperties(fixture.exposes);
      let state = initialState(props, rand);
      for (let step = 0; step < 500; step++) {
        const change = drift(props, state, rand);
        for (const [k, v] of Object.entries(change)) if (typeof v === 'boolean' && v !== state[k]) flipped.add(k);
        state = { ...state, ...change };
      }
    }
    for (const quiet of ['smoke', 'gas', 'water_leak', 'contact', 'tamper'])
      assert.equal(flipped.has(quiet), false, `${quiet} flipped`);
    assert.ok(flipped.has('occupancy'), 'occupancy never flipped');
  });
});

describe('plausible histories: what the simulated sensors report over days', () => {
  const fixture = (model: string) => {
    const f = loadFixtures().find((x) => x.model === model);
    assert.ok(f, model);
    return f;
  };
  /** Drifts a device every 15 s for `hours` from a local midnight; returns (local hour, state) after each step. */
  const run = (model: string, hours: number, start: Record<string, unknown> = {}) => {
    const props = simProperties(fixture(model).exposes);
    const rand = seeded(11);
    let state: Record<string, unknown> = { ...initialState(props, rand), ...start };
    const memory = {};
    const midnight = new Date(2025, 0, 6).getTime();
    const out: { hour: number; state: Record<string, unknown> }[] = [];
    for (let t = midnight; t < midnight + hours * 3_600_000; t += 15_000) {
      state = { ...state, ...drift(props, state, rand, { now: t, memory }) };
      out.push({ hour: new Date(t).getHours(), state });
    }
    return out;
  };
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

  it('temperatures follow the day (warmer in the afternoon than before dawn), humidity the other way, light the sun', () => {
    const climate = run('WSDCGQ11LM', 48);
    const at = (hours: number[], key: string) =>
      mean(climate.filter((x) => hours.includes(x.hour)).map((x) => x.state[key] as number));
    assert.ok(at([14, 15, 16], 'temperature') > at([2, 3, 4], 'temperature') + 1.5);
    assert.ok(at([14, 15, 16], 'humidity') < at([2, 3, 4], 'humidity') - 5);
    assert.ok(climate.every((x) => (x.state.temperature as number) >= 15 && (x.state.temperature as number) <= 30));
    const changes = climate.filter((x, i) => i > 0 && x.state.temperature !== climate[i - 1]?.state.temperature);
    assert.ok(changes.length > climate.length / 4, 'a reading moves most of the time: charts fill in');
    const light = run('RTCGQ11LM', 24);
    const lux = (hours: number[]) =>
      mean(light.filter((x) => hours.includes(x.hour)).map((x) => x.state.illuminance as number));
    assert.ok(lux([11, 12, 13]) > 200 && lux([0, 1, 2]) < 30, `${lux([11, 12, 13])} ${lux([0, 1, 2])}`);
  });

  it("has a plug's power follow its switch and its energy count that power over time", () => {
    const on = run('ZNCZ02LM', 2, { state: 'ON', power: 60, energy: 3 });
    const powers = on.map((x) => x.state.power as number);
    assert.ok(
      powers.every((p) => p > 50 && p < 70),
      'around its load while on',
    );
    // Two hours at about 60 W: about 0.12 kWh more.
    const used = (on.at(-1)?.state.energy as number) - 3;
    assert.ok(used > 0.1 && used < 0.14, `${used} kWh`);
    const off = run('ZNCZ02LM', 2, { state: 'OFF', power: 60, energy: 3 });
    assert.ok(off.slice(1).every((x) => x.state.power === 0));
    assert.equal(off.at(-1)?.state.energy, 3);
  });

  it('runs batteries down, never up', () => {
    const month = run('WSDCGQ11LM', 30 * 24);
    const levels = month.map((x) => x.state.battery as number);
    assert.ok(levels.every((b, i) => i === 0 || b <= (levels[i - 1] as number)));
    assert.ok((levels[0] as number) - (levels.at(-1) as number) >= 5, 'about 1% every three days');
  });
});
