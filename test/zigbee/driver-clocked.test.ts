/**
 * The Zigbee2MQTT driver on a clock that moves only when the test moves it: a bare MQTT client
 * plays Zigbee2MQTT on a real broker (127.0.0.1) and the driver feeds a real device registry.
 * Because no time passes unless the test says so, an answer that comes is one that did not wait
 * for a deadline, and the pacing of the read-back is seen at its exact clock times.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import mqtt, { type MqttClient } from 'mqtt';
import { DeviceRegistry } from '../../src/core/devices/index.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { type Broker, loadFixtures, startBroker } from '../../src/drivers/zigbee-sim/index.ts';
import { DEFAULT_READ_PACE_MS, Zigbee2MqttDriver } from '../../src/drivers/zigbee2mqtt/driver.ts';
import { type Db, openDb } from '../../src/store/db.ts';
import { ManualClock, settle, watch } from '../helpers/clock.ts';
import { eventually, tempDir } from '../helpers/foundation.ts';

const quiet = { debug() {}, info() {}, warn() {}, error() {} };
const PLUG = loadFixtures().find((f) => f.model === 'ZNCZ02LM');

/** One bridge/devices entry of an interviewed, mains-powered plug. */
function plug(ieee: string): Record<string, unknown> {
  assert.ok(PLUG);
  return {
    ieee_address: ieee,
    friendly_name: `plug ${ieee}`,
    type: PLUG.type,
    power_source: 'Mains (single phase)',
    interview_state: 'SUCCESSFUL',
    definition: { model: PLUG.model, vendor: PLUG.vendor, description: PLUG.description, exposes: PLUG.exposes },
  };
}

let broker: Broker;
let z2m: MqttClient;
const dirs: string[] = [];
const dbs: Db[] = [];

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

/** A driver on `base` with a manual clock, its registry, and Zigbee2MQTT online with `devices` listed. */
async function start(base: string, devices: Record<string, unknown>[]) {
  const dir = tempDir();
  dirs.push(dir);
  const db = openDb(join(dir, 'gateway.db'));
  dbs.push(db);
  const registry = new DeviceRegistry(db, new EventBus(1000, 1));
  const clock = new ManualClock();
  const driver = new Zigbee2MqttDriver({
    url: broker.url,
    baseTopics: [base],
    permitJoinSeconds: 30,
    log: quiet,
    clock,
  });
  await driver.start(registry);
  await eventually(() => driver.connected(), 10_000, 'the driver connected');
  await publish(`${base}/bridge/state`, { state: 'online' }, true);
  await publish(`${base}/bridge/devices`, devices, true);
  const listed = () => registry.listByDriver('zigbee2mqtt').filter((d) => d.driver_ref.startsWith(`${base}/`));
  await eventually(() => listed().length === devices.length, 10_000, 'every device listed');
  await eventually(() => driver.ready().ok, 10_000, 'the driver ready');
  return { registry, driver, clock, listed };
}

async function publish(topic: string, value: unknown, retain = false): Promise<void> {
  await z2m.publishAsync(topic, JSON.stringify(value), { retain, qos: 1 });
}

/** Records what the driver publishes on `filter`, with the gateway's clock time when it arrived. */
async function listen(filter: string, clock: ManualClock) {
  const heard: { topic: string; at: number; json: any }[] = [];
  const client = await mqtt.connectAsync(broker.url, { reconnectPeriod: 0 });
  client.on('message', (topic, payload) =>
    heard.push({ topic, at: clock.now(), json: JSON.parse(payload.toString()) }),
  );
  await client.subscribeAsync(filter, { qos: 1 });
  return { heard, close: () => client.endAsync(true) };
}

describe('the Zigbee2MQTT driver on a manual clock', () => {
  it('acts on error lines of bridge/logging only: the reason reaches the D4 answer at once, info and warning lines change nothing', async () => {
    const base = 'logging';
    const { driver, clock, listed } = await start(base, [plug('0x41'), plug('0x42')]);
    const sets = await listen(`${base}/+/set`, clock);
    try {
      const device = listed().find((d) => d.driver_ref === `${base}/0x41`);
      assert.ok(device);
      const answer = watch(driver.execute({ kind: 'update-state', device, state: { power: { powerState: 'on' } } }));
      await eventually(() => sets.heard.length === 1, 10_000, 'the /set sent');
      assert.deepEqual(sets.heard[0], { topic: `${base}/plug 0x41/set`, at: clock.now(), json: { state: 'ON' } });
      const failed = (reason: string) => `z2m: Publish 'set' 'state' to 'plug 0x41' failed: ${reason}`;
      // Lines that name the command but are not errors, in every form Zigbee2MQTT writes them.
      for (const line of [
        { level: 'info', message: failed('an info line') },
        { level: 'warning', message: failed('a warning line') },
        { level: 'warning', namespace: 'z2m', message: failed('a 1.x warning').slice(5) },
        { level: 'info', message: failed('"error" quoted in an info line') },
        { level: 'warning', message: failed('a warning with "error" as a value'), cause: 'error' },
        { level: 'debug', message: failed('a debug line') },
        // An error of another device, and errors that are not a command's failure.
        { level: 'error', message: "z2m: Publish 'set' 'state' to 'plug 0x42' failed: not this one" },
        { level: 'error', message: 'z2m: Failed to ping plug 0x41' },
        { level: 'error' },
        { level: 'error', message: 42 },
      ])
        await publish(`${base}/bridge/logging`, line);
      await publish(`${base}/bridge/logging`, { level: 'error', message: failed("'Error: ZCL command timed out'") });
      // Lines are read in order: had any line before the error settled the command, its reason would be in the answer.
      await eventually(() => answer.done, 10_000, 'the D4 answer');
      assert.deepEqual(await answer.value, {
        ok: false,
        code: 110006,
        message: "Zigbee2MQTT: 'Error: ZCL command timed out'",
      });
      assert.equal(clock.now(), Date.UTC(2025, 0, 1), 'answered without any time passing on the gateway clock');
      assert.equal(listed().find((d) => d.driver_ref === `${base}/0x41`)?.online, true, 'a failure is not offline');
    } finally {
      await sets.close();
      await driver.stop();
    }
  });

  it('reads the devices back after connecting one every 100 ms, not all at once', async () => {
    const base = 'pacing';
    const ieees = ['0x51', '0x52', '0x53', '0x54', '0x55'];
    const { driver, clock } = await start(base, ieees.map(plug));
    const heard = await listen(`${base}/+/get`, clock);
    try {
      const start = clock.now();
      await settle();
      assert.equal(heard.heard.length, 0, 'nothing is read before the clock moves');
      // After a step that fired the pacing timer, wait for its /get before moving on, so that each
      // read is stamped with the clock time it was sent at.
      const step = async (ms: number) => {
        const fired = clock.fired;
        const count = heard.heard.length;
        clock.advance(ms);
        if (clock.fired > fired) await eventually(() => heard.heard.length > count, 10_000, 'the paced /get');
      };
      await step(0);
      while (heard.heard.length < ieees.length && clock.now() - start < 1000) await step(10);
      assert.equal(DEFAULT_READ_PACE_MS, 100);
      assert.deepEqual(
        heard.heard.map((g) => g.at - start),
        [0, 100, 200, 300, 400],
      );
      assert.deepEqual(
        heard.heard.map((g) => g.topic).sort(),
        ieees.map((i) => `${base}/plug ${i}/get`).sort(),
        'one read per device',
      );
      assert.ok(Object.keys(heard.heard[0]?.json ?? {}).includes('state'), 'the mapped readable attributes');
    } finally {
      await heard.close();
      await driver.stop();
    }
  });
});
