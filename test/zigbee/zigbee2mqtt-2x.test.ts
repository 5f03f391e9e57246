/**
 * What real Zigbee2MQTT 2.x does that the first driver did not follow (issue 8, points 1-5), on
 * the simulated network, which now behaves as Zigbee2MQTT 2.14 does (test/z2m/OBSERVED.md): the
 * failure line of a set, the order of a leave, state not retained, the instance going offline,
 * and the topics the gateway reads. The contract test runs the same against real Zigbee2MQTT.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type SimNetwork, startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { call, listDevices, rest, startGateway, type TestGateway, waitForValue } from '../helpers/foundation.ts';
import { type EventStream, openEvents } from '../helpers/sse.ts';

let net: SimNetwork;
let g: TestGateway;
let token: string;
let events: EventStream;

const device = async (model: string) => {
  const simDev = net
    .sim()
    .list()
    .find((d) => d.fixture.model === model);
  assert.ok(simDev, model);
  const d = await waitForValue(async () =>
    (await listDevices(g.url, token)).find((x) => x.model === model && x.name === simDev.friendly),
  );
  return { ...d, ieee: simDev.ieee, sim: simDev };
};
const put = (serial: string, body: unknown) => call(g.url, 'PUT', rest('v2', `devices/${serial}`), { token, body });

before(async () => {
  net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: 16,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50 },
  });
  g = await startGateway({ overrides: { zigbee: { mode: 'z2m', mqtt_url: net.url, base_topics: 'zigbee2mqtt' } } });
  token = await g.linkToken();
  events = await openEvents(g.url, token);
  await waitForValue(async () => ((await listDevices(g.url, token)).length === 16 ? true : undefined));
});

after(async () => {
  events?.close();
  await g?.stop();
  await net?.stop();
});

describe('Zigbee2MQTT 2.x as it really behaves', () => {
  it('reads the state of mains-powered devices back after connecting, as Zigbee2MQTT retains none', async () => {
    const light = await device('LED1836G9');
    const shown = await waitForValue(async () => {
      const d = (await listDevices(g.url, token)).find((x) => x.serial_number === light.serial_number);
      return d?.state.brightness ? d.state : undefined;
    });
    assert.deepEqual(shown.power, { powerState: light.sim.state.state === 'ON' ? 'on' : 'off' });
  });

  it('answers a failed set at once with the reason Zigbee2MQTT 2.x logs (z2m: prefix, converter key)', async () => {
    const sw = await device('QBKG24LM');
    sw.sim.failSet = true;
    try {
      const r = await put(sw.serial_number, { state: { toggle: { '2': { toggleState: 'on' } } } });
      assert.equal(r.json.error, 110006, r.text);
      // The reason is Zigbee2MQTT's own, not the gateway's timeout.
      assert.match(r.json.message, /^Zigbee2MQTT: .*Timeout/);
    } finally {
      sw.sim.failSet = false;
    }
  });

  it('keeps a device that leaves by itself, offline, although Zigbee2MQTT drops it from its list first; D5 then removes it', async () => {
    const leak = await device('SJCGQ11LM');
    const before = events.events.length;
    net.sim().leave(leak.ieee);
    await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === leak.serial_number &&
        e.data.payload.online === false,
    );
    const kept = (await listDevices(g.url, token)).find((x) => x.serial_number === leak.serial_number);
    assert.equal(kept?.online, false);
    assert.equal(events.events.slice(before).filter((e) => e.type === 'deleteDevice').length, 0);
    const removed = await call(g.url, 'DELETE', rest('v2', `devices/${leak.serial_number}`), { token });
    assert.equal(removed.json.error, 0, removed.text);
    await events.waitFor((e) => e.type === 'deleteDevice' && e.data.endpoint.serial_number === leak.serial_number);
  });

  it('takes every device offline when Zigbee2MQTT goes away (bridge/state offline), answers 110005 at once, and brings them back', async () => {
    const plug = await device('ZNCZ02LM');
    const before = events.events.length;
    net.sim().setInstanceOnline(false);
    await events.waitFor(
      (e) =>
        events.events.indexOf(e) >= before &&
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === plug.serial_number &&
        e.data.payload.online === false,
    );
    const all = await listDevices(g.url, token);
    assert.ok(
      all.every((d) => d.online === false),
      'every device of the instance is offline',
    );
    const r = await put(plug.serial_number, { state: { power: { powerState: 'on' } } });
    assert.equal(r.json.error, 110005, r.text);
    // Changed while the gateway could not see it: read back when the instance returns.
    net.sim().device(plug.ieee)!.state.state = 'ON';
    net.sim().setInstanceOnline(true);
    await events.waitFor(
      (e) =>
        e.type === 'updateDeviceOnline' &&
        e.data.endpoint.serial_number === plug.serial_number &&
        e.data.payload.online === true,
    );
    const back = await waitForValue(async () => {
      const d = (await listDevices(g.url, token)).find((x) => x.serial_number === plug.serial_number);
      return d?.state.power?.powerState === 'on' ? d : undefined;
    });
    assert.equal(back.online, true);
  });

  it('reads only the topics it uses: no bridge/definitions, no wildcard over device topics', () => {
    const subs = [...net.broker.subscriptions()].find(([id]) => id.startsWith('opencube-'))?.[1] ?? [];
    assert.ok(subs.length > 0);
    assert.ok(!subs.includes('zigbee2mqtt/#'), 'no wildcard over the whole base topic');
    assert.ok(!subs.some((t) => t.includes('definitions')), 'bridge/definitions is not read');
    for (const t of ['state', 'info', 'devices', 'event', 'logging', 'response/#'])
      assert.ok(subs.includes(`zigbee2mqtt/bridge/${t}`), t);
    const light = net
      .sim()
      .list()
      .find((d) => d.fixture.model === 'LED1836G9')!;
    assert.ok(subs.includes(`zigbee2mqtt/${light.friendly}`));
    assert.ok(subs.includes(`zigbee2mqtt/${light.friendly}/availability`));
  });

  it('reads back what changed while the gateway was stopped, and serves the stored state while a device cannot answer', async () => {
    const light = await device('LED2201G8');
    const r = await put(light.serial_number, { state: { brightness: { brightness: 40 } } });
    assert.equal(r.json.error, 0, r.text);
    events.close();
    // While the gateway is stopped the bulb changes (not retained: nobody hears it) and drops off the network.
    net.sim().device(light.ieee)!.state.brightness = 254;
    net.sim().setOnline(light.ieee, false);
    g = await g.restart();
    token = await g.linkToken();
    events = await openEvents(g.url, token);
    const offline = await waitForValue(async () => {
      const d = (await listDevices(g.url, token)).find((x) => x.serial_number === light.serial_number);
      return d?.online === false ? d : undefined;
    });
    assert.equal(offline.state.brightness?.brightness, 40, 'the last known state, from the store');
    // Back on the network: read back at once.
    net.sim().setOnline(light.ieee, true);
    await waitForValue(async () => {
      const d = (await listDevices(g.url, token)).find((x) => x.serial_number === light.serial_number);
      return d?.online && d.state.brightness?.brightness === 100 ? d : undefined;
    });
  });
});
