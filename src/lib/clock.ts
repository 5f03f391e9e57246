/**
 * Time, injected: every timer of the gateway (link window, directive and confirmation deadlines,
 * exit and entry delays, heartbeats, pacing) goes through a Clock, so that tests move time
 * forward instead of waiting it out.
 */

/** A timer handle of a Clock. */
export interface TimerHandle {
  /** Lets the process exit while the timer is pending (as Node's `unref`). */
  unref?(): void;
}

export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle | undefined): void;
}

/** The real clock. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout | undefined),
};

/** Resolves after `ms` on `clock`. */
export function sleep(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimeout(resolve, ms));
}
