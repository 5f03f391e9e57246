/**
 * Pairing mode of a bridge that a controller already has: Matter lets a node be commissioned only
 * while a commissioning window is open. A new bridge is open until its first controller adds it;
 * after that the pairing code no longer works (a second controller searches for 60 s and gives
 * up) until a window is opened again. A controller can open one (its app's "share" or
 * "multi-admin"); this opens one from the gateway itself: a basic window with the bridge's own
 * pairing code, for the standard 15 minutes, closed early when a controller has been added.
 *
 * matter.js offers the local side of this as DeviceCommissioner.allowBasicCommissioning and
 * endCommissioning (its AdministratorCommissioning cluster opens windows only for a controller);
 * the deadline is kept here, on the gateway's clock.
 */
import type { Clock } from '../../lib/clock.ts';

/** What this needs of matter.js's DeviceCommissioner. */
export interface Commissioner {
  /** Advertises the node as commissionable with its passcode; `ended` is called when the window closes. */
  allowBasicCommissioning(ended: () => void): Promise<void>;
  endCommissioning(): Promise<void>;
}

/** The standard commissioning window of the Matter specification (and the longest a basic one may be). */
export const WINDOW_SECONDS = 15 * 60;
/** The shortest window the specification allows. */
export const MIN_WINDOW_SECONDS = 3 * 60;

export class PairingWindow {
  private endsAt: number | null = null;
  private cancelTimer: (() => void) | undefined;
  /** One function for every window: matter.js refuses a second, different end callback while one is open. */
  private readonly ended = () => this.closed();

  constructor(
    private readonly commissioner: () => Commissioner,
    private readonly clock: Clock,
    private readonly onClosed: () => void = () => {},
  ) {}

  /** When the open window closes (ms on the clock), or null when none is open. */
  get until(): number | null {
    return this.endsAt;
  }

  /** Opens the window (or keeps it open) for `seconds` from now; returns when it closes. */
  async open(seconds = WINDOW_SECONDS): Promise<number> {
    const s = Math.min(WINDOW_SECONDS, Math.max(MIN_WINDOW_SECONDS, Math.round(seconds)));
    await this.commissioner().allowBasicCommissioning(this.ended);
    this.cancelTimer?.();
    const endsAt = this.clock.now() + s * 1000;
    this.endsAt = endsAt;
    this.cancelTimer = this.clock.setTimer(s * 1000, () => {
      this.cancelTimer = undefined;
      void this.close();
    });
    return endsAt;
  }

  /** Closes the window now (nothing when none is open). */
  async close(): Promise<void> {
    if (this.endsAt === null) return;
    await this.commissioner().endCommissioning();
    // A commissioner that does not call back (already closed) is closed here all the same.
    this.closed();
  }

  /** Forgets the timer (the node is closing, and its commissioner with it). */
  stop(): void {
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.endsAt = null;
  }

  /** The window closed: its time ran out, it was closed, or a controller was added through it. */
  private closed(): void {
    if (this.endsAt === null) return;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    this.endsAt = null;
    this.onClosed();
  }
}
