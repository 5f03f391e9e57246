/**
 * Whether each device is reachable, from when it was last heard from: a coordinator hears a
 * device only when it sends something, so a mains-powered device (a router, always listening)
 * not heard from for `activeMs` is pinged (a read of one Basic attribute) and is offline when
 * the ping goes unanswered, and pinged again every `activeMs` while offline; a battery-powered
 * device (asleep most of the time, it cannot be pinged) is offline when not heard from for
 * `passiveMs`. Anything heard from a device brings it back online. The defaults, 10 minutes and
 * 25 hours, are Zigbee2MQTT's (a sleepy device checks in at least daily).
 */
import type { Clock } from '../../lib/clock.ts';

export interface AvailabilityOptions {
  activeMs: number;
  passiveMs: number;
  /** Interval of the check. */
  checkMs: number;
  clock: Clock;
}

/** What the check needs from the driver. */
export interface AvailabilityDeps {
  /** Pings a device; rejects when it does not answer. */
  ping(ieee: string): Promise<void>;
  /** A device's availability changed. */
  changed(ieee: string, available: boolean): void;
  /** Whether the coordinator runs (nothing is judged while it does not). */
  up(): boolean;
}

interface Watched {
  active: boolean;
  seenAt: number;
  available: boolean;
  pinging: boolean;
  pingedAt: number;
}

export class Availability {
  private readonly watched = new Map<string, Watched>();
  private cancel?: () => void;
  private stopped = false;

  constructor(
    private readonly opts: AvailabilityOptions,
    private readonly deps: AvailabilityDeps,
  ) {}

  /** Starts the periodic check. */
  start(): void {
    this.schedule();
  }

  stop(): void {
    this.stopped = true;
    this.cancel?.();
  }

  /** Follows a device (again): `active` when it can be pinged; `seenAt` when it was last heard from. */
  track(ieee: string, active: boolean, seenAt: number): void {
    const w = this.watched.get(ieee);
    if (w) {
      w.active = active;
      w.seenAt = Math.max(w.seenAt, seenAt);
      return;
    }
    this.watched.set(ieee, { active, seenAt, available: true, pinging: false, pingedAt: 0 });
  }

  forget(ieee: string): void {
    this.watched.delete(ieee);
  }

  /** Whether the device counts as reachable (an untracked device does). */
  available(ieee: string): boolean {
    return this.watched.get(ieee)?.available ?? true;
  }

  /** The device was heard from. */
  seen(ieee: string): void {
    const w = this.watched.get(ieee);
    if (!w) return;
    w.seenAt = this.opts.clock.now();
    if (w.available) return;
    w.available = true;
    this.deps.changed(ieee, true);
  }

  /** A command to the device went unanswered: a mains-powered device is pinged at once. */
  suspect(ieee: string): void {
    const w = this.watched.get(ieee);
    if (w?.active && !w.pinging) this.ping(ieee, w);
  }

  /** Runs the check now (the periodic timer calls it). */
  check(): void {
    if (!this.deps.up()) return;
    const now = this.opts.clock.now();
    for (const [ieee, w] of this.watched) {
      const silent = now - w.seenAt;
      if (w.active) {
        if (silent >= this.opts.activeMs && !w.pinging && now - w.pingedAt >= this.opts.activeMs) this.ping(ieee, w);
      } else if (silent >= this.opts.passiveMs && w.available) {
        w.available = false;
        this.deps.changed(ieee, false);
      }
    }
  }

  private ping(ieee: string, w: Watched): void {
    w.pinging = true;
    w.pingedAt = this.opts.clock.now();
    this.deps.ping(ieee).then(
      () => {
        w.pinging = false;
        this.seen(ieee);
      },
      () => {
        w.pinging = false;
        if (this.watched.get(ieee) !== w || !w.available || !this.deps.up()) return;
        w.available = false;
        this.deps.changed(ieee, false);
      },
    );
  }

  private schedule(): void {
    if (this.stopped) return;
    this.cancel = this.opts.clock.setTimer(this.opts.checkMs, () => {
      this.check();
      this.schedule();
    });
  }
}
