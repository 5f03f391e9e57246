/**
 * matter.js is loaded one package at a time, each after the packages it imports
 * (src/integrations/matter/load.ts): loaded all at once, its 1,460 modules leave about 15 MB more
 * native memory with the gateway (docs/benchmarks.md). The saving is measured by the bench; these
 * tests keep the order right as matter.js changes.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { MATTER_PACKAGES } from '../../src/integrations/matter/load.ts';

/** The @matter packages a package's package.json depends on. */
function matterDependencies(name: string): string[] {
  // Beside @matter/main, where npm installs them (their exports do not include package.json).
  const file = join(import.meta.dirname, '..', '..', 'node_modules', name, 'package.json');
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as { dependencies?: Record<string, string> };
  return Object.keys(pkg.dependencies ?? {}).filter((d) => d.startsWith('@matter/'));
}

test('each matter.js package is loaded after every matter.js package it depends on', () => {
  for (const [i, name] of MATTER_PACKAGES.entries()) {
    for (const dep of matterDependencies(name))
      assert.ok(
        MATTER_PACKAGES.indexOf(dep as never) > -1 && MATTER_PACKAGES.indexOf(dep as never) < i,
        `${dep} before ${name}`,
      );
  }
});

test('every matter.js package the bridge reaches through @matter/main is in the list (none is left to load with another)', () => {
  const reached = new Set<string>();
  const visit = (name: string) => {
    if (reached.has(name)) return;
    reached.add(name);
    for (const dep of matterDependencies(name)) visit(dep);
  };
  visit('@matter/main');
  // @matter/main loads its platform, @matter/nodejs, which its package.json does not name.
  visit('@matter/nodejs');
  assert.deepEqual([...reached].sort(), [...MATTER_PACKAGES].sort());
});

test('loading matter.js reaches its packages in that order, each one before the next is started', () => {
  const script = join(import.meta.dirname, 'loaded-modules.ts');
  const only = join(import.meta.dirname, 'load-matter.ts');
  const r = spawnSync(process.execPath, ['--import', 'tsx', script, '{}', only], { encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stderr);
  const { matter } = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { matter: string[] };
  const firstSeen: string[] = [];
  for (const url of matter) {
    const name = /\/node_modules\/(@matter\/[^/]+)\//.exec(url)?.[1];
    if (name && !firstSeen.includes(name)) firstSeen.push(name);
  }
  assert.deepEqual(firstSeen, [...MATTER_PACKAGES]);
  assert.ok(matter.length > 1000, `the recorder saw matter.js's modules (${matter.length})`);
});
