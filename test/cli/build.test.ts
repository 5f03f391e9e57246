/**
 * scripts/build.mjs, which `npm start` and bin/opencube.js run before the gateway: it rebuilds
 * dist/ exactly when src/ changed (a file edited, added, removed), and a build holds every file
 * the gateway reads beside its modules.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { build, fingerprint, isFresh, sourceFiles } from '../../scripts/build.mjs';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';

/** A project folder with a few sources, as the fingerprint sees it. */
function project(): string {
  const root = tempDir('opencube-build-');
  mkdirSync(join(root, 'src', 'drivers', 'fixtures'), { recursive: true });
  writeFileSync(join(root, 'tsconfig.json'), '{}');
  writeFileSync(join(root, 'src', 'main.ts'), 'export const a = 1;\n');
  writeFileSync(join(root, 'src', 'drivers', 'fixtures', 'one.json'), '{}');
  writeFileSync(join(root, 'src', 'drivers', 'x.test.ts'), '');
  return root;
}

describe('the fingerprint of the sources', () => {
  it('lists sources and other files under src/ but no tests', () => {
    const root = project();
    try {
      assert.deepEqual(sourceFiles(join(root, 'src')), ['drivers/fixtures/one.json', 'main.ts']);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  const changes: [string, (root: string) => void][] = [
    ['a source is edited (a new size)', (r) => writeFileSync(join(r, 'src', 'main.ts'), 'export const a = 12;\n')],
    [
      'a source is saved again (a new mtime)',
      (r) => utimesSync(join(r, 'src', 'main.ts'), new Date(), new Date(Date.now() + 5000)),
    ],
    ['a source is added', (r) => writeFileSync(join(r, 'src', 'b.ts'), '')],
    ['a source is removed', (r) => rmSync(join(r, 'src', 'main.ts'))],
    ['a fixture is removed', (r) => rmSync(join(r, 'src', 'drivers', 'fixtures', 'one.json'))],
    ['the tsconfig is edited', (r) => writeFileSync(join(r, 'tsconfig.json'), '{ }')],
  ];
  for (const [what, change] of changes) {
    it(`changes when ${what}`, () => {
      const root = project();
      try {
        const before = fingerprint(root);
        change(root);
        assert.notEqual(fingerprint(root), before);
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
    });
  }

  it('stays the same when nothing changed or only a test changed', () => {
    const root = project();
    try {
      const before = fingerprint(root);
      writeFileSync(join(root, 'src', 'drivers', 'x.test.ts'), 'changed');
      assert.equal(fingerprint(root), before);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('a build of this project', () => {
  it('compiles src/ to JavaScript, copies fixtures and the eSpeak worker, drops outputs of removed sources, and is then fresh', () => {
    const out = tempDir('opencube-dist-');
    try {
      // A previous build's folder: its stamp keeps it, and a module whose source is gone must go.
      writeFileSync(join(out, '.build-stamp'), 'old');
      writeFileSync(join(out, 'removed-module.js'), 'export {};');
      assert.equal(isFresh(ROOT, out), false);
      const lines: string[] = [];
      build(ROOT, { outDir: out, log: (l) => lines.push(l) });
      assert.match(lines[0] as string, /^opencube: building .* from src\/ \(tsc\)$/);
      assert.match(lines.at(-1) as string, /^opencube: built in \d+\.\d s$/);
      assert.ok(existsSync(join(out, 'main.js')));
      assert.ok(existsSync(join(out, 'cli', 'supervisor.js')));
      assert.ok(existsSync(join(out, 'core', 'tts', 'espeak-worker.mjs')));
      const fixtures = readdirSync(join(out, 'drivers', 'zigbee-sim', 'fixtures'));
      assert.deepEqual(fixtures, readdirSync(join(ROOT, 'src', 'drivers', 'zigbee-sim', 'fixtures')));
      assert.equal(existsSync(join(out, 'removed-module.js')), false);
      assert.deepEqual(
        sourceFiles(out).filter((f) => f.endsWith('.ts')),
        [],
        'no TypeScript in the build',
      );
      assert.equal(isFresh(ROOT, out), true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
