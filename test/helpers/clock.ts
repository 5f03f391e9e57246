/** A clock driven by hand for tests: timers fire only when the test moves time past them. */
import type { Clock } from '../../src/lib/clock.ts';

/** A clock that moves only when told; timers fire in order as it passes them. */
export class ManualClock implements Clock {
  private timers: { at: number; seq: number; fn: () => void }[] = [];
  private seq = 0;

  constructor(private t = Date.UTC(2025, 0, 1)) {}

  now(): number {
    return this.t;
  }

  setTimer(ms: number, fn: () => void): () => void {
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
      due.fn();
    }
    this.t = target;
  }

  /** Timers not yet fired. */
  pending(): number {
    return this.timers.length;
  }
}
