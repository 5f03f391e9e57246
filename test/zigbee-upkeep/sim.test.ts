/**
 * Firmware updates, groups, bindings and the network map in `sim` mode: the Zigbee2MQTT driver on
 * the simulated Zigbee2MQTT, which answers the same bridge requests as real Zigbee2MQTT
 * (test/z2m/fidelity-upkeep.test.ts holds the two to the same answers); and the simulated network
 * remembering its groups, bindings and firmware across a restart, as a real one does.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Broker, loadFixtures, startBroker, Z2mSimulator } from '../../src/drivers/zigbee-sim/index.ts';
import { tempDir } from '../helpers/foundation.ts';
import { COLOUR_LIGHT, DIMMABLE_LIGHT } from '../z2m/fake/devices.ts';
import { MqttRecorder, on } from '../z2m/recorder.ts';
import { simulatedNetwork } from './backends.ts';
import { upkeepScenario } from './scenario.ts';

upkeepScenario('keeping the simulated Zigbee network healthy', simulatedNetwork);

describe('the simulated network remembers its groups, bindings and firmware across a restart', () => {
  let broker: Broker;
  let dir: string;
  let rec: MqttRecorder;
  const base = 'sim_remembers';
  const models = ['9290012573A', 'LED1836G9', 'E1524/E1810'].map((m) => loadFixtures().find((f) => f.model === m));
  const start = async () => {
    const sim = new Z2mSimulator({
      url: broker.url,
      baseTopic: base,
      devices: models.filter((m) => m !== undefined),
      reportIntervalMs: 0,
      otaStepMs: 1,
      stateFile: join(dir, 'network.json'),
    });
    await sim.start();
    return sim;
  };
  const ask = async (what: string, body: Record<string, unknown>) => {
    const from = rec.mark();
    await rec.publish(`${base}/bridge/request/${what}`, body);
    const r = (await rec.waitFor(on(`${base}/bridge/response/${what}`), from)).json as { status: string };
    assert.equal(r.status, 'ok', JSON.stringify(r));
  };

  before(async () => {
    broker = await startBroker();
    dir = tempDir('opencube-sim-');
    rec = await MqttRecorder.start(broker.url);
  });

  after(async () => {
    await rec?.close();
    await broker?.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('lists the same group, binding and installed firmware after it starts again', async () => {
    const sim = await start();
    const [light, bulb, remote] = sim.list();
    assert.ok(light && bulb && remote);
    await ask('group/add', { friendly_name: 'Hall' });
    await ask('group/members/add', { group: 'Hall', device: light.friendly });
    await ask('group/members/add', { group: 'Hall', device: bulb.friendly });
    await ask('device/bind', { from: remote.friendly, to: 'Hall', clusters: ['genOnOff'] });
    await ask('device/ota_update/update', { id: light.friendly });
    const before = { groups: sim.groups(), bindings: remote.bindings, firmware: light.firmware };
    await sim.stop();

    const again = await start();
    try {
      const [l, , r] = again.list();
      assert.deepEqual(
        { groups: again.groups(), bindings: r?.bindings, firmware: l?.firmware },
        JSON.parse(JSON.stringify(before)),
      );
      assert.equal(l?.firmware.updated, true, 'the update stays installed');
    } finally {
      await again.stop();
    }
  });
});

describe('groups after a factory reset of the gateway', () => {
  it('lists a group again, with the same serial number, once the device list is cleared (the network keeps its groups)', async () => {
    const b = await simulatedNetwork();
    try {
      const { rig } = b;
      for (const d of [COLOUR_LIGHT, DIMMABLE_LIGHT]) await rig.listed(b.ieee(d));
      const members = [COLOUR_LIGHT, DIMMABLE_LIGHT].map((d) => ({
        serial_number: rig.byIeee(b.ieee(d)).serial_number,
      }));
      const made = await rig.upkeep.createGroup({ name: 'Porch', members });
      assert.ok(made.ok, made.ok ? '' : made.message);
      const serial = made.value.serial_number as string;
      const from = rig.events.length;
      rig.registry.clear();
      await rig.waitFor('device#addDevice', (d) => d.payload.serial_number === serial, from);
      assert.equal(rig.registry.get(serial)?.name, 'Porch');
    } finally {
      await b.stop();
    }
  });
});
