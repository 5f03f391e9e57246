/**
 * In dist/ (the gateway as users run it) matter.js is bundled, without comments or white space, into chunks that only
 * the bridge loads (scripts/build.mjs): the gateway without the bridge loads none of it, the
 * bridge never loads a second copy from node_modules, and each such chunk names the packages it
 * was made from with their licences. bridge.test.ts runs the bridge itself from such a build.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { build, type Metafile, packageOf } from '../../scripts/build.mjs';
import { ROOT } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';

/** The outputs loaded with `output` (itself and what it imports statically, transitively). */
function loadedWith(meta: Metafile, output: string): string[] {
  const seen = new Set<string>();
  const visit = (file: string) => {
    if (seen.has(file) || !meta.outputs[file]) return;
    seen.add(file);
    for (const imp of meta.outputs[file].imports) if (imp.kind === 'import-statement' && !imp.external) visit(imp.path);
  };
  visit(output);
  return [...seen];
}

const matterInputs = (meta: Metafile, output: string) =>
  Object.keys(meta.outputs[output]?.inputs ?? {}).filter((i) => packageOf(i)?.startsWith('@matter/'));

describe('matter.js in a build of the gateway', () => {
  let out = '';
  let meta: Metafile;
  const outputOf = (source: string) => {
    const found = Object.keys(meta.outputs).find((o) => Object.keys(meta.outputs[o]?.inputs ?? {}).includes(source));
    assert.ok(found, `${source} is in the build`);
    return found;
  };
  before(() => {
    out = tempDir('opencube-dist-');
    meta = build(ROOT, { outDir: out, log: () => {} });
  });
  after(() => rmSync(out, { recursive: true, force: true }));

  it('is bundled: the bridge imports no matter.js package from node_modules at run time', () => {
    const bundled = Object.values(meta.outputs).flatMap((o) => Object.keys(o.inputs));
    for (const file of [
      'node_modules/@matter/general/dist/esm/index.js',
      'node_modules/@matter/node/dist/esm/index.js',
    ])
      assert.ok(
        bundled.some((i) => i.endsWith(file)),
        `${file} is bundled`,
      );
    for (const [file, o] of Object.entries(meta.outputs)) {
      const external = o.imports.filter((i) => i.external && i.path.startsWith('@matter/')).map((i) => i.path);
      assert.deepEqual(external, [], `${file} imports no @matter package`);
      if (!file.endsWith('.js')) continue;
      const text = readFileSync(resolve(ROOT, file), 'utf8');
      assert.doesNotMatch(text, /(?:import\(|from)\s*["']@matter\//, `${file} imports no @matter package`);
    }
    // The source tree's loader imports the packages by name: in dist/ it would load them a second time.
    assert.equal(
      bundled.some((i) => i === 'src/integrations/matter/load.ts'),
      false,
      'the by-name loader is left out',
    );
  });

  it('is loaded neither at the start nor with the gateway, only with the bridge', () => {
    const main = relative(ROOT, join(out, 'main.js'));
    for (const start of [main, outputOf('src/gateway.ts'), outputOf('src/integrations/matter/integration.ts')])
      for (const output of loadedWith(meta, start))
        assert.deepEqual(matterInputs(meta, output), [], `${output}, loaded with ${start}, holds no matter.js`);
    const withBridge = loadedWith(meta, outputOf('src/integrations/matter/bridge.ts'));
    assert.ok(
      withBridge.some((o) => matterInputs(meta, o).length > 100),
      'the bridge loads matter.js',
    );
  });

  it('is left without comments, each of its chunks naming the packages it holds with their versions and licences', () => {
    const chunks = Object.keys(meta.outputs).filter((o) => matterInputs(meta, o).length > 0);
    assert.ok(chunks.length > 0);
    for (const file of chunks) {
      const text = readFileSync(resolve(ROOT, file), 'utf8');
      // esbuild marks each module's start with a comment in a bundle left as it is; here none is left.
      assert.doesNotMatch(text, /\/\/ node_modules\//, `${file} has no comments left`);
      const notice = /^\/\*!\n([\s\S]*?)\*\/\n/.exec(text)?.[1] ?? '';
      const packages = new Set(Object.keys(meta.outputs[file]?.inputs ?? {}).map(packageOf));
      packages.delete(undefined);
      for (const name of packages) {
        const { version, license } = JSON.parse(
          readFileSync(join(ROOT, 'node_modules', name as string, 'package.json'), 'utf8'),
        );
        assert.ok(
          notice.includes(` * ${name} ${version}, ${license}`),
          `${file} names ${name} ${version} (${license})`,
        );
        assert.ok(notice.includes(`node_modules/${name}/LICENSE`), `${file} says where the licence of ${name} is`);
      }
      if ([...packages].some((p) => p?.startsWith('@matter/')))
        assert.match(notice, /Apache-2\.0, Copyright 2022-\d{4} Matter\.js Authors/);
    }
  });

  it('keeps the names of its functions, which matter.js reads at run time (a log format is known by its name)', () => {
    // Imported in a child process: its own node_modules copy of matter.js must not be in the way.
    const general = outputOf('node_modules/@matter/general/dist/esm/log/LogFormat.js');
    const script = `const m = await import(${JSON.stringify(resolve(ROOT, general))});
      const LogFormat = Object.values(m).find((v) => typeof v === 'function' && v.name === 'LogFormat');
      console.log(JSON.stringify(Object.values(LogFormat.formats).map((f) => f.name)));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.deepEqual(JSON.parse(r.stdout.trim()), ['plain', 'ansi', 'html']);
  });
});
