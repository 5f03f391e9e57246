#!/usr/bin/env node
// Builds dist/ (the JavaScript the gateway runs) from src/ with esbuild: one bundle, split into
// chunks at every `await import()`, so that the drivers and integrations a gateway does not use are
// never loaded (docs/architecture.md). A bundle loads in a fraction of the time of the ~300 modules
// it replaces (docs/benchmarks.md). Type-checking is `tsc --noEmit` in `npm test`; the build does
// not type-check. Files read beside the code (fixtures, sounds, the eSpeak worker, the console)
// stay where they are: the code finds them from the package root (src/lib/package-root.ts).
// `opencube` and `npm start` call ensureBuilt() before they run: it rebuilds only when src/ changed
// since the last build, which it tells from a fingerprint of every file's path, size and mtime (a
// cheap walk: a few milliseconds), so a deleted or renamed source counts as a change too. Plain
// JavaScript: it runs before anything is compiled, and loads nothing but node's own modules unless
// it builds.
//
//   node scripts/build.mjs           build when src/ changed
//   node scripts/build.mjs --force   build from scratch
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = '.build-stamp';
/** Files beside src/ whose change changes the output: this script (its options), the version, the bundled packages' versions. */
const CONFIGS = ['scripts/build.mjs', 'tsconfig.json', 'package.json', 'package-lock.json'];

/**
 * Packages left out of the bundle, loaded from node_modules at run time: native addons, packages
 * that read their own files or spawn workers relative to themselves, and big optional ones that
 * are loaded lazily anyway.
 */
export const EXTERNAL = [
  'better-sqlite3',
  // matter.js's SQLite storage imports it only when running under Bun; the bridge brings its own storage.
  'bun:sqlite',
  'zigbee-herdsman',
  'zigbee-herdsman/*',
  'zigbee-herdsman-converters',
  'zigbee-herdsman-converters/*',
  'pino-pretty',
  'espeak-ng',
  'prom-client',
  // Imported with `await import()` on the first outgoing request (src/lib/lazy-agent.ts): from a
  // bundle, esbuild's wrapper of this CommonJS package lacks its named exports.
  'undici',
  // Fastify requires these only when no schema compilers are given; src/http/server.ts gives its
  // own, which load them the first time a route has a Fastify schema (none has).
  '@fastify/ajv-compiler',
  '@fastify/fast-json-stringify-compiler',
  // Fastify requires it only for inject() (tests); in the bundle its 66 kB were parsed at every start.
  'light-my-request',
];

/** The bundled CommonJS packages call require(): in an ES module it must be made. */
const BANNER =
  "import { createRequire as __opencubeRequire } from 'node:module'; const require = __opencubeRequire(import.meta.url);";

/**
 * What esbuild starts from: the command (dist/main.js) and each worker thread's module,
 * `src/<name>-worker.ts` to `dist/<name>-worker.js`, where src/lib/workers.ts finds it.
 */
export function entryPoints(root) {
  const out = { main: join(root, 'src', 'main.ts') };
  for (const f of sourceFiles(join(root, 'src')))
    if (f.endsWith('-worker.ts')) out[f.slice(0, -'.ts'.length)] = join(root, 'src', f);
  return out;
}

/** Every file under `dir` (relative paths, sorted), skipping test files, which are not built. */
export function sourceFiles(dir) {
  const out = [];
  const walk = (sub) => {
    for (const entry of readdirSync(join(dir, sub), { withFileTypes: true })) {
      const rel = sub === '' ? entry.name : `${sub}/${entry.name}`;
      if (entry.isDirectory()) walk(rel);
      else if (entry.isFile() && !rel.endsWith('.test.ts')) out.push(rel);
    }
  };
  walk('');
  return out.sort();
}

/** One line per source and config file (path, size, mtime): equal fingerprints mean nothing changed. */
export function fingerprint(root) {
  const lines = [];
  for (const rel of [...CONFIGS, ...sourceFiles(join(root, 'src')).map((f) => `src/${f}`)]) {
    // One system call per file: this runs at every start of the gateway (bin/opencube.js).
    const st = statSync(join(root, rel), { throwIfNoEntry: false });
    if (!st) continue;
    lines.push(`${rel} ${st.size} ${Math.trunc(st.mtimeMs)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Whether `outDir` was built from the sources of `root` as they are now. */
export function isFresh(root, outDir = join(root, 'dist')) {
  const stamp = join(outDir, STAMP);
  if (!existsSync(stamp) || !existsSync(join(outDir, 'main.js'))) return false;
  return readFileSync(stamp, 'utf8') === fingerprint(root);
}

/**
 * Builds `outDir` from `root`/src/main.ts: an ES module bundle for node, split into chunks at
 * every dynamic import, and removes the files of earlier builds that this one did not write.
 * Throws with esbuild's report when the sources do not compile. Prints what it does on stderr.
 * Returns esbuild's metafile (which inputs went into which output).
 */
export function build(root = ROOT, { outDir = join(root, 'dist'), force = false, log = defaultLog } = {}) {
  const started = performance.now();
  const before = fingerprint(root);
  // Without a stamp the folder is from an interrupted or foreign build: start again from nothing.
  if (force || !existsSync(join(outDir, STAMP))) rmSync(outDir, { recursive: true, force: true });
  let esbuild;
  try {
    esbuild = createRequire(join(root, 'package.json'))('esbuild');
  } catch {
    throw new Error('dist/ needs a build and the esbuild package is missing: run "npm install"');
  }
  log(`opencube: building ${relative(process.cwd(), outDir) || '.'}/ from src/ (esbuild)`);
  mkdirSync(outDir, { recursive: true });
  let result;
  try {
    // buildSync: ensureBuilt() runs before anything else, in the command's own process.
    result = esbuild.buildSync({
      entryPoints: entryPoints(root),
      absWorkingDir: root,
      bundle: true,
      splitting: true,
      platform: 'node',
      format: 'esm',
      target: 'node20',
      outdir: outDir,
      chunkNames: 'chunks/[name]-[hash]',
      external: EXTERNAL,
      banner: { js: BANNER },
      // What only the source tree has (the test clock, src/main.ts) is left out of the bundle.
      define: { 'process.env.OPENCUBE_BUILD': '"dist"' },
      metafile: true,
      legalComments: 'none',
      logLevel: 'silent',
    });
  } catch (err) {
    const errors = err.errors?.map((e) => `${e.location ? `${e.location.file}:${e.location.line}: ` : ''}${e.text}`);
    throw new Error(`esbuild failed:\n${errors?.join('\n') ?? err.message}`);
  }
  minifyMatterChunks(root, result.metafile, esbuild);
  const written = new Set(Object.keys(result.metafile.outputs).map((p) => relative(outDir, resolve(root, p))));
  for (const rel of written) if (rel.endsWith('.js')) latin1Only(join(outDir, rel));
  for (const rel of sourceFiles(outDir)) {
    if (rel === STAMP || written.has(rel)) continue;
    rmSync(join(outDir, rel));
  }
  // The fingerprint from before the build: a source saved while esbuild ran makes the next run build again.
  writeFileSync(join(outDir, STAMP), before);
  log(`opencube: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return result.metafile;
}

/** The npm package an input file of the bundle comes from (`node_modules/@scope/name/...`), else undefined. */
export function packageOf(input) {
  return /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(input)?.[1];
}

/**
 * Minifies the chunks that hold matter.js (the Matter bridge's, loaded only when the bridge is on):
 * V8 keeps the source text of every module it runs, and matter.js's is about 4.8 MB as bundled,
 * 3.4 MB without its comments and white space (docs/benchmarks.md, "The Matter bridge's memory").
 * Only those chunks: the rest of the gateway is measured as it is. White space and comments only,
 * no renaming: matter.js reads the names of its functions at run time (a log format is known by
 * its function's name), and esbuild's `keepNames`, which would allow renaming, gives every named
 * function a property of its own, a dictionary of about 250 bytes: with 16 devices 10,000 of
 * them, more than the 1 MB that renaming saves. Stack traces keep matter.js's names too. Each
 * chunk starts with the notice of what it was made from: the packages, their versions and licences
 * (matter.js is Apache-2.0, whose attribution a derived work keeps), and where their licence texts
 * are (in node_modules, from which dist/ is built).
 */
function minifyMatterChunks(root, metafile, esbuild) {
  for (const [file, output] of Object.entries(metafile.outputs)) {
    if (!file.endsWith('.js')) continue;
    const packages = new Set(
      Object.keys(output.inputs)
        .map(packageOf)
        .filter((p) => p !== undefined),
    );
    if (![...packages].some((p) => p.startsWith('@matter/'))) continue;
    const path = resolve(root, file);
    const { code } = esbuild.transformSync(readFileSync(path, 'utf8'), {
      format: 'esm',
      target: 'node20',
      minifyWhitespace: true,
      legalComments: 'none',
    });
    writeFileSync(path, `${licenceNotice(root, [...packages].sort())}${code}`);
  }
}

/** A comment naming each bundled package with its version, licence and copyright line. */
function licenceNotice(root, packages) {
  const lines = packages.map((name) => {
    const dir = join(root, 'node_modules', name);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licence = existsSync(join(dir, 'LICENSE')) ? readFileSync(join(dir, 'LICENSE'), 'utf8') : '';
    const copyright = /^\s*(Copyright .+)$/m.exec(licence)?.[1]?.trim();
    return ` * ${name} ${pkg.version}, ${pkg.license}${copyright ? `, ${copyright}` : ''}: node_modules/${name}/LICENSE`;
  });
  return `/*!\n * Bundled and minified from these packages (their licence texts are in node_modules):\n${lines.join('\n')}\n */\n`;
}

/**
 * Escapes the characters above U+00FF that esbuild leaves in a chunk (it escapes them in strings
 * and names, not in the comments it keeps): one `→` in a comment made V8 hold the whole source of
 * the gateway's 0.9 MB chunk two bytes per character, 1.8 MB of an idle gateway's heap instead of
 * 0.9 MB (docs/benchmarks.md). Outside strings only comments are left to escape, where an escape
 * reads the same.
 */
function latin1Only(file) {
  const text = readFileSync(file, 'utf8');
  if (!/[\u0100-\uffff]/.test(text)) return;
  const unicodeEscape = (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`;
  writeFileSync(file, text.replace(/[\u0100-\uffff]/g, unicodeEscape));
}

/** Builds dist/ when src/ changed, here; when it cannot (no esbuild package) but an older build exists, it says so. */
function buildIfStale(root, log) {
  if (isFresh(root)) return;
  try {
    build(root, { log });
  } catch (err) {
    if (!existsSync(join(root, 'dist', 'main.js')) || !/esbuild package is missing/.test(err.message)) throw err;
    log(`opencube: ${err.message}; running the previous build`);
  }
}

/** Raised by ensureBuilt when the build failed; the build process has printed why. */
export class BuildFailed extends Error {}

/**
 * Builds dist/ when src/ changed since its last build, in a child process: the check is a few
 * milliseconds here, and esbuild never loads into the process that then runs the gateway (its
 * buildSync keeps a service thread and an `esbuild --service` child of about 100 MB alive for the
 * process's whole life; issue 23). When it cannot build (no esbuild package) but an older build
 * exists, it says so and that build runs.
 */
export function ensureBuilt(root = ROOT) {
  if (isFresh(root)) return;
  const r = spawnSync(process.execPath, [fileURLToPath(import.meta.url), '--if-stale', '--root', root], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new BuildFailed(r.error ? `the build could not run: ${r.error.message}` : '');
}

function defaultLog(line) {
  process.stderr.write(`${line}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf('--root');
  const root = at === -1 ? ROOT : resolve(process.argv[at + 1]);
  try {
    if (process.argv.includes('--force')) build(root, { force: true });
    else if (process.argv.includes('--if-stale')) buildIfStale(root, defaultLog);
    else if (isFresh(root)) defaultLog('opencube: dist/ is up to date');
    else build(root);
  } catch (err) {
    process.stderr.write(`opencube: ${err.message}\n`);
    process.exit(1);
  }
}
