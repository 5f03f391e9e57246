/**
 * Zigbee groups in Home Assistant, against Debian's mosquitto: a group is a device of the gateway
 * like any other, so the bridge discovers it as one entity of what its members share (a light of
 * two lights, a switch of a plug and a switch channel), Home Assistant switches the whole room
 * with one group command, the group's state follows its members (on while any is on), and a group
 * deleted leaves Home Assistant. The gateway runs in `z2m` mode on the simulated Zigbee2MQTT.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { call, listDevices, rest, startGateway, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { MqttRecorder } from '../z2m/recorder.ts';
import { HaClient } from './ha-client.ts';
import { type Mosquitto, startMosquitto } from './mosquitto.ts';

let mosquitto: Mosquitto;
let net: SimNetwork;
let g: TestGateway;
let token: string;
let ha: HaClient;
let zigbee: MqttRecorder;
let devices: any[];

const byModel = (model: string) => {
  const d = devices.find((x) => x.model === model);
  assert.ok(d, `the simulated network has a ${model}`);
  return d;
};
const ieeeOf = (serial: string) =>
  net
    .sim()
    .list()
    .find((d) => d.friendly === devices.find((x) => x.serial_number === serial)?.name)?.ieee as string;
const simState = (serial: string) => net.sim().device(ieeeOf(serial))?.state ?? {};

async function makeGroup(name: string, members: { serial_number: string; channel?: string }[]) {
  const r = await call(g.url, 'POST', rest('v2', 'zigbee/groups'), { token, body: { name, members } });
  assert.equal(r.json.error, 0, r.text);
  return r.json.data.group as { group: string; serial_number: string; id: number; name: string };
}

before(async () => {
  mosquitto = await startMosquitto();
  net = await startSimNetwork({ baseTopics: ['zigbee2mqtt'], devices: 16, sim: { reportIntervalMs: 0 } });
  zigbee = await MqttRecorder.start(net.url);
  ha = await HaClient.connect(mosquitto.url);
  g = await startGateway({
    overrides: {
      zigbee: { mode: 'z2m', mqtt_url: net.url },
      homeassistant: { enabled: true, mqtt_url: mosquitto.url },
    },
  });
  token = g.token('ha-groups');
  devices = await waitForValue(async () => {
    const list = await listDevices(g.url, token);
    return list.length >= 16 && list.every((d) => d.online) && list;
  }, 30_000);
});

after(async () => {
  await ha?.close();
  await g?.stop();
  await zigbee?.close();
  await net?.stop();
  await mosquitto?.stop();
});

describe('Zigbee groups in Home Assistant', () => {
  let room: { group: string; serial_number: string; id: number; name: string };

  test('a group of a dimmable and a colour light is one Home Assistant light under the gateway, with what both share', async () => {
    room = await makeGroup('Living room', [
      { serial_number: byModel('LED1836G9').serial_number },
      { serial_number: byModel('9290012573A').serial_number },
    ]);
    const light = await ha.waitFor(() => {
      const c = ha.deviceConfigs(room.serial_number).find((x) => x.component === 'light');
      return c?.config;
    }, 'the group as a light');
    assert.deepEqual(light.supported_color_modes, ['brightness'], 'both dim; only one has colour');
    assert.equal(light.device.name, 'Living room');
    assert.equal(light.device.model, 'Zigbee group');
    assert.equal(light.device.via_device, 'opencube_bridge');
    assert.deepEqual(ha.problems(), []);
  });

  test('Home Assistant switches the room with one group command: both lights on at 30 %, and the group light shows it', async () => {
    const light = ha.entity(room.serial_number, 'light').config;
    const from = zigbee.mark();
    await ha.publish(light.command_topic, JSON.stringify({ state: 'ON', brightness: 30 }));
    const a = byModel('LED1836G9').serial_number;
    const b = byModel('9290012573A').serial_number;
    await waitForValue(
      async () => [a, b].every((s) => simState(s).state === 'ON' && simState(s).brightness === Math.round(0.3 * 254)),
      15_000,
      'both lights on at 30 %',
    );
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'ON' && JSON.parse(p).brightness === 30);
    const sets = zigbee.since(from, (m) => m.topic.endsWith('/set'));
    assert.deepEqual(
      sets.map((m) => m.topic),
      ['zigbee2mqtt/Living room/set'],
      'one publish to the group, none to its members',
    );
  });

  test("the group stays on while one member is on (Zigbee2MQTT's rule), and is off once both are", async () => {
    const light = ha.entity(room.serial_number, 'light').config;
    const put = (serial: string, state: Record<string, unknown>) =>
      call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body: { state } });
    const [a, b] = [byModel('LED1836G9').serial_number, byModel('9290012573A').serial_number];
    assert.equal((await put(a, { power: { powerState: 'off' } })).json.error, 0);
    // The other one dimmed: the group shows it, on (its brightness is that of the first member on).
    assert.equal((await put(b, { brightness: { brightness: 60 } })).json.error, 0);
    await ha.waitForState(
      light.state_topic,
      (p) => JSON.parse(p).state === 'ON' && JSON.parse(p).brightness === 60,
      'the group on at the brightness of the member that is on',
    );
    assert.equal(simState(a).state, 'OFF');
    assert.equal((await put(b, { power: { powerState: 'off' } })).json.error, 0);
    await ha.waitForState(light.state_topic, (p) => JSON.parse(p).state === 'OFF', 'the group off');
  });

  test('a group of a plug and one channel of a two-gang switch is a Home Assistant switch', async () => {
    const mixed = await makeGroup('Sockets', [
      { serial_number: byModel('ZNCZ02LM').serial_number },
      { serial_number: byModel('QBKG24LM').serial_number, channel: '1' },
    ]);
    const sw = await ha.waitFor(
      () => ha.deviceConfigs(mixed.serial_number).find((x) => x.component === 'switch')?.config,
      'the group as a switch',
    );
    assert.equal(ha.deviceConfigs(mixed.serial_number).filter((x) => x.component === 'light').length, 0);
    await ha.publish(sw.command_topic, 'ON');
    await waitForValue(
      async () => simState(byModel('ZNCZ02LM').serial_number).state === 'ON',
      15_000,
      'the plug on through the group',
    );
    assert.deepEqual(ha.problems(), []);
  });

  test('a group deleted through the API leaves Home Assistant', async () => {
    const topics = ha.deviceConfigs(room.serial_number).map((c) => c.topic);
    assert.ok(topics.length > 0);
    const r = await call(g.url, 'DELETE', rest('v2', `zigbee/groups/${encodeURIComponent(room.group)}`), { token });
    assert.equal(r.json.error, 0, r.text);
    await ha.waitFor(() => topics.every((t) => !ha.retained.has(t)), 'every config of the group removed');
  });
});
