/**
 * While matter.js loads and the bridge builds its endpoints, V8's young generation is kept from
 * growing (src/integrations/matter/young-generation.ts); afterwards, and whenever the user gave
 * node the growth factor, V8 grows it as it would. Each case runs in its own node process: the
 * sizes are V8's, read from v8.getHeapSpaceStatistics(), not times.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { growthGivenByUser } from '../../src/integrations/matter/young-generation.ts';

const MB = 1024 * 1024;

function young(mode: 'small' | 'plain', nodeFlags: string[] = []): { afterLoad: number; afterBurst: number } {
  const script = join(import.meta.dirname, 'young-generation-child.ts');
  const r = spawnSync(process.execPath, [...nodeFlags, '--import', 'tsx', script, mode], {
    encoding: 'utf8',
    timeout: 60_000,
  });
  assert.equal(r.status, 0, r.stderr);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string);
}

describe('the young generation while matter.js loads', () => {
  test('loaded plainly, matter.js leaves V8 a young generation of 16 MB or more (what the bridge avoids)', () => {
    assert.ok(young('plain').afterLoad >= 16 * MB);
  });

  test('loaded by the bridge, the young generation stays at 4 MB or less', () => {
    assert.ok(young('small').afterLoad <= 4 * MB);
  });

  test('afterwards V8 grows it again for the rest of the gateway', () => {
    assert.ok(young('small').afterBurst >= 8 * MB);
  });

  test("a growth factor the user gave node is left alone: the young generation grows as the user's factor says", () => {
    assert.ok(young('small', ['--semi-space-growth-factor=4']).afterLoad >= 16 * MB);
  });
});

describe("the user's own growth factor is recognised", () => {
  test('on the command line, with dashes or underscores, with its value after = or apart', () => {
    assert.equal(growthGivenByUser(['--v8-pool-size=2', '--semi-space-growth-factor=3']), true);
    assert.equal(growthGivenByUser(['--semi_space_growth_factor=3']), true);
    assert.equal(growthGivenByUser(['--semi-space-growth-factor', '3']), true);
  });

  test('other flags are not it', () => {
    assert.equal(growthGivenByUser([]), false);
    assert.equal(growthGivenByUser(['--max-semi-space-size=4', '--v8-pool-size=2', '--import', 'tsx']), false);
    assert.equal(growthGivenByUser(['--semi-space-growth-factor-extra=3']), false);
  });
});
