/**
 * The gateway's scenes in Home Assistant, against Debian's mosquitto on 127.0.0.1: each scene is a
 * scene entity of the gateway's own device (its config as Home Assistant documents scene.mqtt);
 * activating it runs the scene (the trace says by Home Assistant), a disabled or broken scene is
 * unavailable, a renamed one renamed, a removed one cleared at the broker, a bad activation
 * refused on the bridge's error topic, and Home Assistant's birth message publishes them again.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { call, rest, startGateway, type TestGateway } from '../helpers/foundation.ts';
import { HaClient } from './ha-client.ts';
import { checkConfig } from './ha-schema.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';

let mosquitto: Mosquitto;
let net: SimNetwork;
let g: TestGateway;
let token: string;
let ha: HaClient;
let light: string;

const OPEN = 'opencube/automations';
const api = async (method: string, path = '', body?: unknown) =>
  (await call(g.url, method, rest('v2', `${OPEN}${path}`), { token, ...(body === undefined ? {} : { body }) })).json;
const configTopic = (id: string) => `homeassistant/scene/opencube/scene_${id}/config`;
const availability = (id: string) => `opencube/bridge/scene_${id}/availability`;

async function power(): Promise<string | undefined> {
  const d = g.gateway.devices.registry.get(light);
  return (d?.state.power as { powerState?: string } | undefined)?.powerState;
}

async function until<T>(pred: () => Promise<T | undefined | false> | T | undefined | false, what: string): Promise<T> {
  const end = Date.now() + 15_000;
  for (;;) {
    const v = await pred();
    if (v) return v;
    if (Date.now() > end) throw new Error(`not in time: ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

before(async () => {
  mosquitto = await startMosquitto();
  net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: 12,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50 },
  });
  ha = await HaClient.connect(mosquitto.url);
  g = await startGateway({
    overrides: {
      zigbee: { mode: 'z2m', mqtt_url: net.url },
      homeassistant: { enabled: true, mqtt_url: mosquitto.url },
    },
  });
  token = await g.linkToken('ha-test');
  light = await until(
    () => g.gateway.devices.registry.list().find((d) => d.model === 'LED1836G9')?.serial_number,
    'the light',
  );
});

after(async () => {
  await ha?.close();
  await g?.stop();
  await net?.stop();
  await mosquitto?.stop();
});

describe('scenes in Home Assistant', () => {
  test('a scene is a scene entity of the gateway device; activating it runs the scene, by Home Assistant', async () => {
    const r = await api('POST', '', {
      kind: 'scene',
      name: 'Reading light',
      actions: [{ type: 'device', device: light, state: { power: { powerState: 'on' } } }],
    });
    assert.equal(r.error, 0, JSON.stringify(r));
    const id = r.data.definition.id;
    const found = await ha.waitFor(() => ha.configs().find((c) => c.topic === configTopic(id)), 'the scene config');
    assert.equal(found.component, 'scene');
    assert.deepEqual(checkConfig('scene', found.config), []);
    assert.equal(found.config.name, 'Reading light');
    assert.deepEqual(found.config.device.identifiers, ['opencube_bridge'], "the gateway's own device");
    await ha.waitForState(availability(id), (p) => p === 'online');

    await ha.publish(found.config.command_topic, 'ON');
    await until(async () => (await power()) === 'on', 'the light on');
    const traces = await until(async () => {
      const t = (await api('GET', `/${id}/traces`)).data.traces;
      return t.length > 0 && t;
    }, 'the trace');
    assert.equal(traces[0].trigger.description, 'run by Home Assistant');
  });

  test('a disabled scene is unavailable, a renamed one renamed, a removed one cleared at the broker', async () => {
    const id = (
      await api('POST', '', {
        kind: 'scene',
        name: 'Movie',
        actions: [{ type: 'device', device: light, state: { power: { powerState: 'off' } } }],
      })
    ).data.definition.id;
    await ha.waitForState(availability(id), (p) => p === 'online');
    await api('POST', `/${id}/disable`);
    await ha.waitForState(availability(id), (p) => p === 'offline');
    await api('POST', `/${id}/enable`);
    await ha.waitForState(availability(id), (p) => p === 'online');
    const read = (await api('GET', `/${id}`)).data.definition;
    await api('PUT', `/${id}`, { ...read, name: 'Cinema' });
    await ha.waitFor(
      () => ha.configs().find((c) => c.topic === configTopic(id) && c.config.name === 'Cinema'),
      'renamed',
    );
    await api('DELETE', `/${id}`);
    await ha.waitFor(() => !ha.retained.has(configTopic(id)) && !ha.retained.has(availability(id)), 'cleared');
    // An automation is no scene entity.
    const auto = await api('POST', '', {
      kind: 'automation',
      name: 'At seven',
      triggers: [{ type: 'time', at: '07:00' }],
      actions: [{ type: 'notify', message: 'seven' }],
    });
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(ha.retained.has(configTopic(auto.data.definition.id)), false);
  });

  test('a bad activation is refused on the bridge error topic; a broken scene is unavailable and refused', async () => {
    const from = ha.log.length;
    await ha.publish('opencube/bridge/scene_000000000000/set', 'ON');
    const unknown = await ha.waitForMessage((m) => m.topic === 'opencube/bridge/error', 'the refusal', from);
    assert.equal(JSON.parse(unknown.payload).message, 'no scene or automation has id "000000000000"');
    const id = (
      await api('POST', '', {
        kind: 'scene',
        name: 'Heater',
        actions: [{ type: 'device', device: light, state: { power: { powerState: 'on' } } }],
      })
    ).data.definition.id;
    const at = ha.log.length;
    await ha.publish(`opencube/bridge/scene_${id}/set`, 'OFF');
    const wrong = await ha.waitForMessage((m) => m.topic === 'opencube/bridge/error', 'the refusal', at);
    assert.equal(JSON.parse(wrong.payload).message, 'payload: a scene takes ON');

    assert.ok((await g.gateway.devices.remove(light)).ok);
    await ha.waitForState(availability(id), (p) => p === 'offline');
    const then = ha.log.length;
    await ha.publish(`opencube/bridge/scene_${id}/set`, 'ON');
    const broken = await ha.waitForMessage((m) => m.topic === 'opencube/bridge/error', 'the refusal', then);
    assert.match(JSON.parse(broken.payload).message, /^it is broken: actions\.0\.device: no device has serial_number/);
  });

  test("Home Assistant's birth message publishes every scene again", async () => {
    const id = (
      await api('POST', '', { kind: 'scene', name: 'Birth', actions: [{ type: 'notify', message: 'hello' }] })
    ).data.definition.id;
    await ha.waitFor(() => ha.retained.has(configTopic(id)), 'the scene');
    const from = ha.log.length;
    await ha.publish('homeassistant/status', 'online');
    await ha.waitForMessage((m) => m.topic === configTopic(id), 'the scene again', from);
    await ha.waitForMessage(
      (m) => m.topic === availability(id) && m.payload === 'online',
      'its availability again',
      from,
    );
  });
});
