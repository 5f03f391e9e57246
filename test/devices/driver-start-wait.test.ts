/**
 * The gateway listens before its drivers have started. A request for a driver that is still
 * starting waits for its start (on the gateway's clock, up to DRIVER_START_WAIT_MS) and is then
 * answered as it would be a moment later; a start that takes longer gets the answer of a driver
 * that is not running. A real registry on SQLite; the driver is the test's, held by hand.
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'node:test';
import type { Driver, DriverCommand } from '../../src/core/devices/contract.ts';
import { DeviceRegistry, DeviceService } from '../../src/core/devices/index.ts';
import { DRIVER_START_WAIT_MS } from '../../src/core/devices/service.ts';
import { EventBus } from '../../src/core/event-bus.ts';
import { openDb } from '../../src/store/db.ts';
import { ManualClock } from '../helpers/clock.ts';
import { tempDir } from '../helpers/foundation.ts';

/** A driver whose start ends when the test says; it records the commands it ran and pairing calls. */
function slowDriver() {
  let release = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const ran: string[] = [];
  let discovering = false;
  const driver: Driver = {
    id: 'slow',
    async start() {
      await held;
    },
    async stop() {},
    async execute(command: DriverCommand) {
      ran.push(command.kind);
      return { ok: true };
    },
    pairing: {
      types: ['zigbee'],
      async setDiscovery(enable: boolean) {
        discovering = enable;
        ran.push(`discovery ${enable}`);
        return { ok: true };
      },
      discovering: () => discovering,
    },
  };
  return { driver, release, ran };
}

/** Resolves on the next turns of the event loop, so pending promise callbacks run. */
const settle = () => new Promise((r) => setImmediate(r));

function rig(t: { after(fn: () => void | Promise<void>): void }, opts: { loading?: boolean } = {}) {
  const dir = tempDir('opencube-start-wait-');
  const db = openDb(join(dir, 'gateway.db'));
  const registry = new DeviceRegistry(db, new EventBus());
  const clock = new ManualClock();
  const service = new DeviceService(registry, undefined, clock);
  const slow = slowDriver();
  // As the gateway does: it says the drivers are loading, listens, then loads and registers them.
  if (opts.loading) service.loadingDrivers();
  else service.addDriver(slow.driver);
  const plug = registry.deviceFound('slow', {
    driver_ref: 'plug-1',
    name: 'Plug',
    manufacturer: 'ACME',
    model: 'P1',
    firmware_version: '1.0.0',
    display_category: 'plug',
    capabilities: [{ capability: 'power', permission: '1100' }],
    state: { power: { powerState: 'off' } },
  }).serial_number;
  let starting: Promise<void> | undefined;
  t.after(async () => {
    slow.release();
    await starting;
    await service.stop();
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    service,
    clock,
    slow,
    plug,
    start() {
      if (opts.loading) service.addDriver(slow.driver);
      starting = service.start();
      return starting;
    },
  };
}

it('a command and a pairing request made while their driver starts run once it has started', async (t) => {
  const r = rig(t);
  const started = r.start();
  const command = r.service.update(r.plug, { state: { power: { powerState: 'on' } } });
  const pairing = r.service.setDiscovery('zigbee', true);
  await settle();
  assert.deepEqual(r.slow.ran, [], 'nothing reaches the driver before its start has ended');
  r.slow.release();
  await started;
  assert.deepEqual(await command, { ok: true });
  assert.deepEqual(await pairing, { ok: true });
  assert.deepEqual(r.slow.ran.sort(), ['discovery true', 'update-state']);
  assert.equal(r.clock.now() - Date.UTC(2025, 0, 1), 0, 'no time had to pass');
});

it('a driver that takes longer than the wait is answered for as one that is not running, and works once started', async (t) => {
  const r = rig(t);
  const started = r.start();
  const command = r.service.update(r.plug, { state: { power: { powerState: 'on' } } });
  const removal = r.service.remove(r.plug);
  const pairing = r.service.setDiscovery('zigbee', true);
  await settle();
  r.clock.advance(DRIVER_START_WAIT_MS);
  const answered = await command;
  assert.equal(answered.ok, false);
  assert.match(answered.ok ? '' : answered.message, /the slow driver of this device is not running/);
  const removed = await removal;
  assert.equal(removed.ok, false, 'the device is not forgotten while its driver cannot remove it');
  assert.ok(r.service.registry.get(r.plug), 'still listed');
  const paired = await pairing;
  assert.equal(paired.ok, false);
  assert.match(paired.ok ? '' : paired.message, /the slow driver has not started yet/);
  assert.deepEqual(r.slow.ran, []);

  r.slow.release();
  await started;
  assert.deepEqual(await r.service.update(r.plug, { state: { power: { powerState: 'on' } } }), { ok: true });
  assert.deepEqual(r.slow.ran, ['update-state']);
});

it('requests made while the drivers are still being loaded wait for them; a removal does not skip the driver', async (t) => {
  const r = rig(t, { loading: true });
  const ready = await r.service.readiness();
  assert.deepEqual(ready, [{ driver: 'drivers', ok: false, reason: 'starting' }], 'not ready while loading');
  const command = r.service.update(r.plug, { state: { power: { powerState: 'on' } } });
  const pairing = r.service.setDiscovery('zigbee', true);
  const removal = r.service.remove(r.plug);
  await settle();
  assert.ok(r.service.registry.get(r.plug), 'not forgotten before its driver removed it');
  // The driver is loaded and registered, then starts.
  const started = r.start();
  await settle();
  assert.deepEqual(r.slow.ran, [], 'nothing reaches the driver before its start has ended');
  r.slow.release();
  await started;
  assert.deepEqual(await command, { ok: true });
  assert.deepEqual(await pairing, { ok: true });
  assert.deepEqual(await removal, { ok: true });
  assert.deepEqual(r.slow.ran.sort(), ['discovery true', 'remove', 'update-state']);
  assert.equal(r.service.registry.get(r.plug), undefined, 'removed once its driver did');
});
