/**
 * The traces of triggers that fire but do not start a run, kept in memory and written in batches
 * (issue 26: a chatty sensor whose condition fails all day must not wear an SD card with a commit
 * each): shown at once, written to the store at most once a minute through many minutes on the
 * injected clock, at once when enough wait, and when the gateway stops; the store's ring of 10
 * holds, and a removed automation's waiting traces go with it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { iso } from '../../src/automations/trace.ts';
import { type Home, MIN, S, startHome } from './home.ts';

/** An automation set off by arming any mode, whose condition (a minute at 03:00) never holds in these tests. */
function neverRuns(home: Home, name = 'Armed at three'): string {
  const r = home.engine.save({
    kind: 'automation',
    name,
    triggers: [{ type: 'security', state: 'armed' }],
    conditions: [{ type: 'time', after: '03:00', before: '03:01' }],
    actions: [{ type: 'notify', message: 'armed at three' }],
  });
  assert.ok(r.ok, JSON.stringify(r));
  return r.definition.id;
}

/** Arms and disarms the first mode: one trigger that fires and is not run. */
function armOnce(home: Home): void {
  assert.ok(home.g.gateway.alarm.arm(1).ok);
  home.g.gateway.alarm.disarmAll();
}

/** The start times of the traces not run that the store holds for an automation, newest first. */
function stored(home: Home, id: string): string[] {
  return (
    home.g.gateway.db
      .prepare(
        "SELECT started_at FROM automation_traces WHERE automation_id = ? AND bucket = 'not_run' ORDER BY id DESC",
      )
      .all(id) as { started_at: string | number }[]
  ).map((r) => (typeof r.started_at === 'number' ? iso(r.started_at) : r.started_at));
}

describe('traces of triggers not run', () => {
  test('a trigger not run every 10 s for ten minutes is shown at once and written once a minute, the ring of 10 kept', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const id = neverRuns(home);
    const at: string[] = [];
    for (let minute = 0; minute < 10; minute++) {
      const before = stored(home, id);
      for (let k = 0; k < 6; k++) {
        armOnce(home);
        at.unshift(iso(home.clock.now()));
        // Shown at once, with why, newest first; the store does not have it yet.
        const shown = home.engine.traces(id, 'not_run');
        assert.equal(shown[0]?.started_at, at[0]);
        assert.equal(shown[0]?.reason, 'condition conditions.0 (time) did not hold');
        assert.deepEqual(
          shown.map((x) => x.started_at),
          at.slice(0, 10),
        );
        assert.deepEqual(stored(home, id), before, `minute ${minute}, trigger ${k}: nothing written yet`);
        home.clock.advance(10 * S);
      }
      // The minute since the first one waiting is over: the batch is in the store.
      assert.deepEqual(stored(home, id), at.slice(0, 10), `minute ${minute}: the batch is written`);
    }
    assert.equal(home.engine.traces(id).length, 10);
  });

  test('a batch goes at once when enough traces wait, and at the stop of the gateway; a restart reads them back', async (t) => {
    let home = await startHome({ notRun: { flushMs: 60_000, maxPending: 4 } });
    t.after(() => home.stop());
    const a = neverRuns(home, 'A');
    const b = neverRuns(home, 'B');
    // Each arming sets off both: two traces a time, four after the second.
    armOnce(home);
    assert.deepEqual([stored(home, a).length, stored(home, b).length], [0, 0]);
    armOnce(home);
    assert.deepEqual([stored(home, a).length, stored(home, b).length], [2, 2]);
    home.clock.advance(S);
    armOnce(home);
    assert.equal(stored(home, a).length, 2);
    home = await home.restart(MIN);
    assert.deepEqual([stored(home, a).length, stored(home, b).length], [3, 3]);
    assert.equal(home.engine.traces(a, 'not_run').length, 3);
  });

  test('the waiting traces of an automation removed go with it; the others are written', async (t) => {
    const home = await startHome();
    t.after(() => home.stop());
    const gone = neverRuns(home, 'Gone');
    const kept = neverRuns(home, 'Kept');
    armOnce(home);
    assert.ok(home.engine.remove(gone));
    home.clock.advance(MIN);
    assert.deepEqual(stored(home, gone), []);
    assert.equal(stored(home, kept).length, 1);
  });
});
