/** Installing the real Zigbee2MQTT at test time: a missing registry is a plain failure, never a skip. */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'node:test';
import { ensureZigbee2mqtt, ZIGBEE2MQTT_VERSION } from './ensure.ts';

it('installs nothing and says plainly why when the npm registry cannot be reached', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'opencube-ensure-'));
  const prefix = join(dir, `zigbee2mqtt-${ZIGBEE2MQTT_VERSION}`);
  try {
    // A closed port on loopback refuses at once; no retries keep the test short.
    const env = {
      ...process.env,
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_fetch_retries: '0',
      npm_config_cache: join(dir, 'npm-cache'),
      npm_config_offline: 'false',
      npm_config_prefer_offline: 'false',
    };
    await assert.rejects(ensureZigbee2mqtt({ prefix, env }), (err: Error) => {
      assert.match(err.message, /^cannot install zigbee2mqtt@2\.14\.1 from the npm registry/);
      assert.match(err.message, /npm install exited with/);
      return true;
    });
    assert.equal(existsSync(prefix), false, 'no half-done install is left behind');
    assert.equal(existsSync(`${prefix}.lock`), false, 'the lock is released');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

it('pins the exact Zigbee2MQTT release the harness was written against', () => {
  assert.equal(ZIGBEE2MQTT_VERSION, '2.14.1');
});
