/** The clock of herdsman-mode tests: time moves when the test says so. */
import type { Clock } from '../../src/lib/clock.ts';

/** A clock that moves when told; a timer of 0 ms runs at once (on the next turn), as it would. */
export class HandClock implements Clock {
  private t = Date.now();
  private timers: { at: number; fn: () => void }[] = [];

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
    if (ms <= 0) {
      const immediate = setImmediate(fn);
      return () => clearImmediate(immediate);
    }
    const timer = { at: this.t + ms, fn };
    this.timers.push(timer);
    return () => {
      this.timers = this.timers.filter((x) => x !== timer);
    };
  }

  /** Moves time forward, firing each timer due on the way at its own time. */
  advance(ms: number): void {
    const until = this.t + ms;
    for (;;) {
      const due = this.timers.filter((x) => x.at <= until).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.timers = this.timers.filter((x) => x !== due);
      this.t = due.at;
      due.fn();
    }
    this.t = until;
  }
}
