/** zigbee-herdsman and its converters (large) are loaded only in `herdsman` mode. */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';

const dir = tempDir('opencube-lazy-');
after(() => rmSync(dir, { recursive: true, force: true }));

/** The drivers one mode loads, and whether the packages were loaded, in a fresh process. */
function load(mode: string): { drivers: string[]; herdsman: boolean; converters: boolean } {
  const out = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(ROOT, 'test', 'herdsman', 'loaded-modules.ts'), mode, dir],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_OPTIONS: '' } },
  );
  return JSON.parse(out.trim().split('\n').at(-1) as string);
}

describe('loading the Zigbee drivers', () => {
  for (const mode of ['off', 'sim', 'z2m'])
    it(`leaves zigbee-herdsman and its converters unloaded in mode ${mode}`, () => {
      const r = load(mode);
      assert.deepEqual([r.herdsman, r.converters], [false, false]);
      assert.equal(r.drivers.includes('herdsman'), false);
    });

  it('loads them, and the herdsman driver, in mode herdsman', () => {
    assert.deepEqual(load('herdsman'), {
      drivers: ['thirdparty', 'herdsman', 'camera'],
      herdsman: true,
      converters: true,
    });
  });
});
