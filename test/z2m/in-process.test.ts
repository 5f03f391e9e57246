/**
 * The fake coordinator in-process, under this project's own zigbee-herdsman (10.9.5): the same
 * class the Zigbee2MQTT process preloads answers herdsman's controller directly (database,
 * interview, ZCL commands and reads, failures, leaves), as a herdsman driver will use it.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Controller, setLogger } from 'zigbee-herdsman';
import { herdsmanDatabase } from './fake/database.ts';
import { COLOUR_LIGHT, CONTACT_SENSOR, FAKE_DEVICES, TWO_GANG_SWITCH } from './fake/devices.ts';
import { loadHerdsman } from './fake/herdsman.ts';
import { FakeZigbeeNetwork } from './fake/network.ts';

const quiet = () => {};
setLogger({ debug: quiet, info: quiet, warning: quiet, error: quiet });

describe("the fake coordinator under the project's zigbee-herdsman", () => {
  const herdsman = loadHerdsman(dirname(createRequire(import.meta.url).resolve('zigbee-herdsman/package.json')));
  const originalCreate = herdsman.adapter.Adapter.create;
  const dir = mkdtempSync(join(tmpdir(), 'opencube-fake-zh-'));
  const net = new FakeZigbeeNetwork({ zh: herdsman, devices: FAKE_DEVICES, noAnswerMs: 100, coverStepMs: 10 });
  let controller: Controller;

  before(async () => {
    writeFileSync(join(dir, 'database.db'), herdsmanDatabase(FAKE_DEVICES, herdsman));
    herdsman.adapter.Adapter.create = async (network) => net.createAdapter(network as never);
    controller = new Controller({
      network: { panID: 0x1a62, channelList: [15] },
      serialPort: { path: '/dev/fake-zigbee-coordinator', adapter: 'zstack' },
      databasePath: join(dir, 'database.db'),
      databaseBackupPath: join(dir, 'database.db.backup'),
      backupPath: join(dir, 'coordinator_backup.json'),
      adapter: { disableLED: false },
      acceptJoiningDeviceHandler: async () => true,
    });
    assert.equal(await controller.start(), 'resumed');
  });

  after(async () => {
    await controller?.stop();
    herdsman.adapter.Adapter.create = originalCreate;
    net.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('starts with the paired devices from the database and the coordinator it asked for', () => {
    const paired = FAKE_DEVICES.filter((d) => d.paired).map((d) => d.ieee);
    const known = controller.getDevices().map((d) => d.ieeeAddr);
    for (const ieee of paired) assert.ok(known.includes(ieee), `${ieee} is known`);
    assert.equal(controller.getDevicesByType('Coordinator')[0]?.ieeeAddr, net.coordinatorIeee);
    assert.equal(controller.getDeviceByIeeeAddr(CONTACT_SENSOR.ieee), undefined);
  });

  it('switches the light on with a ZCL command and reads back its attributes', async () => {
    const ep = controller.getDeviceByIeeeAddr(COLOUR_LIGHT.ieee)?.getEndpoint(11);
    assert.ok(ep);
    await ep.command('genOnOff', 'on', {});
    assert.equal(net.must(COLOUR_LIGHT.ieee).attributes(11, 'genOnOff').onOff, 1);
    await ep.command('genLevelCtrl', 'moveToLevelWithOnOff', { level: 42, transtime: 0 });
    assert.deepEqual(await ep.read('genLevelCtrl', ['currentLevel']), { currentLevel: 42 });
    await ep.write('genOnOff', { startUpOnOff: 0 });
    assert.deepEqual(await ep.read('genOnOff', ['onOff', 'startUpOnOff']), { onOff: 1, startUpOnOff: 0 });
  });

  it('answers a read of an attribute the device lacks with UNSUPPORTED_ATTRIBUTE', async () => {
    const ep = controller.getDeviceByIeeeAddr(TWO_GANG_SWITCH.ieee)?.getEndpoint(2);
    assert.ok(ep);
    await assert.rejects(ep.read('genOnOff', ['onTime']), /UNSUPPORTED_ATTRIBUTE/);
  });

  it('fails the next request when asked to, and answers the one after', async () => {
    const ep = controller.getDeviceByIeeeAddr(TWO_GANG_SWITCH.ieee)?.getEndpoint(1);
    assert.ok(ep);
    net.failNext(TWO_GANG_SWITCH.ieee);
    await assert.rejects(ep.command('genOnOff', 'on', {}), /Timeout/);
    assert.equal(net.must(TWO_GANG_SWITCH.ieee).attributes(1, 'genOnOff').onOff, 0);
    await ep.command('genOnOff', 'on', {});
    assert.equal(net.must(TWO_GANG_SWITCH.ieee).attributes(1, 'genOnOff').onOff, 1);
  });

  it('keeps a failure asked for on one cluster for a request on that cluster', async () => {
    const ep = controller.getDeviceByIeeeAddr(TWO_GANG_SWITCH.ieee)?.getEndpoint(1);
    assert.ok(ep);
    net.failNext(TWO_GANG_SWITCH.ieee, 1, 'genOnOff');
    assert.deepEqual(await ep.read('genBasic', ['modelId']), { modelId: '2CH-ZG-BOX-RELAY' });
    await assert.rejects(ep.command('genOnOff', 'off', {}), /Timeout/);
    await ep.command('genOnOff', 'off', {});
  });

  it('lets a device join only while joining is open, and herdsman interviews it', async () => {
    assert.deepEqual(net.join(CONTACT_SENSOR.ieee), { ok: false, reason: 'joining is not open' });
    await controller.permitJoin(30);
    const interviewed = new Promise<string>((resolve) => {
      controller.on('deviceInterview', (e) => {
        if (e.status !== 'started') resolve(`${e.status} ${e.device.modelID} ${e.device.type}`);
      });
    });
    assert.deepEqual(net.join(CONTACT_SENSOR.ieee), { ok: true, ieee: CONTACT_SENSOR.ieee });
    assert.equal(await interviewed, 'successful SNZB-04 EndDevice');
    // The interview enrolled the IAS zone with the coordinator's address.
    const zone = net.must(CONTACT_SENSOR.ieee).attributes(1, 'ssIasZone');
    assert.equal(zone.zoneState, 1);
    assert.equal(zone.iasCieAddr, net.coordinatorIeee);
    await controller.permitJoin(0);
  });

  it('tells herdsman when a device leaves by itself', async () => {
    const left = once(controller, 'deviceLeave');
    net.leave(TWO_GANG_SWITCH.ieee);
    const [event] = await left;
    assert.equal(event.ieeeAddr, TWO_GANG_SWITCH.ieee);
    assert.equal(controller.getDeviceByIeeeAddr(TWO_GANG_SWITCH.ieee), undefined);
  });
});
