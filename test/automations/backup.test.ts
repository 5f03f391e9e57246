/**
 * Scenes and automations across a backup and restore, and a factory reset (issue 26): a backup
 * carries every definition; the first start of the restored store stops the runs that were under
 * way when the backup was taken (they would act on a home that has moved on) and catches up no
 * time trigger that fell between the backup and the restore, once only; a factory reset clears
 * every definition and tells the streams of each, and the engine goes on with the empty store.
 */
import assert from 'node:assert/strict';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { Definition } from '../../src/automations/model.ts';
import { writeBackup } from '../../src/core/maintenance/store-backup.ts';
import { installRestore, prepareRestore, stagedPath } from '../../src/core/maintenance/store-restore.ts';
import { settle } from '../helpers/clock.ts';
import { startGateway, tempDir } from '../helpers/foundation.ts';
import { MIN, named, S, startHome, until } from './home.ts';

/** Monday 6 January 2025, 17:50 in Berlin (16:50 UTC): ten minutes before the evening automation. */
const MONDAY_1750 = Date.UTC(2025, 0, 6, 16, 50);

function saved(r: { ok: true; definition: Definition } | { ok: false; errors: string[] }): Definition {
  if (!r.ok) throw new Error(r.errors.join('; '));
  return r.definition;
}

describe('a backup and its restore', () => {
  test('carry every scene and automation; the restored store stops the runs under way at the backup and catches up nothing that fell since', async (t) => {
    const home = await startHome({ at: MONDAY_1750 });
    t.after(() => home.stop());
    const { engine, clock } = home;
    const scene = saved(
      engine.save({ kind: 'scene', name: 'Evening', actions: [{ type: 'notify', message: 'evening' }] }),
    );
    const daily = saved(
      engine.save({
        kind: 'automation',
        name: 'At six',
        triggers: [{ type: 'time', at: '18:00' }],
        actions: [{ type: 'notify', message: 'six o’clock' }],
      }),
    );
    const long = saved(
      engine.save({
        kind: 'automation',
        name: 'Long',
        triggers: [{ type: 'started' }],
        actions: [
          { type: 'notify', message: 'begin' },
          { type: 'delay', seconds: 3600 },
          { type: 'notify', message: 'end' },
        ],
      }),
    );
    assert.equal(engine.setEnabled(long.id, false).ok, true);
    assert.ok(engine.run(long.id).ok);
    await until(() => engine.active().some((r) => r.automation_id === long.id && r.status === 'waiting'));

    const byName = (list: Definition[]) => [...list].sort((a, b) => a.name.localeCompare(b.name));
    const definitions = byName(engine.list());
    assert.deepEqual(
      definitions.map((d) => d.id),
      [daily.id, scene.id, long.id],
    );

    const dir = tempDir('opencube-automations-backup-');
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const file = join(dir, 'gateway.backup');
    await writeBackup(home.g.gateway.db, file, { gatewayVersion: 'test', settings: {}, now: clock.now() });
    const takenAt = new Date(clock.now()).toISOString();

    // Restored at 18:05, within the grace in which a missed 18:00 would otherwise run at the start.
    await home.stop();
    clock.advance(15 * MIN);
    const fresh = join(dir, 'restored');
    mkdirSync(fresh);
    const dbPath = join(fresh, 'gateway.db');
    const check = prepareRestore(file, stagedPath(dbPath));
    assert.ok(check.ok, check.ok ? '' : check.message);
    installRestore(dbPath, stagedPath(dbPath));
    const overrides = { time_zone: 'Europe/Berlin', location: '52.52,13.405' };
    let g = await startGateway({ dataDir: fresh, overrides, gatewayOptions: { clock } });
    t.after(() => g.stop());
    let restored = g.gateway.automations();
    assert.ok(restored);

    // Every definition, as it was.
    assert.deepEqual(byName(restored.list()), definitions);
    // The run under way at the backup is stopped, saying why; nothing of it runs later.
    assert.deepEqual(restored.active(), []);
    const [trace] = restored.traces(long.id);
    assert.equal(trace?.result, 'stopped');
    assert.equal(
      trace?.reason,
      `stopped: the store was restored from a backup taken at ${takenAt}; this run was under way when it was taken`,
    );
    // 18:00 fell between the backup and the restore: not run at the start, not even as missed.
    assert.deepEqual(restored.traces(daily.id), []);
    assert.equal(restored.nextFirings(daily.id)[0]?.at, '2025-01-07T17:00:00.000Z');

    // Only the first start after the restore does that: a run started now resumes after a restart.
    assert.ok(restored.run(long.id).ok);
    await until(() => restored?.active().some((r) => r.status === 'waiting'));
    g = await g.restart(() => clock.advance(MIN));
    restored = g.gateway.automations();
    assert.ok(restored);
    assert.deepEqual(
      restored.active().map((r) => [r.automation_id, r.status]),
      [[long.id, 'waiting']],
    );
    assert.equal(restored.traces(long.id, 'run').filter((x) => x.result === 'stopped').length, 1);
    clock.advance(3600 * S);
    await until(() => restored?.traces(long.id).some((x) => x.result === 'finished'));
  });
});

describe('a factory reset', () => {
  test('clears every scene and automation with its traces, tells of each, and the engine goes on with the empty store', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const { engine } = home;
    const ids = [
      saved(engine.save({ kind: 'scene', name: 'Night', actions: [{ type: 'notify', message: 'night' }] })).id,
      saved(
        engine.save({
          kind: 'automation',
          name: 'Noon',
          triggers: [{ type: 'time', at: '12:30' }],
          actions: [{ type: 'notify', message: 'noon' }],
        }),
      ).id,
    ];
    assert.ok(engine.run(ids[0] as string).ok);
    await until(() => engine.traces(ids[0] as string).length === 1);
    const before = home.events.length;

    await home.g.gateway.reset();

    assert.deepEqual(engine.list(), []);
    assert.equal(engine.started, true);
    const told = named(home.events.slice(before), 'automation#changed').map((e) => e.data.payload);
    assert.deepEqual(
      told.filter((p) => p.change === 'removed').map((p) => p.automation_id),
      ids,
    );
    assert.deepEqual(engine.traces(ids[0] as string), []);
    // Noon's 12:30 does not fire: it is gone.
    home.clock.advance(60 * MIN);
    await settle(50);
    assert.equal(named(home.events.slice(before), 'automation#runStarted').length, 0);
    // A new scene saves and runs.
    const fresh = saved(
      engine.save({ kind: 'scene', name: 'Morning', actions: [{ type: 'notify', message: 'morning' }] }),
    );
    assert.ok(engine.run(fresh.id).ok);
    await until(() => engine.traces(fresh.id)[0]?.result === 'finished');
  });
});
