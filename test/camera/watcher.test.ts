/**
 * The watcher's schedule with timers the test fires by hand: rounds one interval apart, offline
 * after the set number of failed checks in a row, online at the first answer, nothing for a
 * camera removed meanwhile, and no round after stop.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type Timers, Watcher } from '../../src/drivers/camera/watcher.ts';

/** Timers that record what is scheduled; `fire()` runs the pending one. */
function manualTimers() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 1;
  const timers: Timers = {
    setTimeout(fn, ms) {
      const id = next++;
      pending.set(id, { fn, ms });
      return id;
    },
    clearTimeout(id) {
      pending.delete(id as number);
    },
  };
  return {
    timers,
    pending: () => [...pending.values()],
    fire() {
      const [id, t] = [...pending.entries()][0] ?? [];
      assert.ok(id !== undefined && t, 'a round is scheduled');
      pending.delete(id);
      t.fn();
    },
  };
}

function setup(failuresBeforeOffline: number) {
  const clock = manualTimers();
  const cameras = new Map<string, { answers: boolean; online: boolean }>([
    ['a', { answers: true, online: true }],
    ['b', { answers: true, online: true }],
  ]);
  const changes: string[] = [];
  let checks = 0;
  const watcher = new Watcher({
    intervalMs: 30_000,
    failuresBeforeOffline,
    timers: clock.timers,
    list: () => [...cameras.keys()],
    check: async (s) => {
      checks++;
      if (s === 'b' && cameras.get('b')?.answers === false) throw new Error('a check that throws counts as failed');
      return cameras.get(s)?.answers ?? false;
    },
    isOnline: (s) => cameras.get(s)?.online ?? false,
    setOnline: (s, online) => {
      const c = cameras.get(s);
      if (c) c.online = online;
      changes.push(`${s}:${online ? 'online' : 'offline'}`);
    },
  });
  return { clock, cameras, changes, watcher, checks: () => checks };
}

test('rounds run one interval apart, and a camera goes offline after the set failures in a row and online at its first answer', async () => {
  const { clock, cameras, changes, watcher } = setup(2);
  watcher.start();
  assert.deepEqual(
    clock.pending().map((t) => t.ms),
    [30_000],
  );
  (cameras.get('a') as { answers: boolean }).answers = false;
  (cameras.get('b') as { answers: boolean }).answers = false;
  clock.fire();
  await watcher.settled();
  assert.deepEqual(changes, [], 'one failure is not enough');
  assert.equal(clock.pending().length, 1, 'the next round is scheduled after this one');
  clock.fire();
  await watcher.settled();
  assert.deepEqual(changes.sort(), ['a:offline', 'b:offline']);
  clock.fire();
  await watcher.settled();
  assert.equal(changes.length, 2, 'an offline camera is not marked offline again');
  (cameras.get('a') as { answers: boolean }).answers = true;
  clock.fire();
  await watcher.settled();
  assert.deepEqual(changes.slice(2), ['a:online']);
  await watcher.stop();
});

test('a success between failures starts the count again', async () => {
  const { clock, cameras, changes, watcher } = setup(2);
  watcher.start();
  const a = cameras.get('a') as { answers: boolean };
  for (const answers of [false, true, false, true, false]) {
    a.answers = answers;
    clock.fire();
    await watcher.settled();
  }
  assert.deepEqual(changes, []);
  await watcher.stop();
});

test('a camera removed during a round is not marked; checkNow joins a running round; stop ends the schedule', async () => {
  const { clock, cameras, changes, watcher, checks } = setup(1);
  watcher.start();
  (cameras.get('a') as { answers: boolean }).answers = false;
  const one = watcher.checkNow();
  const two = watcher.checkNow();
  assert.equal(one, two, 'one round at a time');
  cameras.delete('a');
  await one;
  assert.deepEqual(changes, []);
  assert.equal(checks(), 2);
  await watcher.stop();
  assert.equal(clock.pending().length, 0, 'no round is scheduled after stop');
});
