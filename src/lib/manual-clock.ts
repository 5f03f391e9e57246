/**
 * A clock driven by hand: timers fire only when time is moved past them. Tests use it
 * (test/helpers/clock.ts), and so does a gateway started from the source tree with
 * OPENCUBE_TEST_CLOCK (src/cli/test-clock.ts); a build of the gateway (dist/) has none of it.
 */
import type { Clock } from './clock.ts';

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
