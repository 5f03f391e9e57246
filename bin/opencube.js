#!/usr/bin/env node
// Entry point for the `opencube` command: runs the compiled gateway in dist/, building it first
// when src/ changed (scripts/build.mjs). The TypeScript runs through tsx only in tests and
// development (`npm run dev`).
import { ensureBuilt } from '../scripts/build.mjs';

try {
  ensureBuilt();
} catch (err) {
  process.stderr.write(`opencube: ${err.message}\n`);
  process.exit(1);
}
await import('../dist/main.js');
