/** With the bridge off (the default), nothing of matter.js is loaded into the gateway. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { loadSettings } from '../../src/settings/index.ts';

function loaded(overrides: unknown, only?: string): { matter: string[]; total: number } {
  const script = join(import.meta.dirname, 'loaded-modules.ts');
  const args = ['--import', 'tsx', script, JSON.stringify(overrides), ...(only ? [only] : [])];
  const r = spawnSync(process.execPath, args, { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string);
}

test('the bridge is off by default, on UDP port 5540, on every interface', () => {
  const s = loadSettings();
  assert.deepEqual(s.matter, { enabled: false, port: 5540, interface: '', listen_addresses: [] });
});

test('a gateway started and stopped with the bridge off has loaded no module of matter.js', () => {
  const r = loaded({ zigbee: { mode: 'off' } });
  assert.ok(r.total > 100, `the recorder saw the gateway's modules (${r.total})`);
  assert.deepEqual(r.matter, []);
});

test('the recorder does see matter.js when it is loaded (the check above can fail)', () => {
  const r = loaded({}, '@matter/main/types');
  assert.ok(r.matter.length > 0);
});
