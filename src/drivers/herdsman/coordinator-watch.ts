/**
 * Whether the coordinator still answers. A coordinator whose firmware hangs keeps its serial port
 * open, so zigbee-herdsman reports no disconnection: its requests just go unanswered. A cheap
 * request to the coordinator itself, every `everyMs` on the gateway's clock, tells: it is asked
 * again at once when it goes unanswered for `answerMs` (a coordinator busy with slow devices
 * answers late, not never), and the coordinator counts as hung after `misses` in a row.
 */
import type { Clock } from '../../lib/clock.ts';

export interface CoordinatorWatchOptions {
  clock: Clock;
  everyMs: number;
  answerMs: number;
  misses: number;
  /** The request: settles when the coordinator answered (a rejection counts as no answer). */
  probe: () => Promise<unknown>;
  /** The coordinator stopped answering (called once): why. */
  hung: (why: string) => void;
}

export class CoordinatorWatch {
  private cancel?: () => void;
  private missed = 0;
  private stopped = false;

  constructor(private readonly opts: CoordinatorWatchOptions) {}

  start(): void {
    this.arm();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
    this.cancel = undefined;
  }

  private arm(): void {
    if (this.stopped) return;
    this.cancel = this.opts.clock.setTimer(this.opts.everyMs, () => this.check());
  }

  private check(): void {
    if (this.stopped) return;
    const { clock, answerMs } = this.opts;
    let settled = false;
    const finish = (why?: string) => {
      if (settled || this.stopped) return;
      settled = true;
      this.cancel?.();
      if (why === undefined) {
        this.missed = 0;
        this.arm();
      } else this.miss(why);
    };
    this.cancel = clock.setTimer(answerMs, () => finish(`no answer within ${answerMs} ms`));
    let sent: Promise<unknown>;
    try {
      sent = this.opts.probe();
    } catch (err) {
      sent = Promise.reject(err);
    }
    sent.then(
      () => finish(),
      (err) => finish(err instanceof Error ? err.message : String(err)),
    );
  }

  private miss(why: string): void {
    this.missed++;
    if (this.missed < this.opts.misses) {
      this.check();
      return;
    }
    this.stopped = true;
    this.opts.hung(`${this.missed} requests in a row got no answer (last: ${why})`);
  }
}
