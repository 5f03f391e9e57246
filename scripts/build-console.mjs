#!/usr/bin/env node
// Builds the web console (console/src) into console/dist, which the gateway serves at `/`:
// one JavaScript bundle and one stylesheet with hashed names, index.html naming them, and a
// brotli and a gzip twin of each. Skips the build when console/dist was built from the same
// sources (a hash of every input is kept in console/dist/.built-from), so `npm start` and the
// tests may call it every time. Plain JavaScript: it runs before any TypeScript tooling, and
// bin/opencube.js imports consoleIsFresh() from it to check in its own process (esbuild is loaded
// only for a build).
// Usage: node scripts/build-console.mjs [--force]
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const src = join(root, 'console', 'src');
const out = join(root, 'console', 'dist');
const stampFile = join(out, '.built-from');

function files(dir) {
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = join(dir, name);
      return statSync(p).isDirectory() ? files(p) : [p];
    });
}

/** A hash of every input of the build: the sources, this script, and the locked versions of the packages. */
function inputStamp() {
  const inputs = [...files(src), fileURLToPath(import.meta.url), join(root, 'package-lock.json')];
  const hash = createHash('sha256');
  for (const f of inputs) hash.update(relative(root, f)).update('\0').update(readFileSync(f)).update('\0');
  return hash.digest('hex');
}

/** Whether console/dist was built from the console's sources as they are now. */
export function consoleIsFresh() {
  return existsSync(stampFile) && readFileSync(stampFile, 'utf8').trim() === inputStamp();
}

/** Builds console/dist from console/src (always; callers check consoleIsFresh() first). */
async function buildConsole() {
  const stamp = inputStamp();
  // Loaded for a build only: bin/opencube.js imports this module for consoleIsFresh() at every start.
  const [{ build }, { brotliCompressSync, constants, gzipSync }] = await Promise.all([
    import('esbuild'),
    import('node:zlib'),
  ]);
  const started = Date.now();
  rmSync(out, { recursive: true, force: true });
  mkdirSync(join(out, 'assets'), { recursive: true });
  const result = await build({
    entryPoints: { app: join(src, 'main.tsx') },
    bundle: true,
    minify: true,
    format: 'esm',
    // What only some pages need (the history's charts and uPlot) comes in chunks they import when
    // opened: the first load stays the page, one script and one stylesheet.
    splitting: true,
    chunkNames: 'chunk-[hash]',
    target: ['es2022', 'chrome100', 'firefox100', 'safari15'],
    jsx: 'automatic',
    jsxImportSource: 'preact',
    outdir: join(out, 'assets'),
    entryNames: '[name]-[hash]',
    assetNames: '[name]-[hash]',
    metafile: true,
    absWorkingDir: root,
    legalComments: 'none',
    logLevel: 'warning',
    define: { 'process.env.NODE_ENV': '"production"' },
  });

  const built = Object.keys(result.metafile.outputs).map((p) => join(root, p));
  // The entry's script and its stylesheet (the chunks are imported by the script itself).
  const entry = Object.entries(result.metafile.outputs).find(([p, o]) => o.entryPoint && p.endsWith('.js'));
  if (!entry?.[1].cssBundle) throw new Error('the console build made no entry script with its stylesheet');
  const name = (p) => `assets/${relative(join(out, 'assets'), join(root, p))}`;
  const html = readFileSync(join(src, 'index.html'), 'utf8')
    .replace('%SCRIPT%', `/${name(entry[0])}`)
    .replace('%STYLE%', `/${name(entry[1].cssBundle)}`);
  writeFileSync(join(out, 'index.html'), html);

  for (const f of [join(out, 'index.html'), ...built]) {
    const body = readFileSync(f);
    writeFileSync(`${f}.gz`, gzipSync(body, { level: 9 }));
    writeFileSync(
      `${f}.br`,
      brotliCompressSync(body, {
        params: { [constants.BROTLI_PARAM_QUALITY]: 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length },
      }),
    );
  }
  writeFileSync(stampFile, `${stamp}\n`);
  console.error(`opencube: console built into console/dist in ${Date.now() - started} ms`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (process.argv.includes('--force') || !consoleIsFresh()) await buildConsole();
}
