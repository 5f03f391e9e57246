#!/usr/bin/env node
// Runs before `npm start` and `npm test` (npm's pre-scripts): installs the locked dependencies
// when node_modules is missing or older than package-lock.json, so a fresh clone needs no
// separate set-up step. The development dependencies are installed too, even where npm is set to
// leave them out (NODE_ENV=production): `npm start` builds dist/ with typescript, a development
// dependency (scripts/build.mjs). Plain JavaScript: it must run before anything is installed.
//
// A first install takes a minute or two, mostly better-sqlite3 building from source: it says
// what it is doing while it runs (downloads counted, each build script named, a line at least
// every PROGRESS_EVERY_MS), and says at once, in one line, when the registry cannot be reached,
// rather than after npm's own retries.
import { execSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, realpathSync, renameSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PROGRESS_EVERY_MS = 10_000;
const REGISTRY_TIMEOUT_MS = Number(process.env.OPENCUBE_REGISTRY_TIMEOUT_MS) || 5_000;

/** Whether the installed dependencies are those of the lock (and the tools the scripts run are there). */
export function installed(dir = '.') {
  const want = lockHash(dir);
  const stamp = `${dir}/node_modules/.opencube-deps`;
  const have = existsSync(stamp) ? readFileSync(stamp, 'utf8').trim() : '';
  return (
    have === want && existsSync(`${dir}/node_modules/.bin/tsx`) && existsSync(`${dir}/node_modules/typescript/bin/tsc`)
  );
}

function lockHash(dir) {
  return createHash('sha256')
    .update(readFileSync(`${dir}/package-lock.json`))
    .digest('hex');
}

/**
 * Why the registry npm would use cannot be reached, or undefined when it answers (any HTTP
 * answer counts: the registry is there). Skipped behind a proxy, which Node's fetch would not use.
 */
export async function registryProblem(env = process.env, timeoutMs = REGISTRY_TIMEOUT_MS) {
  const registry = npmConfig('registry', env) || 'https://registry.npmjs.org/';
  const proxy =
    npmConfig('https-proxy', env) ||
    npmConfig('proxy', env) ||
    env.HTTPS_PROXY ||
    env.https_proxy ||
    env.HTTP_PROXY ||
    env.http_proxy;
  if (proxy) return undefined;
  try {
    await fetch(new URL('-/ping', registry.endsWith('/') ? registry : `${registry}/`), {
      signal: AbortSignal.timeout(timeoutMs),
    });
    return undefined;
  } catch (err) {
    const cause = err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(err);
    const why = err?.name === 'TimeoutError' ? `no answer in ${timeoutMs / 1000} s` : cause;
    return `cannot reach the npm registry at ${registry} (${why}): check the network, or npm's registry and proxy settings (npm config get registry), then run this again`;
  }
}

function npmConfig(key, env) {
  const fromEnv = env[`npm_config_${key.replace(/-/g, '_')}`];
  if (fromEnv !== undefined) return fromEnv === 'null' ? '' : fromEnv;
  try {
    const v = execSync(`npm config get ${key}`, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    return v === 'null' || v === 'undefined' ? '' : v;
  } catch {
    return '';
  }
}

/**
 * Turns npm's output at `--loglevel=info` into what a person wants to see: its warnings and
 * errors and its summary as they are, downloads counted, install scripts named, and a line at
 * least every `everyMs` while npm says nothing. `say` writes one line; `now` is the clock.
 */
export function progressReporter(say, now = Date.now, everyMs = PROGRESS_EVERY_MS) {
  const started = now();
  let downloads = 0;
  let lastSaid = started;
  let doing = 'resolving the dependency tree';
  const elapsed = () => `${Math.round((now() - started) / 1000)} s`;
  const tell = (text) => {
    lastSaid = now();
    say(text);
  };
  return {
    /** One line of npm's output. */
    line(raw) {
      const text = raw.trimEnd();
      if (text === '') return;
      const fetch = /^npm http fetch GET (\d+) (\S+)/.exec(text);
      if (fetch) {
        if (fetch[2].endsWith('.tgz') && fetch[1] === '200') {
          downloads++;
          doing = 'downloading packages';
        }
        return;
      }
      // `npm info run PKG STAGE PATH COMMAND` when a script starts, `... STAGE { code, signal }` when it ends.
      const run = /^npm info run (\S+) (\w+) (.+)$/.exec(text);
      if (run) {
        if (!run[3].startsWith('{')) {
          doing = `running the ${run[2]} script of ${run[1]}`;
          const slow = run[1].startsWith('better-sqlite3@')
            ? ' (builds from source where no prebuilt binary fits: about a minute)'
            : '';
          tell(`opencube: ${doing}${slow}`);
        }
        return;
      }
      // npm's other info lines (`using npm@...`, `ok`) say nothing to a person.
      if (/^npm info /.test(text)) return;
      tell(text);
    },
    /** Called on a timer: a line when npm has been silent for `everyMs`. */
    tick() {
      if (now() - lastSaid < everyMs) return;
      tell(`opencube: still installing (${elapsed()}): ${doing}, ${downloads} packages downloaded so far`);
    },
    summary() {
      return `${downloads} packages downloaded in ${elapsed()}`;
    },
  };
}

/** Runs npm install of the locked versions, reporting progress; resolves to npm's exit code. */
function runInstall(say) {
  const reporter = progressReporter(say);
  // `npm install` of the locked versions rather than `npm ci`: this registry does not serve the
  // optional packages of other platforms (e.g. biome's), so the lock cannot list them and
  // `npm ci` would refuse it as out of sync.
  const npm = spawn(
    'npm',
    ['install', '--include=dev', '--no-audit', '--no-fund', '--no-save', '--loglevel=info', '--no-progress'],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const timer = setInterval(() => reporter.tick(), 1000);
  for (const stream of [npm.stdout, npm.stderr]) {
    let rest = '';
    stream.setEncoding('utf8');
    stream.on('data', (chunk) => {
      const lines = (rest + chunk).split('\n');
      rest = lines.pop() ?? '';
      for (const l of lines) reporter.line(l);
    });
    stream.on('end', () => reporter.line(rest));
  }
  return new Promise((resolve) => {
    npm.on('error', (err) => {
      clearInterval(timer);
      say(`opencube: could not run npm: ${err.message}`);
      resolve(1);
    });
    npm.on('close', (code) => {
      clearInterval(timer);
      if (code === 0) say(`opencube: dependencies installed (${reporter.summary()})`);
      resolve(code ?? 1);
    });
  });
}

async function main() {
  if (installed()) return;
  const say = (line) => process.stderr.write(`${line}\n`);
  say('opencube: installing the dependencies of package-lock.json (on a fresh clone about 2 minutes)');
  const problem = await registryProblem();
  if (problem) {
    say(`opencube: ${problem}`);
    process.exit(1);
  }
  const code = await runInstall(say);
  if (code !== 0) {
    say(`opencube: npm install failed (exit code ${code}); its messages are above`);
    process.exit(code);
  }
  // A new file renamed into place, never a write into the old one: a node_modules copied with
  // hard links (a git worktree's) must not have its stamp changed by another copy's install.
  writeFileSync('node_modules/.opencube-deps.tmp', `${lockHash('.')}\n`);
  renameSync('node_modules/.opencube-deps.tmp', 'node_modules/.opencube-deps');
}

// Run as a script (npm's pre-scripts), not when a test imports it.
if (process.argv[1] && fileURLToPath(import.meta.url) === realpathSync(process.argv[1])) await main();
