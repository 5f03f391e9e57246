/**
 * Backups carry the history (its tables are in the one store): a restore brings back the values,
 * the logbook and the exclusions a backup held, and a backup whose logbook row was changed so the
 * gateway could not read it is refused before anything changes.
 */
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { factoryReset } from '../../src/core/maintenance/reset.ts';
import { stagedPath } from '../../src/core/maintenance/store-restore.ts';
import { openDb } from '../../src/store/db.ts';
import { craftBackup } from '../helpers/crafted-backups.ts';
import { call, type TestGateway, tempDir } from '../helpers/foundation.ts';
import { DOOR, type HistoryRig, iso, ok, startHistoryRig, TEMPERATURE } from '../helpers/history.ts';

const START = Date.UTC(2025, 5, 2);
const MIN = 60_000;
const BASE = '/open-api/v2/rest/opencube/history';

let rig: HistoryRig;
let dir: string;
let sensor: string;
let door: string;
let restarted: TestGateway | undefined;

before(async () => {
  dir = tempDir('opencube-history-backup-');
  rig = await startHistoryRig({ start: START, settings: { batch_seconds: 5 } });
  sensor = rig.add('t', 'Cellar', TEMPERATURE);
  door = rig.add('d', 'Cellar door', DOOR);
  // Three hours, so that the backup holds raw values, roll-ups and logbook entries.
  for (let m = 0; m < 180; m++) {
    rig.report(sensor, { temperature: { temperature: 11 + (m % 10) / 10 } });
    if (m % 15 === 0) rig.report(door, { contact: { contact: m % 30 === 0 } });
    await rig.advance(MIN, MIN);
  }
  ok(rig.history.exclude({ serial_number: sensor, capability: 'battery' }));
  await rig.advance(10_000, 10_000);
});

after(async () => {
  await restarted?.stop();
  await rig.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a backup of a gateway with a history', () => {
  it('brings back its values, logbook and exclusions when restored', async () => {
    const file = join(dir, 'with-history.backup');
    const taken = await rig.gw.gateway.backup(file);
    assert.ok(taken, 'a backup was written');
    const values = rig.series(sensor, 'temperature', START);
    assert.equal(values.t.length, 180);
    const logbook = ok(rig.history.logbook({ serial_number: [door], limit: 1000 })).entries.length;
    // What happens after the backup is undone by the restore: the sensor's history deleted.
    ok(await rig.history.forget({ serial_number: sensor }));
    const check = await rig.gw.gateway.stageRestore(file, 'the backup');
    assert.equal(check.ok, true, JSON.stringify(check));
    restarted = await rig.gw.restart();
    const token = restarted.token('after');
    const q = new URLSearchParams({ serial_number: sensor, capability: 'temperature', from: iso(START) });
    const r = await call(restarted.url, 'GET', `${BASE}/series?${q}`, { token });
    assert.equal(r.json.error, 0, r.text);
    // The values of the backup, then what the restart itself adds: the gap where the gateway
    // stopped and the value standing again from its start.
    assert.deepEqual(r.json.data.t.slice(0, 180), values.t);
    assert.deepEqual(r.json.data.value.slice(0, 180), values.value);
    assert.ok(r.json.data.t.length <= 183, r.json.data.t.length);
    const lb = await call(restarted.url, 'GET', `${BASE}/logbook?serial_number=${door}&limit=1000`, { token });
    assert.equal(lb.json.data.entries.length, logbook);
    const ex = await call(restarted.url, 'GET', `${BASE}/exclusions`, { token });
    assert.deepEqual(ex.json.data.exclusions, [{ serial_number: sensor, capability: 'battery' }]);
  });

  it('is refused before anything changes when a logbook value was changed into something not JSON', async () => {
    const gw = restarted ?? rig.gw;
    const taken = join(dir, 'good.backup');
    await gw.gateway.backup(taken);
    const file = craftBackup(taken, join(dir, 'crafted.backup'), (db) =>
      db.prepare("UPDATE history_events SET value = '{' WHERE rowid = (SELECT max(rowid) FROM history_events)").run(),
    );
    const r = await gw.gateway.stageRestore(file, 'the backup');
    assert.equal(r.ok, false);
    assert.ok(!r.ok);
    assert.match(r.message, /history_events, row \d+: value: not JSON/);
    assert.equal(existsSync(stagedPath(gw.gateway.paths.db)), false, 'nothing is staged');
  });
});

describe('a factory reset', () => {
  const count = (db: ReturnType<typeof openDb>) =>
    ['history_devices', 'history_series', 'history_events', 'history_raw', 'history_batches', 'history_exclusions']
      .map((t) => (db.prepare(`SELECT count(*) AS n FROM ${t}`).get() as { n: number }).n)
      .reduce((a, b) => a + b, 0);

  it('with the gateway stopped deletes the history in its one transaction', () => {
    const copy = join(dir, 'offline.db');
    copyFileSync(join(dir, 'with-history.backup'), copy);
    const db = openDb(copy);
    try {
      assert.ok(count(db) > 0, 'the backup holds a history');
      factoryReset(db);
      assert.equal(count(db), 0);
    } finally {
      db.close();
    }
  });

  it('of the running gateway deletes the whole history and every exclusion', async () => {
    const gw = restarted ?? rig.gw;
    const history = gw.gateway.history();
    assert.ok(history && history.devices().length > 0);
    await gw.gateway.reset();
    await history.idle();
    assert.deepEqual(history.devices(), []);
    assert.deepEqual(history.exclusions(), []);
    assert.equal(count(gw.gateway.db), 0);
  });
});
