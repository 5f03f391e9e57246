/**
 * Time, injected: every timer of the gateway (link window, directive and confirmation deadlines,
 * exit and entry delays, heartbeats, playback countdowns, pacing) goes through a Clock, so that
 * tests move time forward by hand instead of waiting it out (test/helpers/clock.ts).
 */

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  /** Calls `fn` once after `ms`; the returned function cancels it. */
  setTimer(ms: number, fn: () => void): () => void;
}

/** The real clock. Its timers do not keep the process alive: a stopping gateway does not wait for a sound. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(ms, fn) {
    // setTimeout caps at about 24.8 days; longer waits are re-armed in steps.
    const MAX = 2 ** 31 - 1;
    let timer: NodeJS.Timeout;
    const arm = (left: number) => {
      timer = setTimeout(() => (left > MAX ? arm(left - MAX) : fn()), Math.min(left, MAX));
      timer.unref();
    };
    arm(Math.max(0, ms));
    return () => clearTimeout(timer);
  },
};

/** Resolves after `ms` on `clock`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve));
}
