/**
 * The mDNS integration follows a rename (`gateway#renamed`): inside a private network namespace
 * (only loopback, so nothing is advertised on a real link), a client browsing for `_ewelink._tcp`
 * finds the gateway under its new name and host once it is renamed in the console.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test } from 'node:test';
import { canUnshare, runInLoopback } from '../helpers/netns.ts';

test('a gateway renamed in the console is advertised over mDNS under its new name and host', {
  skip: canUnshare ? false : 'unshare -n is not permitted here (needs root)',
  timeout: 120_000,
}, () => {
  const r = runInLoopback([join(import.meta.dirname, 'mdns-rename-scenario.ts')], { timeout: 110_000 });
  const seen = JSON.parse(r.stdout.trim().split('\n').pop() || '{}');
  assert.equal(seen.error, undefined, `scenario failed: ${seen.error}\n${r.stderr}`);
  const at = (name: string, host: string) => ({ name, host, port: seen.port });
  assert.deepEqual(seen.before, [at('Hall gateway', 'hall-gateway-cube.local')]);
  assert.equal(seen.rename, 200);
  assert.deepEqual(seen.after, [at('Attic gateway', 'attic-gateway-cube.local')]);
});
