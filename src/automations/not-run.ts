/**
 * The traces of triggers that fired but did not start a run (a condition that did not hold, the
 * run mode, a loop stopped), kept in memory and written to the store in batches. A motion sensor
 * whose condition fails all day fires hundreds of times; written one by one, each would be a
 * commit (an fsync with `synchronous = FULL`) that wears an SD card for a trace the ring throws
 * away nine times out of ten. So they wait here, at most the ring's size per automation (older
 * ones would be pushed out of the store's ring anyway), and go to the store together in one
 * transaction: at most once a minute (`flushMs` on the clock), sooner when `maxPending` wait, and
 * at the engine's stop. Readers see them at once (`of`): the API merges them with the store's.
 * A `kill -9` loses what waits here: at most the last minute of triggers not run, never a run,
 * a cursor, a hold or a missed occurrence (those are written at once, elsewhere).
 */
import type { Clock } from '../lib/clock.ts';
import { automationLimits as L } from './limits.ts';
import type { AutomationStore } from './store.ts';
import type { Trace } from './trace.ts';

export interface NotRunOptions {
  /** The longest a trace waits before it is written (ms on the clock). */
  flushMs: number;
  /** Traces waiting in all that make the batch go at once. */
  maxPending: number;
}

/** The published bound: one write a minute, or one per 1,000 traces not run, whichever comes first. */
export const NOT_RUN_BATCH: NotRunOptions = Object.freeze({ flushMs: 60_000, maxPending: 1000 });

export class NotRunBuffer {
  /** Per automation, oldest first, at most the ring's size. */
  private readonly pending = new Map<string, { trace: Trace; at: number }[]>();
  private count = 0;
  private cancelTimer: (() => void) | undefined;
  /** Batches written (tests and the bench count them). */
  writes = 0;

  constructor(
    private readonly store: AutomationStore,
    private readonly clock: Clock,
    private readonly opts: NotRunOptions = NOT_RUN_BATCH,
  ) {}

  /** Keeps a trace of a trigger not run, to be written with the next batch. */
  add(trace: Trace, at: number): void {
    const list = this.pending.get(trace.automation_id) ?? [];
    list.push({ trace, at });
    this.count++;
    if (list.length > L.traces) {
      list.shift();
      this.count--;
    }
    this.pending.set(trace.automation_id, list);
    if (this.count >= this.opts.maxPending) this.flush();
    else this.cancelTimer ??= this.clock.setTimer(this.opts.flushMs, () => this.flush());
  }

  /** The traces waiting for an automation, newest first. */
  of(id: string): Trace[] {
    return (this.pending.get(id) ?? []).map((p) => p.trace).reverse();
  }

  /** Drops what waits for an automation (it was removed: its traces go with it). */
  forget(id: string): void {
    const list = this.pending.get(id);
    if (!list) return;
    this.count -= list.length;
    this.pending.delete(id);
  }

  /** Writes every trace waiting, in one transaction. */
  flush(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    if (this.count === 0) return;
    const batch = [...this.pending.values()].flat();
    this.pending.clear();
    this.count = 0;
    this.store.transaction(() => {
      for (const p of batch) this.store.addTrace(p.trace, p.at);
    });
    this.writes++;
  }
}
