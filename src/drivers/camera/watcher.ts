/**
 * Watches cameras on a schedule: each round checks every camera (a few at a time), and a camera
 * goes offline after a number of failed checks in a row and online again at its first answer.
 * Timers are passed in, so tests run rounds without waiting out real intervals.
 */

/** The timer functions the watcher uses (the global ones by default). */
export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as ReturnType<typeof setTimeout>),
};

export interface WatcherOptions {
  intervalMs: number;
  /** Failed checks in a row after which a camera is offline. */
  failuresBeforeOffline: number;
  /** Cameras checked at the same time in one round. */
  concurrency?: number;
  timers?: Timers;
  /** The cameras to check now (serial numbers). */
  list(): string[];
  /** Checks one camera; true when it answered. Must not throw (a throw counts as a failure). */
  check(serial: string): Promise<boolean>;
  /** Whether the camera is marked online now. */
  isOnline(serial: string): boolean;
  setOnline(serial: string, online: boolean): void;
}

export class Watcher {
  private readonly failures = new Map<string, number>();
  private timer: unknown;
  private running: Promise<void> | undefined;
  private stopped = true;
  private readonly timers: Timers;

  constructor(private readonly opts: WatcherOptions) {
    this.timers = opts.timers ?? realTimers;
  }

  /** Starts the schedule: the first round one interval from now. */
  start(): void {
    this.stopped = false;
    this.schedule();
  }

  private schedule(): void {
    if (this.stopped) return;
    this.timer = this.timers.setTimeout(() => {
      this.timer = undefined;
      void this.checkNow().finally(() => this.schedule());
    }, this.opts.intervalMs);
  }

  /** Runs one round now (or joins the one running) and resolves when it is done. */
  checkNow(): Promise<void> {
    this.running ??= this.round().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  /** Resolves once no round is running. */
  async settled(): Promise<void> {
    while (this.running) await this.running;
  }

  private async round(): Promise<void> {
    const serials = this.opts.list();
    const known = new Set(serials);
    for (const s of this.failures.keys()) if (!known.has(s)) this.failures.delete(s);
    const queue = [...serials];
    const workers = Array.from({ length: Math.min(this.opts.concurrency ?? 4, queue.length) }, async () => {
      for (let s = queue.shift(); s !== undefined; s = queue.shift()) await this.checkOne(s);
    });
    await Promise.all(workers);
  }

  private async checkOne(serial: string): Promise<void> {
    let alive: boolean;
    try {
      alive = await this.opts.check(serial);
    } catch {
      alive = false;
    }
    if (!this.opts.list().includes(serial)) return; // removed while it was checked
    if (alive) {
      this.failures.delete(serial);
      if (!this.opts.isOnline(serial)) this.opts.setOnline(serial, true);
      return;
    }
    const n = (this.failures.get(serial) ?? 0) + 1;
    this.failures.set(serial, n);
    if (n >= this.opts.failuresBeforeOffline && this.opts.isOnline(serial)) this.opts.setOnline(serial, false);
  }

  /** Forgets a camera's failures (it was re-configured or removed). */
  forget(serial: string): void {
    this.failures.delete(serial);
  }

  /** Stops the schedule and waits for a running round to end. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) this.timers.clearTimeout(this.timer);
    this.timer = undefined;
    await this.settled();
  }
}
