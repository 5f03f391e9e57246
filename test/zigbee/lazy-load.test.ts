/**
 * The Zigbee drivers and what they bring are loaded only in the mode that runs them: with
 * `zigbee.mode off` neither the broker (aedes), nor the MQTT client, nor the simulator, nor the
 * Zigbee2MQTT driver is loaded (test/herdsman/lazy-load.test.ts does the same for zigbee-herdsman).
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';

const dir = tempDir('opencube-lazy-zigbee-');
after(() => rmSync(dir, { recursive: true, force: true }));

interface Loaded {
  drivers: string[];
  aedes: boolean;
  mqtt: boolean;
  simulator: boolean;
  zigbee2mqtt: boolean;
}

/** The drivers one mode loads, and which modules came with them, in a fresh process. */
function load(mode: string): Loaded {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test', 'zigbee', 'loaded-modules.ts'), mode, dir],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

describe('loading the Zigbee drivers by zigbee.mode', () => {
  it('loads no broker, no MQTT client, no simulator and no Zigbee2MQTT driver with Zigbee off', () => {
    assert.deepEqual(load('off'), {
      drivers: ['thirdparty', 'camera'],
      aedes: false,
      mqtt: false,
      simulator: false,
      zigbee2mqtt: false,
    });
  });

  it('loads the broker and the simulator only in mode sim', () => {
    assert.deepEqual(load('sim'), {
      drivers: ['thirdparty', 'zigbee2mqtt', 'camera'],
      aedes: true,
      mqtt: true,
      simulator: true,
      zigbee2mqtt: true,
    });
    assert.deepEqual(load('z2m'), {
      drivers: ['thirdparty', 'zigbee2mqtt', 'camera'],
      aedes: false,
      mqtt: true,
      simulator: false,
      zigbee2mqtt: true,
    });
  });

  it('loads no MQTT at all in mode herdsman', () => {
    const r = load('herdsman');
    assert.deepEqual([r.aedes, r.mqtt, r.simulator, r.zigbee2mqtt], [false, false, false, false]);
  });
});
