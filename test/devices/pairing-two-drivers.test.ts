/**
 * D1 is routed by `type` to every driver that pairs it (src/core/devices/service.ts): with two
 * Zigbee networks behind one gateway (a Zigbee2MQTT, here the simulated one, and a coordinator of
 * the gateway's own, here the fake coordinator), one request opens joining on both, a device
 * joins each, and one request closes both. Real drivers, a real registry on SQLite.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import { DeviceRegistry, DeviceService } from '../../src/core/devices/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { createHerdsman } from '../../src/drivers/herdsman/index.ts';
import { startSimNetwork } from '../../src/drivers/zigbee-sim/index.ts';
import { Zigbee2MqttDriver } from '../../src/drivers/zigbee2mqtt/index.ts';
import { openDb } from '../../src/store/db.ts';
import { eventually, tempDir, testSettings } from '../helpers/foundation.ts';
import { herdsmanSetup } from '../herdsman/harness.ts';
import { CONTACT_SENSOR, FAKE_DEVICES } from '../z2m/fake/devices.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };

it('opens and closes joining on two Zigbee drivers at once, and each adds the device that joined it', async (t) => {
  const dir = tempDir('opencube-two-zigbee-');
  const db = openDb(join(dir, 'gateway.db'));
  const registry = new DeviceRegistry(db, new EventBus());
  const service = new DeviceService(registry, quiet);

  // Joins only while permit_join is open, one device per window.
  const net = await startSimNetwork({
    baseTopics: ['zigbee2mqtt'],
    devices: 2,
    sim: { reportIntervalMs: 0, joinDelayMs: 50, interviewMs: 50, joinsPerWindow: 1 },
  });
  const z2m = new Zigbee2MqttDriver({ url: net.url, baseTopics: ['zigbee2mqtt'], permitJoinSeconds: 30, log: quiet });
  const s = herdsmanSetup(FAKE_DEVICES);
  const herdsman = createHerdsman(testSettings(s.dataDir, s.overrides), quiet, s.driver);
  service.addDriver(z2m);
  service.addDriver(herdsman);
  t.after(async () => {
    await service.stop();
    await net.stop();
    s.net.close();
    db.close();
    rmSync(dir, { recursive: true, force: true });
    rmSync(s.dataDir, { recursive: true, force: true });
  });
  await service.start();
  const count = (driver: string) => registry.listByDriver(driver).length;
  await eventually(() => count(z2m.id) === 2 && count(herdsman.id) === 5, 20_000, 'the devices of both networks');
  assert.notEqual(z2m.id, herdsman.id);
  assert.deepEqual([z2m.pairing?.types, herdsman.pairing?.types], [['zigbee'], ['zigbee']]);

  assert.deepEqual(await service.setDiscovery('Zigbee', true), { ok: true });
  assert.equal(z2m.pairing?.discovering(), true, 'Zigbee2MQTT is joining');
  assert.equal(herdsman.pairing?.discovering(), true, 'the coordinator is joining');
  assert.equal(s.net.join(CONTACT_SENSOR.ieee).ok, true, 'the coordinator lets a device in');
  await eventually(() => count(z2m.id) === 3, 20_000, 'a device joined through Zigbee2MQTT');
  await eventually(
    () => registry.listByDriver(herdsman.id).some((d) => d.model === CONTACT_SENSOR.expectedModel),
    20_000,
    'the contact sensor joined through the coordinator',
  );

  assert.deepEqual(await service.setDiscovery('zigbee', false), { ok: true });
  assert.equal(z2m.pairing?.discovering(), false);
  assert.equal(herdsman.pairing?.discovering(), false);
  assert.equal(s.net.join().ok, false, 'the coordinator lets no device in any more');
});
