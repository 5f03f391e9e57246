/** A clock driven by hand for tests (src/lib/manual-clock.ts), and waiting for what its timers set off. */

export { ManualClock } from '../../src/lib/manual-clock.ts';

import type { ManualClock } from '../../src/lib/manual-clock.ts';

/** Lets real I/O (sockets, child processes) run: the clock of the gateway is manual, the network is not. */
export function settle(ms = 30): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Whether a promise has settled, without waiting for it. */
export function watch<T>(p: Promise<T>): { readonly done: boolean; value: Promise<T> } {
  const state = { done: false, value: p };
  p.then(
    () => {
      state.done = true;
    },
    () => {
      state.done = true;
    },
  );
  return state;
}

/**
 * Moves `clock` forward by `stepMs` until `p` settles (letting I/O run after each step) and
 * returns how far the clock moved: a request that waits on the gateway's timers is answered at a
 * clock time the test can assert exactly, without waiting that long.
 */
export async function advanceUntil<T>(
  clock: ManualClock,
  p: Promise<T>,
  opts: { stepMs?: number; maxMs?: number } = {},
): Promise<{ value: T; elapsedMs: number }> {
  const step = opts.stepMs ?? 100;
  const max = opts.maxMs ?? 60_000;
  const w = watch(p);
  let elapsed = 0;
  await settle();
  while (!w.done) {
    if (elapsed >= max) throw new Error(`not settled after ${max} ms of clock time`);
    const fired = clock.fired;
    clock.advance(step);
    elapsed += step;
    await settle();
    // A timer fired in this step: give what it set off time to reach the client before moving on
    // (a busy machine may take longer than one settle: up to 3 s of real time, seen needed at a
    // load average of 13), so the answer is seen at this step.
    const patience = Date.now() + 3000;
    while (!w.done && clock.fired > fired && Date.now() < patience) await settle();
  }
  return { value: await p, elapsedMs: elapsed };
}
