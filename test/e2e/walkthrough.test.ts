/**
 * The README's "first five minutes", run as written: its first block (`npm start`) in the
 * background, every other command in order in one shell, inside a private network namespace (only
 * loopback: the defaults bind 0.0.0.0:8081 and advertise over mDNS, and nothing leaves the machine)
 * and a private mount namespace whose /tmp is a folder of this test: the README's fixed
 * `/tmp/opencube-*` files are written there, and those of the machine (a user following the README
 * at the same time) are left as they are. The data folder is a temporary one (through
 * OPENCUBE_DATA_DIR, the documented environment variable), so a developer's own ./data is never
 * touched.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/cli.ts';
import { canUnshare } from '../helpers/netns.ts';

/** The shell blocks between the walkthrough markers of the README. */
export function walkthroughBlocks(readme: string): string[] {
  const start = readme.indexOf('<!-- walkthrough:start -->');
  const end = readme.indexOf('<!-- walkthrough:end -->');
  assert.ok(start >= 0 && end > start, 'the README has its walkthrough markers');
  return [...readme.slice(start, end).matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

test('the README walk-through runs as written: token, link, devices, a light on the stream, a synced lamp and its service', {
  skip: canUnshare ? false : 'unshare -n is not permitted here (needs root)',
  timeout: 300_000,
}, () => {
  const blocks = walkthroughBlocks(readFileSync(join(ROOT, 'README.md'), 'utf8'));
  assert.equal(blocks[0]?.trim(), 'npm start', 'the first step starts the gateway');
  const dir = mkdtempSync(join(tmpdir(), 'opencube-walkthrough-'));
  // Inside the namespaces this folder is /tmp: the script, the data and the README's files live there.
  const ownTmp = join(dir, 'tmp');
  mkdirSync(ownTmp);
  const script = join(ownTmp, 'walkthrough.sh');
  const readmeFiles = ['events.txt', 'devices.json', 'service.log'].map((f) => `/tmp/opencube-${f}`);
  const before = readmeFiles.map(fileState);
  writeFileSync(
    script,
    [
      'set -e',
      // Every process the walk-through starts is in this process group (its own session): all stop
      // with it, the script itself excepted (it keeps the walk-through's exit status), which waits
      // for the gateway's graceful stop (its pid file goes last): nothing of it runs, or writes its
      // data folder, after the script.
      'export OPENCUBE_DATA_DIR=/tmp/data',
      'trap \'trap "" TERM; kill 0 2>/dev/null; wait; for i in $(seq 1 100); do [ -e "$OPENCUBE_DATA_DIR/opencube.pid" ] || break; sleep 0.1; done\' EXIT',
      `cd ${JSON.stringify(ROOT)}`,
      `(${blocks[0]?.trim()}) > /tmp/start.log 2>&1 &`,
      'for i in $(seq 1 240); do curl -s -o /dev/null http://localhost:8081/open-api/v2/rest/bridge && break; sleep 0.5; done',
      ...blocks.slice(1).map((b, i) => `echo "== step ${i + 1}"\n${b}`),
      'echo "== done"',
    ].join('\n'),
  );
  // A clone under /tmp (as CI may make it) would be hidden by the folder mounted over /tmp: it is
  // mounted again at its own path inside that folder first, so the README's `cd` finds it.
  const underTmp = ROOT.startsWith('/tmp/') ? ROOT.slice('/tmp/'.length) : undefined;
  if (underTmp) mkdirSync(join(ownTmp, underTmp), { recursive: true });
  const keepRoot = underTmp ? `mount --bind ${JSON.stringify(ROOT)} ${JSON.stringify(join(ownTmp, underTmp))} && ` : '';
  try {
    const r = spawnSync(
      'unshare',
      [
        '-n',
        '-m',
        '--propagation',
        'private',
        'sh',
        '-c',
        `ip link set lo up && ${keepRoot}mount --rbind ${JSON.stringify(ownTmp)} /tmp && exec setsid bash /tmp/walkthrough.sh`,
      ],
      {
        encoding: 'utf8',
        timeout: 280_000,
      },
    );
    const out = r.stdout;
    const log = () =>
      `\n--- stdout\n${out}\n--- stderr\n${r.stderr}\n--- gateway\n${readTail(join(ownTmp, 'start.log'))}`;
    assert.equal(r.status, 0, `the walk-through failed${log()}`);
    assert.match(out, /\{"error":401,"data":\{\},"message":"link button not pressed"\}/, log());
    assert.match(out, /approved: my-app/, log());
    assert.match(out, /token: \S{20,}/, log());
    assert.match(out, /event: device#v2#updateDeviceState\ndata: \{"endpoint":\{"serial_number":"[0-9a-f]+"\}/, log());
    assert.match(out, /"error":0/, log());
    assert.match(out, /UpdateDeviceStates \{"state":\{"power":\{"powerState":"on"\}\}\}/, log());
    assert.match(out, /== done/, log());
    // The README's files were written in the test's own /tmp; the machine's are as they were.
    for (const f of ['events.txt', 'devices.json', 'service.log'])
      assert.ok(statSync(join(ownTmp, `opencube-${f}`)).isFile(), `the walk-through wrote its /tmp/opencube-${f}`);
    assert.deepEqual(readmeFiles.map(fileState), before, "the machine's /tmp/opencube-* files are untouched");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Whether a file is there, and when it last changed. */
function fileState(file: string): string {
  try {
    const st = statSync(file);
    return `${file} ${st.size} ${st.mtimeMs}`;
  } catch {
    return `${file} absent`;
  }
}

function readTail(file: string): string {
  try {
    return readFileSync(file, 'utf8').slice(-3000);
  } catch {
    return '(no log)';
  }
}
