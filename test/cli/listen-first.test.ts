/**
 * gateway.start() listens before its drivers start (the simulated network, a broker or a radio
 * take a while), and resolves once they have. Meanwhile the gateway answers what needs no driver
 * (G-bridge, D3 from the store, /ready saying "starting"); a request for a starting driver waits
 * for its start (test/devices/driver-start-wait.test.ts, on an injected clock).
 */
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { it } from 'node:test';
import type { Driver } from '../../src/core/devices/contract.ts';
import { createGateway } from '../../src/gateway.ts';
import type { AnswerCheck } from '../../src/http/open-api/route.ts';
import {
  call,
  eventually,
  listDevices,
  rest,
  startGateway,
  tempDir,
  testSettings,
  waitForValue,
} from '../helpers/foundation.ts';

/** A driver whose start waits until the test releases it; it records whether the gateway listened by then. */
function heldDriver(listening: () => boolean) {
  let release = () => {};
  let startCalled = () => {};
  const held = new Promise<void>((r) => {
    release = r;
  });
  const called = new Promise<boolean>((r) => {
    startCalled = () => r(listening());
  });
  const driver: Driver = {
    id: 'held',
    async start() {
      startCalled();
      await held;
    },
    async stop() {},
    async execute() {
      return { ok: true };
    },
  };
  return { driver, release, called };
}

it('answers while the drivers start, says it is not ready yet, and start() resolves once they have', async (t) => {
  const dataDir = tempDir();
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  // A first run fills the store with the simulated network's devices.
  const first = await startGateway({ dataDir, overrides: { zigbee: { mode: 'sim' } } });
  await eventually(() => first.gateway.devices.registry.list().length === 16, 20_000, '16 devices');
  const token = first.token('starter');
  await first.stop();

  const answerCheck: AnswerCheck = { violations: [] };
  let gateway: ReturnType<typeof createGateway> | undefined;
  const hold = heldDriver(() => gateway?.app.server.listening === true);
  gateway = createGateway(testSettings(dataDir, { zigbee: { mode: 'sim' } }), {
    answerCheck,
    drivers: { first: [hold.driver] },
  });
  const g = gateway;
  let resolved = false;
  const started = g.start().then((url) => {
    resolved = true;
    return url;
  });
  t.after(async () => {
    hold.release();
    await started.catch(() => {});
    await g.stop();
  });
  assert.equal(await hold.called, true, 'the gateway listens before the first driver starts');
  const addr = g.app.server.address();
  const base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

  const bridge = await call(base, 'GET', rest('v2', 'bridge'));
  assert.equal(bridge.json.error, 0);
  const devices = await listDevices(base, token);
  assert.equal(devices.length, 16, 'the devices known from the store');
  const plug = devices.find((d) => d.capabilities.some((c: { capability: string }) => c.capability === 'power'));
  assert.ok(plug);

  const ready = await call(base, 'GET', '/ready');
  assert.equal(ready.json.ready, false);
  assert.ok(ready.json.checks.some((c: { ok: boolean; reason?: string }) => !c.ok && c.reason === 'starting'));
  assert.equal(resolved, false, 'start() waits for the drivers');

  hold.release();
  await started;
  // Once the simulated Zigbee2MQTT has announced its devices, the same command works.
  const after = await waitForValue(
    async () => {
      const r = await call(base, 'PUT', rest('v2', `devices/${plug.serial_number}`), {
        token,
        body: { state: { power: { powerState: 'on' } } },
      });
      return r.json.error === 0 && r;
    },
    20_000,
    'the command to work once the drivers run',
  );
  assert.equal(after.status, 200);
  assert.deepEqual(answerCheck.violations, []);
});
