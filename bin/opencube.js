#!/usr/bin/env node
// Entry point for the `opencube` command: runs the compiled gateway in dist/, building it first
// when src/ changed (scripts/build.mjs), and, for `start`, the web console when console/src
// changed (scripts/build-console.mjs). Both checks run in this process (a few milliseconds); a
// build, rare, is a child process, so that esbuild is never loaded into the gateway (nor its
// service process left beside it). The TypeScript runs through tsx only in tests and development
// (`npm run dev`).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ensureBuilt } from '../scripts/build.mjs';
import { consoleIsFresh } from '../scripts/build-console.mjs';

try {
  ensureBuilt();
} catch (err) {
  // A failed build has said why itself.
  if (err.message) process.stderr.write(`opencube: ${err.message}\n`);
  process.exit(1);
}
if (process.argv.slice(2).includes('start') && !consoleIsFresh()) {
  const script = fileURLToPath(new URL('../scripts/build-console.mjs', import.meta.url));
  // A console that cannot be built leaves the gateway working: its page says how to build it.
  const r = spawnSync(process.execPath, [script], { stdio: 'inherit' });
  if (r.status !== 0) process.stderr.write('opencube: the web console could not be built; the API works without it\n');
}
await import('../dist/main.js');
