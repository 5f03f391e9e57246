/**
 * The Zigbee2MQTT driver at its edges: a bare MQTT client plays a broken or hostile Zigbee2MQTT
 * on a real broker (127.0.0.1), and the driver feeds a real device registry (SQLite store, event
 * bus). Each test uses its own base topic, so they do not see each other's devices.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import type { DeviceRecord } from '../../src/core/devices/contract.ts';
import { DeviceRegistry } from '../../src/core/devices/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { type Broker, loadFixtures, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { Zigbee2MqttDriver, type Zigbee2MqttOptions } from '../../src/drivers/zigbee2mqtt/index.ts';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/db.ts';
import type { ModelFixture } from '../../src/zigbee/exposes.ts';
import { eventually, tempDir } from '../helpers/foundation.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const fixtures = loadFixtures();
const fx = (model: string): ModelFixture => {
  const f = fixtures.find((x) => x.model === model);
  assert.ok(f, `fixture ${model}`);
  return f;
};

/** One bridge/devices entry of an interviewed device of the given model. */
function entry(ieee: string, model: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const f = fx(model);
  return {
    ieee_address: ieee,
    friendly_name: `dev ${ieee}`,
    type: f.type,
    interview_state: 'SUCCESSFUL',
    definition: { model: f.model, vendor: f.vendor, description: f.description, exposes: f.exposes },
    software_build_id: '1.0',
    ...extra,
  };
}

interface Harness {
  registry: DeviceRegistry;
  driver: Zigbee2MqttDriver;
  stop(): Promise<void>;
}

let broker: Broker;
let z2m: MqttClient;
const dirs: string[] = [];
const dbs: Db[] = [];

async function harness(base: string, opts: Partial<Zigbee2MqttOptions> = {}): Promise<Harness> {
  const dir = tempDir();
  dirs.push(dir);
  const db = openDb(join(dir, 'gateway.db'));
  dbs.push(db);
  const registry = new DeviceRegistry(db, new EventBus(1000, 1));
  const driver = new Zigbee2MqttDriver({
    url: broker.url,
    baseTopics: [base],
    permitJoinSeconds: 30,
    log: quiet,
    reconnectMinMs: 50,
    reconnectMaxMs: 200,
    ...opts,
  });
  await driver.start(registry);
  await eventually(() => driver.connected(), 10_000, 'the driver connected');
  return { registry, driver, stop: () => driver.stop() };
}

/** Publishes as Zigbee2MQTT does (JSON unless a string is given). */
async function publish(topic: string, value: unknown, retain = false): Promise<void> {
  await z2m.publishAsync(topic, typeof value === 'string' ? value : JSON.stringify(value), { retain, qos: 1 });
}

const devicesOf = (h: Harness, base: string): DeviceRecord[] =>
  h.registry.listByDriver('zigbee2mqtt').filter((d) => d.driver_ref.startsWith(`${base}/`));

before(async () => {
  broker = await startBroker();
  z2m = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
});
after(async () => {
  await z2m?.endAsync(true);
  await broker?.close();
  for (const db of dbs) db.close();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

describe('the Zigbee2MQTT driver with a broken or hostile Zigbee2MQTT', () => {
  it('adds the readable devices of a bridge/devices list that also holds unreadable entries, with string fields', async () => {
    const base = 'odd-list';
    const h = await harness(base);
    try {
      await publish(
        `${base}/bridge/devices`,
        [
          null,
          5,
          'x',
          [],
          { ieee_address: 7, friendly_name: 'n', type: 'Router', interview_state: 'SUCCESSFUL', definition: {} },
          entry('0x01', 'ZNCZ02LM', { friendly_name: { not: 'a string' } }),
          entry('0x02', 'ZNCZ02LM', { definition: 'garbage' }),
          entry('0x03', 'ZNCZ02LM', { definition: { model: 1, vendor: null, description: [], exposes: 'x' } }),
          entry('0x04', 'ZNCZ02LM', {
            definition: { ...(entry('0x04', 'ZNCZ02LM').definition as object), exposes: [null, 5] },
          }),
          entry('0x05', 'ZNCZ02LM', {
            software_build_id: 7,
            definition: { ...(entry('0x05', 'ZNCZ02LM').definition as object), vendor: 42, model: 9, description: {} },
          }),
          entry('0x06', 'LED1836G9'),
        ],
        true,
      );
      await eventually(() => devicesOf(h, base).some((d) => d.driver_ref === `${base}/0x06`), 5000, 'the good light');
      const refs = devicesOf(h, base).map((d) => d.driver_ref);
      assert.ok(refs.includes(`${base}/0x06`));
      assert.ok(refs.includes(`${base}/0x01`), 'a friendly name that is not a string is read as the IEEE address');
      for (const d of devicesOf(h, base))
        for (const k of ['name', 'manufacturer', 'model', 'firmware_version', 'display_category'] as const)
          assert.equal(typeof d[k], 'string', `${d.driver_ref} ${k}: ${JSON.stringify(d[k])}`);
      // The driver keeps reading the devices it could add.
      await publish(`${base}/dev 0x06`, { state: 'ON', brightness: 254 });
      await eventually(
        () => (h.registry.findByRef('zigbee2mqtt', `${base}/0x06`)?.state.power as any)?.powerState === 'on',
        5000,
        'the light reports',
      );
    } finally {
      await h.stop();
    }
  });

  it('commits one bridge/devices list in one store transaction', async () => {
    const base = 'one-commit';
    const h = await harness(base);
    try {
      let depth = 0;
      let outside = 0;
      const batch = h.registry.batch.bind(h.registry);
      h.registry.batch = <T>(fn: () => T): T => {
        depth++;
        try {
          return batch(fn);
        } finally {
          depth--;
        }
      };
      const found = h.registry.deviceFound.bind(h.registry);
      h.registry.deviceFound = (driver, a) => {
        if (depth === 0) outside++;
        return found(driver, a);
      };
      const list = Array.from({ length: 20 }, (_, i) => entry(`0x1${i}`, 'ZNCZ02LM'));
      await publish(`${base}/bridge/devices`, list, true);
      await eventually(() => devicesOf(h, base).length === 20, 5000, '20 devices');
      assert.equal(outside, 0, 'devices committed one by one');
    } finally {
      await h.stop();
    }
  });

  it('reads the state and availability that arrive before bridge/devices, in both availability forms', async () => {
    const base = 'early';
    const h = await harness(base);
    try {
      await publish(`${base}/dev 0x21`, { state: 'ON' }, true);
      await publish(`${base}/dev 0x21/availability`, 'offline', true);
      await publish(`${base}/dev 0x22/availability`, { state: 'offline' }, true);
      await publish(`${base}/bridge/devices`, [entry('0x21', 'ZNCZ02LM'), entry('0x22', 'ZNCZ02LM')], true);
      await eventually(() => devicesOf(h, base).length === 2, 5000, 'two devices');
      // Retained messages arrive once the driver reads the device's topics, after the list.
      const a = () => h.registry.findByRef('zigbee2mqtt', `${base}/0x21`);
      await eventually(
        () => a()?.state.power !== undefined && a()?.online === false,
        5000,
        'the retained state and availability',
      );
      assert.deepEqual(a()?.state.power, { powerState: 'on' });
      await eventually(() => h.registry.findByRef('zigbee2mqtt', `${base}/0x22`)?.online === false, 5000, 'offline');
      await publish(`${base}/dev 0x22/availability`, 'online');
      await eventually(() => h.registry.findByRef('zigbee2mqtt', `${base}/0x22`)?.online === true, 5000, 'online');
    } finally {
      await h.stop();
    }
  });

  it('keeps what it holds for unknown devices bounded (availability floods, leave events)', async () => {
    const base = 'flood';
    const h = await harness(base);
    try {
      const n = 10_100;
      for (let i = 0; i < n; i++) {
        z2m.publish(`${base}/ghost ${i}/availability`, i % 2 ? 'online' : '{"state":"offline"}');
        z2m.publish(
          `${base}/bridge/event`,
          JSON.stringify({ type: 'device_leave', data: { ieee_address: `0xg${i}` } }),
        );
      }
      await publish(`${base}/bridge/devices`, [entry('0x31', 'ZNCZ02LM')], true);
      await eventually(() => devicesOf(h, base).length === 1, 10_000, 'the device after the flood');
      // The driver's own bookkeeping (no API shows it): it reads only the topics of listed devices,
      // so nothing of the ghosts is held.
      const bridge = (h.driver as any).bridges.get(base);
      assert.equal(bridge.byIeee.size, 1);
      assert.equal((h.driver as any).deviceTopics.size, 2, 'the state and availability topics of the one device');
    } finally {
      await h.stop();
    }
  });

  it('cleans reported values like any device report: no prototype names, setpoints clamped to the range', async () => {
    const base = 'values';
    const h = await harness(base);
    try {
      await publish(
        `${base}/bridge/devices`,
        [entry('0x41', 'SPZB0001', { friendly_name: 'trv' }), entry('0x42', 'LED1836G9', { friendly_name: 'bulb' })],
        true,
      );
      await eventually(() => devicesOf(h, base).length === 2, 5000, 'two devices');
      await publish(`${base}/trv`, {
        system_mode: 'constructor',
        occupied_heating_setpoint: 1e300,
        local_temperature: 21,
      });
      await publish(`${base}/bulb`, { power_on_behavior: '__proto__', state: 'ON' });
      await eventually(
        () =>
          h.registry.findByRef('zigbee2mqtt', `${base}/0x41`)?.state.temperature !== undefined &&
          h.registry.findByRef('zigbee2mqtt', `${base}/0x42`)?.state.power !== undefined,
        5000,
        'both reports',
      );
      const trv = h.registry.findByRef('zigbee2mqtt', `${base}/0x41`)?.state as any;
      const bulb = h.registry.findByRef('zigbee2mqtt', `${base}/0x42`)?.state as any;
      assert.equal(trv.thermostat, undefined, JSON.stringify(trv));
      assert.deepEqual(trv['thermostat-target-setpoint'], { 'manual-mode': { targetSetpoint: 30 } });
      assert.equal(bulb.startup, undefined, JSON.stringify(bulb));
    } finally {
      await h.stop();
    }
  });

  it('confirms a colour temperature that the bulb clamps to its own narrower range', async () => {
    const base = 'clamp';
    const h = await harness(base, { confirmMs: 1500 });
    // Zigbee2MQTT clamps color_temp to the bulb's physical range (read from the bulb), which
    // can be narrower than the range its definition exposes (153-500 here).
    const onSet = (topic: string, payload: Buffer) => {
      if (topic !== `${base}/ct/set`) return;
      const set = JSON.parse(payload.toString());
      if (typeof set.color_temp === 'number')
        void publish(`${base}/ct`, { state: 'ON', color_temp: Math.min(400, Math.max(200, set.color_temp)) });
    };
    z2m.on('message', onSet);
    try {
      await z2m.subscribeAsync(`${base}/ct/set`);
      await publish(`${base}/bridge/devices`, [entry('0x51', '9290012573A', { friendly_name: 'ct' })], true);
      await eventually(() => devicesOf(h, base).length === 1, 5000, 'the bulb');
      const device = devicesOf(h, base)[0] as DeviceRecord;
      for (const [api, mireds] of [
        [0, 400],
        [100, 200],
      ] as const) {
        const r = await h.driver.execute({
          kind: 'update-state',
          device,
          state: { 'color-temperature': { colorTemperature: api } },
        });
        assert.equal(r.ok, true, JSON.stringify(r));
        const expected = Math.round(100 - ((mireds - 153) / (500 - 153)) * 100);
        assert.deepEqual(r.ok && r.state?.['color-temperature'], { colorTemperature: expected });
      }
    } finally {
      z2m.off('message', onSet);
      await z2m.unsubscribeAsync(`${base}/ct/set`);
      await h.stop();
    }
  });

  it('answers D1 inside the 5 s clients wait when a Zigbee2MQTT instance does not answer', {
    timeout: 30_000,
  }, async () => {
    const base = 'silent';
    const h = await harness(base, { confirmMs: 200, requestMs: 60_000 });
    try {
      const r = await h.driver.setDiscovery(true);
      assert.equal(r.ok, false);
      assert.match(!r.ok ? r.message : '', /no answer within 200 ms/);
    } finally {
      await h.stop();
    }
  });

  it('answers a pending device removal as soon as it stops', async () => {
    const base = 'stopping';
    const h = await harness(base, { requestMs: 60_000 });
    const device = { driver: 'zigbee2mqtt', driver_ref: `${base}/0x61`, online: true } as DeviceRecord;
    let settled = false;
    const pending = h.driver.execute({ kind: 'remove', device }).then((r) => {
      settled = true;
      return r;
    });
    await new Promise((r) => setImmediate(r));
    await h.stop();
    await new Promise((r) => setImmediate(r));
    assert.equal(settled, true, 'the removal still waits for an answer after stop');
    assert.equal((await pending).ok, false);
  });

  it('keeps a device missing from bridge/devices after a reconnect, offline', async () => {
    const base = 'reconnect';
    const h = await harness(base);
    try {
      await publish(`${base}/bridge/devices`, [entry('0x71', 'ZNCZ02LM'), entry('0x72', 'ZNCZ02LM')], true);
      await eventually(() => devicesOf(h, base).length === 2, 5000, 'two devices');
      // The broker restarts (retained messages are lost); Zigbee2MQTT publishes its list again.
      await z2m.endAsync(true);
      const port = broker.port;
      await broker.close();
      await eventually(() => !h.driver.connected(), 5000, 'the driver saw the broker go');
      broker = await startBroker(port);
      z2m = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
      await eventually(() => h.driver.connected(), 10_000, 'the driver reconnected');
      await publish(`${base}/bridge/devices`, [entry('0x71', 'ZNCZ02LM')], true);
      await eventually(
        () =>
          h.registry.findByRef('zigbee2mqtt', `${base}/0x72`)?.online === false ||
          h.registry.findByRef('zigbee2mqtt', `${base}/0x72`) === undefined,
        10_000,
        'the list after the reconnect',
      );
      const kept = h.registry.findByRef('zigbee2mqtt', `${base}/0x72`);
      assert.ok(kept, 'the missing device was deleted');
      assert.equal(kept.online, false);
    } finally {
      await h.stop();
    }
  });
});
