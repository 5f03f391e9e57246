/**
 * scripts/build.mjs, which `npm start` and bin/opencube.js run before the gateway: it rebuilds
 * dist/ exactly when src/ changed (a file edited, added, removed), and a build is one bundle whose
 * lazily imported drivers and integrations stay out of what every start loads.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { build, fingerprint, isFresh, type Metafile, sourceFiles } from '../../scripts/build.mjs';
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
    ['the version in package.json changes', (r) => writeFileSync(join(r, 'package.json'), '{"version":"2"}')],
    [
      'the build script changes',
      (r) => {
        mkdirSync(join(r, 'scripts'));
        writeFileSync(join(r, 'scripts', 'build.mjs'), '');
      },
    ],
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

/** The inputs of `output` and of every output it imports statically: what loading it loads. */
function loadedInputs(meta: Metafile, output: string): Set<string> {
  const seen = new Set<string>();
  const inputs = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    seen.add(file);
    const out = meta.outputs[file];
    if (!out) return;
    for (const input of Object.keys(out.inputs)) inputs.add(input);
    for (const imp of out.imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(output);
  return inputs;
}

describe('a build of this project', () => {
  it('bundles src/ into JavaScript chunks of Latin-1 text, drops files of an earlier build, keeps lazy parts out of the start, and is then fresh', () => {
    const out = tempDir('opencube-dist-');
    try {
      // A previous build's folder: its stamp keeps it, and a file this build does not write must go.
      writeFileSync(join(out, '.build-stamp'), 'old');
      writeFileSync(join(out, 'removed-module.js'), 'export {};');
      assert.equal(isFresh(ROOT, out), false);
      const lines: string[] = [];
      const meta = build(ROOT, { outDir: out, log: (l) => lines.push(l) });
      assert.match(lines[0] as string, /^opencube: building .* from src\/ \(esbuild\)$/);
      assert.match(lines.at(-1) as string, /^opencube: built in \d+\.\d s$/);
      assert.ok(existsSync(join(out, 'main.js')));
      assert.equal(existsSync(join(out, 'removed-module.js')), false);
      assert.deepEqual(
        sourceFiles(out).filter((f) => !f.endsWith('.js') && f !== '.build-stamp'),
        [],
        'nothing but JavaScript in the build',
      );
      const all = new Set(Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs)));
      const atStart = loadedInputs(meta, relative(ROOT, join(out, 'main.js')));
      assert.ok(atStart.has('src/main.ts'));
      // Each is in the bundle, but only in a chunk loaded by an `await import()`.
      for (const lazy of [
        'src/gateway.ts',
        'src/drivers/zigbee-sim/network.ts',
        'src/integrations/homeassistant/index.ts',
        'src/integrations/metrics/index.ts',
        'node_modules/aedes/aedes.js',
      ]) {
        assert.ok(all.has(lazy), `${lazy} is bundled`);
        assert.equal(atStart.has(lazy), false, `${lazy} is loaded only when needed`);
      }
      // A character above U+00FF anywhere in a chunk (esbuild keeps comments as written) makes V8
      // hold that chunk's whole source two bytes per character for the gateway's life.
      for (const file of sourceFiles(out).filter((f) => f.endsWith('.js')))
        assert.doesNotMatch(readFileSync(join(out, file), 'utf8'), /[\u0100-\uffff]/, `${file} is Latin-1 text`);
      assert.equal(isFresh(ROOT, out), true);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
