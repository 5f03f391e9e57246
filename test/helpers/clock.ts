/** A clock driven by hand for tests: timers fire only when the test moves time past them. */
import type { Clock } from '../../src/lib/clock.ts';

/** A clock that moves only when told; timers fire in order as it passes them. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;
  /** Timers fired so far. */
  fired = 0;

  /**
   * `zeroAtOnce`: a timer of 0 ms runs on the next turn of the event loop without the clock being
   * moved, as a driver's "retry now" does with the real clock (the herdsman tests).
   */
  constructor(
    private t = Date.UTC(2025, 0, 1),
    private readonly opts: { zeroAtOnce?: boolean } = {},
  ) {}

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    if (this.opts.zeroAtOnce && ms <= 0) {
      const immediate = setImmediate(fn);
      return () => clearImmediate(immediate);
    }
    const timer = { at: this.t + Math.max(0, ms), seq: this.seq++, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Moves time forward by `ms`, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const target = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= target).sort((a, b) => a.at - b.at || a.seq - b.seq)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      this.fired++;
      due.fn();
    }
    this.t = target;
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }

  /** When the timers not yet fired are due (epoch ms, soonest first). */
  dueTimes(): number[] {
    return this.timers.map((x) => x.at).sort((a, b) => a - b);
  }
}

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
