/**
 * Which run caused an event: the loop breaker's view. What a run's action sets off at once (an
 * arm event, a scene) happens while the run is `current`; a device confirms a command by
 * reporting its new state a moment later through its driver, so a device's reports within a short
 * window after a run commanded it are taken as caused by that run.
 */
import type { Clock } from '../lib/clock.ts';
import type { Cause } from './trace.ts';

/** How long after a command a device's reports count as its echo. */
const ECHO_MS = 10_000;

export class Causality {
  private current: Cause | null = null;
  private readonly expected = new Map<string, { cause: Cause; until: number }>();

  constructor(private readonly clock: Clock) {}

  /** The run acting now, if any (for events published while it acts). */
  now(): Cause | null {
    return this.current;
  }

  /** The run a device's event comes from, when a run commanded it a moment ago (or is acting now). */
  of(serial: string): Cause | null {
    if (this.current) return this.current;
    const x = this.expected.get(serial);
    if (!x) return null;
    if (x.until < this.clock.now()) {
      this.expected.delete(serial);
      return null;
    }
    return x.cause;
  }

  /** Runs `fn` as `cause`; a device it commands (`serial`) reports as `cause` for a while. */
  within<T>(cause: Cause, serial: string | null, fn: () => T): T {
    if (serial !== null) this.expected.set(serial, { cause, until: this.clock.now() + ECHO_MS });
    const before = this.current;
    this.current = cause;
    try {
      return fn();
    } finally {
      this.current = before;
    }
  }
}
