/**
 * One device, two drivers: the same fake devices (test/z2m/fake/) paired behind the real
 * Zigbee2MQTT 2.14.1 (`z2m` mode, its own zigbee-herdsman-converters 26.105) and in `herdsman`
 * mode (this project's converters 26.112) give the same D3 record and the same stream events for
 * the same change. What legitimately differs is listed in DIFFERS, with why.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import mqtt from 'mqtt';
import { type Broker, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { call, listDevices, rest, startGateway, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';
import { COLOUR_LIGHT, FAKE_DEVICES, TWO_GANG_SWITCH } from '../z2m/fake/devices.ts';
import { type RealZigbee2mqtt, startRealZigbee2mqtt } from '../z2m/real-z2m.ts';
import { type HerdsmanSetup, herdsmanSetup, startHerdsmanGateway } from './harness.ts';

const PAIRED = FAKE_DEVICES.filter((d) => d.paired);

/**
 * The fields of a D3 record that differ by design:
 * - `serial_number`: each driver's own identifier of the device (`<base_topic>/<ieee>` behind
 *   Zigbee2MQTT, so that several instances can share a broker; the IEEE address in herdsman mode).
 * - `name`: a device not renamed in the gateway is named by Zigbee2MQTT's friendly name (these
 *   are set for the paired devices), and in herdsman mode by its model's description
 *   (docs/zigbee.md, "Moving between Zigbee2MQTT mode and herdsman mode").
 */
const DIFFERS = ['serial_number', 'name'] as const;

/** A D3 record without the fields that differ by design. */
function comparable(d: Record<string, unknown>): Record<string, unknown> {
  const out = { ...d };
  for (const k of DIFFERS) delete out[k];
  return out;
}

interface Side {
  g: TestGateway;
  token: string;
  events: EventStream;
}

describe('a device paired behind Zigbee2MQTT and in herdsman mode', () => {
  let broker: Broker;
  let z2m: RealZigbee2mqtt;
  let s: HerdsmanSetup;
  const sides: Record<'z2m' | 'herdsman', Side> = {} as never;

  const all = (side: Side) => listDevices(side.g.url, side.token);
  const allOnline = (side: Side) =>
    waitForValue(
      async () => {
        const l = await all(side);
        return l.length === PAIRED.length && l.every((d) => d.online) ? l : undefined;
      },
      60_000,
      'every paired device listed and online',
    );
  const open = async (g: TestGateway): Promise<Side> => {
    const token = g.token();
    return { g, token, events: await openEvents(g.url, token) };
  };

  before(async () => {
    broker = await startBroker();
    z2m = await startRealZigbee2mqtt({
      mqttUrl: broker.url,
      baseTopic: 'same_device',
      availabilityTimeoutSeconds: 3600,
    });
    sides.z2m = await open(
      await startGateway({
        overrides: { zigbee: { mode: 'z2m', mqtt_url: broker.url, base_topics: 'same_device' } },
      }),
    );
    s = herdsmanSetup(FAKE_DEVICES);
    sides.herdsman = await open(await startHerdsmanGateway(s));
  });

  after(async () => {
    for (const side of Object.values(sides)) {
      side.events.close();
      await side.g.stop();
    }
    await z2m?.stop();
    await broker?.close();
    s?.net.close();
  });

  it('gives every paired model the same D3 record: capabilities, category, tags, state, model and manufacturer', async () => {
    const [viaZ2m, viaHerdsman] = [await allOnline(sides.z2m), await allOnline(sides.herdsman)];
    // Sleeping devices are not read back, and Zigbee2MQTT configures one (reading its battery) only
    // once it hears from it, where herdsman mode does at start: each checks in on both sides first.
    const hooks = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
    for (const spec of PAIRED.filter((d) => d.type === 'EndDevice')) {
      const attributes = { batteryPercentageRemaining: 150 };
      await hooks.publishAsync(
        `${z2m.hookPrefix}/${spec.ieee}/report`,
        JSON.stringify({ cluster: 'genPowerCfg', attributes }),
        { qos: 1 },
      );
      s.net.report(spec.ieee, undefined, 'genPowerCfg', attributes);
    }
    await hooks.endAsync(true);
    for (const side of [sides.z2m, sides.herdsman])
      await waitForValue(
        async () => {
          const l = await all(side);
          const sleepers = PAIRED.filter((d) => d.type === 'EndDevice').map((d) =>
            l.find((x) => x.model === d.expectedModel),
          );
          const heard = (d: any) =>
            d && (d.state.battery !== undefined || !d.capabilities.some((c: any) => c.capability === 'battery'));
          return sleepers.every(heard) ? true : undefined;
        },
        10_000,
        'the sleeping devices heard',
      );
    // The state read back after the start takes a moment on both sides.
    await new Promise((r) => setTimeout(r, 500));
    const byModel = async (side: Side) => Object.fromEntries((await all(side)).map((d) => [d.model, comparable(d)]));
    const [a, b] = [await byModel(sides.z2m), await byModel(sides.herdsman)];
    assert.deepEqual(Object.keys(a).sort(), PAIRED.map((d) => d.expectedModel).sort());
    for (const spec of PAIRED) assert.deepEqual(b[spec.expectedModel], a[spec.expectedModel], spec.expectedModel);
    // The names follow their documented rules.
    for (const spec of PAIRED) {
      assert.equal(viaZ2m.find((d) => d.model === spec.expectedModel)?.name, spec.name);
      assert.notEqual(viaHerdsman.find((d) => d.model === spec.expectedModel)?.name, spec.name);
    }
  });

  it('sends the same events for the same change: a light switched on at 40 %, a switch channel turned on', async () => {
    const changes: [string, unknown][] = [
      [COLOUR_LIGHT.expectedModel, { power: { powerState: 'on' }, brightness: { brightness: 40 } }],
      [TWO_GANG_SWITCH.expectedModel, { toggle: { '2': { toggleState: 'on' } } }],
    ];
    for (const [model, state] of changes) {
      const seen: Record<string, unknown>[] = [];
      for (const side of [sides.z2m, sides.herdsman]) {
        const d = (await all(side)).find((x) => x.model === model);
        assert.ok(d, `${model} listed`);
        const mark = side.events.events.length;
        const r = await call(side.g.url, 'PUT', rest('v2', `devices/${d.serial_number}`), {
          token: side.token,
          body: { state },
        });
        assert.equal(r.json.error, 0, r.text);
        const wanted = Object.keys(state as object);
        // Both drivers may spread a change over several events: what they carry together is compared.
        const payload = await waitForValue(
          async () => {
            const merged: Record<string, unknown> = {};
            for (const e of side.events.events.slice(mark))
              if (e.type === 'updateDeviceState' && e.data.endpoint.serial_number === d.serial_number)
                Object.assign(merged, e.data.payload);
            return wanted.every((k) => merged[k] !== undefined) ? merged : undefined;
          },
          10_000,
          `the events of ${model}`,
        );
        seen.push(Object.fromEntries(wanted.map((k) => [k, payload[k]])));
      }
      assert.deepEqual(seen[1], seen[0], model);
    }
  });
});
