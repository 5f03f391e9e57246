#!/usr/bin/env node
// Runs before `npm start` and `npm test` (npm's pre-scripts): installs the locked dependencies
// when node_modules is missing or older than package-lock.json, so a fresh clone needs no
// separate set-up step. The development dependencies are installed too, even where npm is set to
// leave them out (NODE_ENV=production): `npm start` builds dist/ with typescript, a development
// dependency (scripts/build.mjs). Plain JavaScript: it must run before anything is installed.
import { execSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

const lock = readFileSync('package-lock.json');
const want = createHash('sha256').update(lock).digest('hex');
const stamp = 'node_modules/.opencube-deps';
const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
if (have !== want || !existsSync('node_modules/.bin/tsx') || !existsSync('node_modules/typescript/bin/tsc')) {
  console.error('opencube: installing dependencies (better-sqlite3 builds from source: about 2 minutes)');
  // `npm install` of the locked versions rather than `npm ci`: this registry does not serve the
  // optional packages of other platforms (e.g. biome's), so the lock cannot list them and
  // `npm ci` would refuse it as out of sync.
  execSync('npm install --include=dev --no-audit --no-fund --no-save', { stdio: 'inherit' });
  writeFileSync(stamp, `${want}\n`);
}
