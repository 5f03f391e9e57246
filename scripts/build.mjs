#!/usr/bin/env node
// Builds dist/ (the JavaScript the gateway runs) from src/ with tsc, and copies the files tsc does
// not emit (fixtures, the eSpeak worker). `opencube` and `npm start` call ensureBuilt() before they
// run: it rebuilds only when src/ changed since the last build, which it tells from a fingerprint of
// every file's path, size and mtime (a cheap walk: a few milliseconds), so a deleted or renamed
// source counts as a change too. Plain JavaScript: it runs before anything is compiled, and loads
// nothing but node's own modules, since the supervisor process keeps what it loads.
//
//   node scripts/build.mjs           build when src/ changed
//   node scripts/build.mjs --force   build from scratch
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const STAMP = '.build-stamp';
/** Files beside src/ whose change changes the output. */
const CONFIGS = ['tsconfig.json', 'tsconfig.build.json'];

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
    const file = join(root, rel);
    if (!existsSync(file)) continue;
    const st = statSync(file);
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

/** Where the output of a source file goes: `.ts` becomes `.js`, other files are copied as they are. */
function outputOf(rel) {
  return rel.endsWith('.ts') ? `${rel.slice(0, -3)}.js` : rel;
}

/**
 * Builds `outDir` from `root`/src: tsc (incremental, type-checked) for the TypeScript, a copy for
 * every other file, and removal of outputs whose source is gone. Throws with tsc's report on a
 * type error. Prints what it does on stderr.
 */
export function build(root = ROOT, { outDir = join(root, 'dist'), force = false, log = defaultLog } = {}) {
  const started = performance.now();
  const before = fingerprint(root);
  // Without a stamp the folder is from an interrupted or foreign build: start again from nothing.
  if (force || !existsSync(join(outDir, STAMP))) rmSync(outDir, { recursive: true, force: true });
  let tsc;
  try {
    tsc = createRequire(join(root, 'package.json')).resolve('typescript/bin/tsc');
  } catch {
    throw new Error(
      'dist/ needs a build and the typescript package is missing: run "npm install" (with dev dependencies)',
    );
  }
  log(`opencube: building ${relative(process.cwd(), outDir) || '.'}/ from src/ (tsc)`);
  const r = spawnSync(
    process.execPath,
    [
      tsc,
      '-p',
      join(root, 'tsconfig.build.json'),
      '--outDir',
      outDir,
      '--incremental',
      '--tsBuildInfoFile',
      join(outDir, '.tsbuildinfo'),
    ],
    { cwd: root, encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`tsc failed:\n${r.stdout}${r.stderr}`);
  const src = join(root, 'src');
  const sources = sourceFiles(src);
  for (const rel of sources) {
    if (rel.endsWith('.ts')) continue;
    mkdirSync(dirname(join(outDir, rel)), { recursive: true });
    copyFileSync(join(src, rel), join(outDir, rel));
  }
  const wanted = new Set(sources.map(outputOf));
  for (const rel of sourceFiles(outDir)) {
    if (rel === STAMP || rel === '.tsbuildinfo' || wanted.has(rel)) continue;
    rmSync(join(outDir, rel));
  }
  // The fingerprint from before the build: a source saved while tsc ran makes the next run build again.
  writeFileSync(join(outDir, STAMP), before);
  log(`opencube: built in ${((performance.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Builds dist/ when src/ changed since its last build. When it cannot (no typescript package) but
 * an older build exists, it says so and that build runs.
 */
export function ensureBuilt(root = ROOT, { log = defaultLog } = {}) {
  if (isFresh(root)) return;
  try {
    build(root, { log });
  } catch (err) {
    if (!existsSync(join(root, 'dist', 'main.js')) || !/typescript package is missing/.test(err.message)) throw err;
    log(`opencube: ${err.message}; running the previous build`);
  }
}

function defaultLog(line) {
  process.stderr.write(`${line}\n`);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  try {
    if (process.argv.includes('--force')) build(ROOT, { force: true });
    else if (isFresh(ROOT)) defaultLog('opencube: dist/ is up to date');
    else build(ROOT);
  } catch (err) {
    process.stderr.write(`opencube: ${err.message}\n`);
    process.exit(1);
  }
}
