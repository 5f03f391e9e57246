/**
 * The short runs of `npm run fuzz` and `npm run soak` (issue 16): the same scripts, with fewer
 * requests, cuts, kills and connections, as child processes in a private network namespace.
 * Each must exit 0 (nothing crashed, lost, duplicated or answered outside the envelope) and
 * print its figures.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';

/**
 * Runs a script to its end. After `ms` (a guard, not a timing) its process group gets SIGTERM,
 * on which the script stops the gateways it started, then SIGKILL.
 */
function run(script: string, args: string[], ms: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'scripts', script), ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      out += c;
    });
    const signal = (s: NodeJS.Signals) => {
      try {
        process.kill(-(child.pid as number), s);
      } catch {
        // gone
      }
    };
    let kill: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      signal('SIGTERM');
      kill = setTimeout(() => signal('SIGKILL'), 10_000);
    }, ms);
    child.on('close', (code) => {
      clearTimeout(timer);
      clearTimeout(kill);
      resolve({ code, out });
    });
  });
}

test('npm run fuzz, short: 2,000 requests across every route, no crash, nothing outside the envelope, no 5xx', async () => {
  const r = await run('fuzz.ts', ['--requests', '2000', '--seed', String(Date.now() % 100_000)], 120_000);
  assert.equal(r.code, 0, r.out);
  // Every operation of the OpenAPI document but the reboot, and four paths beside them.
  const doc = JSON.parse(readFileSync(join(ROOT, 'docs', 'openapi.json'), 'utf8')) as {
    paths: Record<string, Record<string, unknown>>;
  };
  const operations = Object.entries(doc.paths)
    .filter(([path]) => !path.endsWith('hardware/reboot'))
    .reduce((n, [, ops]) => n + Object.keys(ops).length, 0);
  assert.match(r.out, new RegExp(`^requests: 2000 \\(\\d+ raw\\) over ${operations + 4} routes`, 'm'));
  assert.match(r.out, /^crashes: 0$/m);
  assert.match(r.out, /^answers outside the envelope: 0$/m);
  assert.match(r.out, /^5xx: 0$/m);
});

test('npm run soak, quick: kill -9, stream cuts, the fault zoo, the attacks, the idle default gateway and the attacks of issue 24 all hold', async () => {
  const r = await run('soak.ts', ['--quick', '--seed', String(Date.now() % 100_000)], 420_000);
  assert.equal(r.code, 0, r.out);
  assert.match(r.out, /^kill -9: \d+ acknowledged writes across 2 SIGKILLs .*: 0 lost, integrity_check ok every time/m);
  assert.match(
    r.out,
    /^stream soak: 120 random cuts and resumes over \d+ events: 0 lost, 0 duplicated, 0 out of order, 0 gaps/m,
  );
  assert.match(r.out, /^fault zoo: 11 controls, 0 with a wrong code or later than 5 s/m);
  assert.match(r.out, /^idle connections: 2000 opened without a token; 100\/100 authorised requests answered/m);
  assert.match(
    r.out,
    /^default npm start idle \d+ s \(keep-alive 1 s\): (\d+)\/\1 devices online, ready, a light switched on and off, 0 lines of the log saying something went offline/m,
  );
  // Issue 24 (scripts/reliability/security-rows.ts).
  assert.match(
    r.out,
    /^login flood: .*80 at once from one address: [0-5] checked, the right one refused; the owner's browser logged in meanwhile; a foreign Host refused 3\/3/m,
  );
  assert.match(
    r.out,
    /^fetches as a scanner: \d+ targets .* got 1 answer\(s\) from media\/audio-player, 1 from the RTSP probe, 1 from the ESP32-CAM probe; 0 held a byte of a secret/m,
  );
  assert.match(r.out, /^stalls: the longest event-loop stall idle \d+ ms, one 8 MiB WAV \d+ ms/m);
  assert.match(r.out, /^retained Home Assistant command: (carried out 1 time\(s\)|not tried)/m);
  assert.match(r.out, /^crafted backups: restores refused (\d+)\/\1, the gateway served throughout/m);
  assert.match(r.out, /^all held/m);
});
