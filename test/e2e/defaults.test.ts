import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { canUnshare, runInLoopback } from '../helpers/netns.ts';

// A private network namespace holds only loopback: the gateway runs on its real defaults
// (0.0.0.0:8081, mDNS on, simulated Zigbee) and nothing can leave the machine.

test('npm start alone: the gateway comes up with the simulator and mDNS; link, token, devices and their reports on the stream', {
  skip: canUnshare ? false : 'unshare -n is not permitted here (needs root)',
  timeout: 180_000,
}, () => {
  const scenario = join(import.meta.dirname, 'defaults-scenario.ts');
  const r = runInLoopback([scenario], { timeout: 170_000 });
  const last = r.stdout.trim().split('\n').pop() ?? '';
  const seen = JSON.parse(last || '{}');
  assert.equal(seen.error, undefined, `scenario failed: ${seen.error}\n${seen.stderr ?? r.stderr}`);
  assert.equal(seen.bridge.error, 0);
  assert.equal(seen.bridge.data.domain, 'cube.local');
  assert.deepEqual(seen.before, { error: 401, data: {}, message: 'link button not pressed' });
  assert.match(seen.link, /approved: e2e/);
  assert.equal(seen.token, true);
  assert.ok(seen.devices >= 10, `the simulated network has devices (${seen.devices})`);
  for (const category of ['light', 'switch', 'plug', 'contactSensor', 'motionSensor']) {
    assert.ok(seen.categories.includes(category), `a ${category} is simulated (${seen.categories})`);
  }
  assert.equal(seen.stateEvent, true, 'a simulated device report arrived on the event stream');
  assert.equal(seen.exitCode, 0, 'SIGTERM stops the gateway and its supervisor cleanly');
});
