/**
 * The simulated network remembers itself in the data folder, as a real Zigbee2MQTT and its
 * devices would: across gateway restarts, devices removed stay gone, devices that joined stay
 * joined and devices keep their state; a factory reset clears the gateway and the network's devices
 * join it again. Joining admits several devices per window.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { DEFAULT_JOINS_PER_WINDOW } from '../../src/drivers/zigbee-sim/simulator.ts';
import {
  call,
  eventually,
  listDevices,
  rest,
  startGateway,
  type TestGateway,
  waitForValue,
} from '../helpers/foundation.ts';

const DEVICES = 4;

describe('the simulated network across restarts and a reset', () => {
  let g: TestGateway;
  let token: string;
  after(() => g?.stop());

  const start = async (restart = false) => {
    g = restart
      ? await g.restart()
      : await startGateway({
          overrides: { zigbee: { mode: 'sim', sim_devices: DEVICES, permit_join_seconds: 30 } },
          gatewayOptions: { drivers: { zigbee: { sim: { joinDelayMs: 20, interviewMs: 20, reportIntervalMs: 0 } } } },
        });
    token = g.token('memory');
  };
  const count = (n: number, what: string) =>
    waitForValue(
      async () => {
        const l = await listDevices(g.url, token);
        return l.length === n ? l : undefined;
      },
      15_000,
      what,
    );

  it('keeps a removed device gone, joined devices joined, and state, across restarts; a reset brings the network back', async () => {
    await start();
    const first = await count(DEVICES, 'the simulated devices');
    await eventually(
      () => existsSync(join(g.dataDir, 'zigbee-sim', 'zigbee2mqtt.json')),
      5000,
      'the network kept in the data folder',
    );

    // Removed: gone for good.
    const removed = first.find((d) => d.display_category === 'switch') ?? (first[1] as any);
    assert.equal(
      (await call(g.url, 'DELETE', rest('v2', `devices/${removed.serial_number}`), { token })).json.error,
      0,
    );
    // A state: the light's brightness.
    const light = first.find((d) => d.capabilities.some((c: any) => c.capability === 'brightness'));
    assert.ok(light, 'a dimmable light among the first devices');
    const dim = await call(g.url, 'PUT', rest('v2', `devices/${light.serial_number}`), {
      token,
      body: { state: { brightness: { brightness: 30 } } },
    });
    assert.equal(dim.json.error, 0, dim.text);
    // Joined: several per window.
    const on = await call(g.url, 'PUT', rest('v2', 'devices/discovery'), {
      token,
      body: { enable: true, type: 'Zigbee' },
    });
    assert.equal(on.json.error, 0, on.text);
    const grown = DEVICES - 1 + DEFAULT_JOINS_PER_WINDOW;
    await count(grown, `${DEFAULT_JOINS_PER_WINDOW} devices joined in one window`);
    await call(g.url, 'PUT', rest('v2', 'devices/discovery'), { token, body: { enable: false, type: 'Zigbee' } });

    await start(true);
    const afterRestart = await count(grown, 'the same devices after a restart');
    assert.ok(!afterRestart.some((d) => d.serial_number === removed.serial_number), 'the removed device stays gone');
    const lit = await waitForValue(async () => {
      const d = (await listDevices(g.url, token)).find((x) => x.serial_number === light.serial_number);
      return d?.state.brightness?.brightness === 30 ? d : undefined;
    });
    assert.equal(lit.state.brightness.brightness, 30);

    // A factory reset clears the gateway (tokens included); the network's devices join it again.
    await g.gateway.reset();
    token = g.token('after-reset');
    const again = await count(grown, 'the network joined the gateway again');
    assert.deepEqual(again.map((d) => d.serial_number).sort(), afterRestart.map((d) => d.serial_number).sort());
  });
});
