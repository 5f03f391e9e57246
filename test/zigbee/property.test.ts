/**
 * The gateway under random and mutated Zigbee2MQTT messages: a fuzzing MQTT client publishes
 * device states, availability (both forms), bridge/devices, bridge/event, bridge/info,
 * bridge/logging and bridge/response/* onto the broker of the simulated network, on the
 * simulator's own base topic (for devices other than two kept healthy) and on a second base topic
 * the gateway also follows (where anything goes, bridge/devices included). After every batch the
 * gateway answers D3 with an envelope, its registry is consistent, and D4 to a healthy device works.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import mqtt, { type MqttClient } from 'mqtt';
import { sanitizeReport, validateCapabilities } from '../../src/catalog/index.ts';
import { loadFixtures, type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { initialState, seeded, simProperties } from '../../src/drivers/zigbee-sim/values.ts';
import { ACCESS_GET, exposeLeaves } from '../../src/zigbee/index.ts';
import { call, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { mutate } from '../helpers/fuzz.ts';

const MAIN = 'zigbee2mqtt';
const FUZZ = 'fuzz';

interface Dev {
  serial_number: string;
  name: string;
  model: string;
  online: boolean;
  protocol?: string;
  state: Record<string, any>;
  capabilities: any[];
  [k: string]: unknown;
}

describe('Zigbee under random and mutated Zigbee2MQTT messages', () => {
  let net: SimNetwork;
  let g: TestGateway;
  let token: string;
  let fuzzer: MqttClient;

  before(async () => {
    net = await startSimNetwork({ baseTopics: [MAIN], devices: 16, sim: { reportIntervalMs: 0 } });
    g = await startGateway({
      overrides: { zigbee: { mode: 'z2m', mqtt_url: net.url, base_topics: `${MAIN},${FUZZ}` } },
    });
    token = await g.linkToken('fuzz');
    fuzzer = await mqtt.connectAsync(net.url, { reconnectPeriod: 0 });
  });
  after(async () => {
    await fuzzer?.endAsync(true);
    await g?.stop();
    await net?.stop();
  });

  const list = async (): Promise<Dev[]> => {
    const r = await call(g.url, 'GET', '/open-api/v2/rest/devices', { token });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json?.error, 0, r.text);
    assert.ok(Array.isArray(r.json.data?.device_list), r.text);
    return r.json.data.device_list;
  };

  test('stays alive and consistent, and keeps controlling a healthy device', async () => {
    const sim = net.sim(MAIN);
    const simDevices = sim.list();
    const plug = simDevices.find((d) => d.fixture.model === 'ZNCZ02LM');
    const sensor = simDevices.find((d) => d.fixture.model === 'WSDCGQ11LM');
    assert.ok(plug && sensor);
    const victims = simDevices.filter((d) => d !== plug && d !== sensor);
    // Wait for the state the gateway reads back from the mains-powered devices (every answer
    // carries linkquality), so that no answer arrives in the middle of the fuzzing.
    const readable = (d: (typeof simDevices)[number]) =>
      d.fixture.type === 'Router' &&
      exposeLeaves(d.fixture.exposes).some((l) => ((l.expose.access ?? 0) & ACCESS_GET) !== 0);
    const routers = new Set(simDevices.filter(readable).map((d) => d.friendly));
    const ready = (ds: Dev[]) =>
      ds.length === simDevices.length && ds.every((d) => !routers.has(d.name) || d.state.lqi !== undefined);
    let devices: Dev[] = [];
    for (let i = 0; i < 400 && !ready(devices); i++) {
      devices = await list();
      if (!ready(devices)) await new Promise((r) => setTimeout(r, 25));
    }
    assert.ok(ready(devices), JSON.stringify(devices.map((d) => [d.name, Object.keys(d.state)])));
    const simSerials = new Set(devices.map((d) => d.serial_number));
    const plugSerial = devices.find((d) => d.name === plug.friendly)?.serial_number as string;
    const sensorSerial = devices.find((d) => d.name === sensor.friendly)?.serial_number as string;
    assert.ok(plugSerial && sensorSerial);

    // Valid messages to mutate: real definitions and states, with addresses and friendly names
    // that also collide with the simulator's (same IEEE address on another base topic) or hold slashes.
    const fixtures = loadFixtures();
    const ieees = ['0x00000000000000a1', '0x00000000000000a2', '0x00000000000000a3', plug.ieee, sensor.ieee];
    const names = ['lamp', 'room/lamp', 'a/b/c', plug.friendly, '0x00000000000000a3'];
    const states = fixtures.map((f) => initialState(simProperties(f.exposes), seeded(7)));
    const listEntry = (i: number, f: number, interviewed: boolean) => {
      const fx = fixtures[f % fixtures.length] as (typeof fixtures)[number];
      return {
        ieee_address: ieees[i % ieees.length],
        friendly_name: names[i % names.length],
        type: fx.type,
        interview_state: interviewed ? 'SUCCESSFUL' : 'IN_PROGRESS',
        definition: { model: fx.model, vendor: fx.vendor, description: fx.description, exposes: fx.exposes },
      };
    };
    const fuzzList = fc
      .array(fc.tuple(fc.nat(20), fc.nat(fixtures.length - 1), fc.boolean()), { maxLength: 6 })
      .map((xs) => [
        { ieee_address: '0x00124b0000000000', friendly_name: 'Coordinator', type: 'Coordinator', definition: null },
        ...xs.map(([i, f, ok]) => listEntry(i, f, ok)),
      ]);
    const event = fc.record({
      type: fc.constantFrom('device_leave', 'device_joined', 'device_interview', 'device_announce', 'x'),
      data: fc.record({
        ieee_address: fc.constantFrom(...ieees.slice(0, 3)),
        friendly_name: fc.constantFrom(...names),
      }),
    });
    const response = fc.record(
      {
        status: fc.constantFrom('ok', 'error', 5),
        error: fc.string(),
        data: fc.jsonValue({ maxDepth: 2 }),
        transaction: fc.oneof(fc.string(), fc.integer()),
      },
      { requiredKeys: [] },
    );
    const info = fc.record(
      { permit_join: fc.boolean(), permit_join_end: fc.oneof(fc.integer(), fc.string()) },
      { requiredKeys: [] },
    );
    const logging = fc.record({
      level: fc.constantFrom('error', 'info'),
      message: fc
        .constantFrom(...names, ...victims.map((v) => v.friendly))
        .map((n) => `Publish 'set' 'state' to '${n}' failed: x`),
    });
    const availability = fc.oneof(
      fc.constantFrom('online', 'offline', '"online"', ''),
      fc.constantFrom('online', 'offline').map((state) => JSON.stringify({ state })),
    );
    const state = fc.nat(states.length - 1).map((i) => states[i]);
    const oddValue = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom('constructor', '__proto__', 'toString', 1e308, -1e308, -1, 0, 255, 254, 100, 1000, null, [], {}),
    );
    /** A JSON payload: valid, mutated at a random path, or random. */
    const payload = (valid: fc.Arbitrary<unknown>) =>
      fc.oneof(
        { weight: 3, arbitrary: valid.map((v) => JSON.stringify(v)) },
        {
          weight: 4,
          arbitrary: fc
            .tuple(valid, fc.array(fc.nat(30), { minLength: 1, maxLength: 4 }), oddValue)
            .map(([v, path, value]) => JSON.stringify(mutate(v, path, value)) ?? ''),
        },
        { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v) ?? '') },
        { weight: 1, arbitrary: fc.oneof(fc.string(), fc.constantFrom('', '{', '[1,', 'null', '42', '"x"')) },
      );
    const victimName = fc.constantFrom(...victims.map((v) => v.friendly));
    const fuzzName = fc.constantFrom(...names, 'unknown device', '');
    const message: fc.Arbitrary<[string, string]> = fc.oneof(
      fc.tuple(fc.constant(`${FUZZ}/bridge/devices`), payload(fuzzList)),
      fc.tuple(fc.constantFrom(`${FUZZ}/bridge/event`, `${MAIN}/bridge/event`), payload(event)),
      fc.tuple(
        fc
          .constantFrom('permit_join', 'device/remove', 'device/rename', 'x')
          .map((r) => `${MAIN}/bridge/response/${r}`),
        payload(response),
      ),
      fc.tuple(fc.constantFrom(`${FUZZ}/bridge/info`, `${MAIN}/bridge/info`), payload(info)),
      fc.tuple(fc.constantFrom(`${FUZZ}/bridge/logging`, `${MAIN}/bridge/logging`), payload(logging)),
      fc.tuple(
        victimName.map((n) => `${MAIN}/${n}`),
        payload(state),
      ),
      fc.tuple(
        fuzzName.map((n) => `${FUZZ}/${n}`),
        payload(state),
      ),
      fc.tuple(
        victimName.map((n) => `${MAIN}/${n}/availability`),
        availability,
      ),
      fc.tuple(
        fuzzName.map((n) => `${FUZZ}/${n}/availability`),
        availability,
      ),
      fc.tuple(
        fc.constantFrom(`${MAIN}/x/y/z`, `${FUZZ}/bridge`, `${FUZZ}/`, `${MAIN}/bridge/request/x`),
        payload(state),
      ),
    );

    let round = 0;
    let power = false;
    await fc.assert(
      fc.asyncProperty(fc.array(message, { minLength: 1, maxLength: 8 }), async (messages) => {
        for (const [topic, text] of messages) fuzzer.publish(topic, text);
        // A report from the same client after the batch: once it shows, the batch was handled.
        const temperature = (1000 + (++round % 1000)) / 100;
        fuzzer.publish(`${MAIN}/${sensor.friendly}`, JSON.stringify({ temperature }));
        let listed: Dev[] = [];
        for (let i = 0; i < 400; i++) {
          listed = await list();
          if (listed.find((d) => d.serial_number === sensorSerial)?.state.temperature?.temperature === temperature)
            break;
          await new Promise((r) => setTimeout(r, 5));
        }
        assert.equal(
          listed.find((d) => d.serial_number === sensorSerial)?.state.temperature?.temperature,
          temperature,
          'the gateway stopped reading Zigbee2MQTT',
        );
        // The registry is consistent: unique serials, complete devices, state that fits the capabilities.
        assert.equal(new Set(listed.map((d) => d.serial_number)).size, listed.length);
        assert.equal(listed.length, g.gateway.devices.registry.size);
        for (const d of listed) {
          for (const k of ['serial_number', 'name', 'manufacturer', 'model', 'firmware_version', 'display_category'])
            assert.equal(typeof d[k], 'string', `${k} of ${JSON.stringify(d)}`);
          assert.equal(d.protocol, 'zigbee');
          assert.equal(typeof d.online, 'boolean');
          const caps = validateCapabilities(d.capabilities);
          assert.ok(caps.ok, JSON.stringify(caps));
          assert.ok(d.state !== null && typeof d.state === 'object' && !Array.isArray(d.state));
          // The simulator's devices keep their definitions, so their state must fit them exactly.
          // (A device whose exposes change keeps the state of capabilities it no longer has.)
          if (!simSerials.has(d.serial_number)) continue;
          const clean = sanitizeReport(d.capabilities, d.state);
          assert.deepEqual(clean.warnings, [], `${d.name}: ${JSON.stringify(d.state)}`);
        }
        // D4 to a healthy device still works.
        power = !power;
        const r = await call(g.url, 'PUT', `/open-api/v2/rest/devices/${plugSerial}`, {
          token,
          body: { state: { power: { powerState: power ? 'on' : 'off' } } },
        });
        assert.equal(r.json?.error, 0, r.text);
        assert.equal(sim.device(plug.ieee)?.state.state, power ? 'ON' : 'OFF');
      }),
      { numRuns: 300 },
    );
  });
});
