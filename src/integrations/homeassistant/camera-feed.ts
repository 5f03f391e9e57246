/**
 * The pictures of the cameras' Home Assistant camera entities: a snapshot of the gateway (the same
 * cache and one-ffmpeg-per-camera rule as the Open API's snapshot route) published, not retained,
 * on the camera's topic when the camera is announced, when it comes online, every interval on the
 * gateway's clock, and when its Snapshot button is pressed. A snapshot that fails publishes
 * nothing: the camera's connectivity already tells Home Assistant it is offline.
 */
import type { Clock } from '../../lib/clock.ts';
import type { BridgeLog } from './connection.ts';

/** A JPEG of a camera now, or why there is none (its message never holds credentials). */
export type SnapshotFn = (serial: string) => Promise<{ ok: true; jpeg: Buffer } | { ok: false; message: string }>;

export interface CameraFeedOptions {
  snapshot: SnapshotFn;
  /** Between two pictures of a camera; 0: none on a timer. */
  intervalMs: number;
  clock: Clock;
  log: BridgeLog;
  /** Whether the camera is online now (an offline camera is not asked on the timer). */
  online(serial: string): boolean;
  /** Publishes a picture (not retained); false when the broker could not take it. */
  publish(topic: string, jpeg: Buffer): Promise<boolean>;
}

interface Fed {
  topic: string;
  cancel?: () => void;
}

export class CameraFeed {
  private readonly cameras = new Map<string, Fed>();

  constructor(private readonly opts: CameraFeedOptions) {}

  /** Follows a camera whose entity publishes to `topic`; true when it was not followed before. */
  follow(serial: string, topic: string): boolean {
    const fed = this.cameras.get(serial);
    if (fed) {
      fed.topic = topic;
      return false;
    }
    this.cameras.set(serial, { topic });
    this.arm(serial);
    return true;
  }

  /** Stops following a camera (removed, or no longer a camera). */
  forget(serial: string): void {
    this.cameras.get(serial)?.cancel?.();
    this.cameras.delete(serial);
  }

  /** Whether a camera is followed. */
  has(serial: string): boolean {
    return this.cameras.has(serial);
  }

  /** Every followed camera. */
  serials(): string[] {
    return [...this.cameras.keys()];
  }

  /** Stops every timer. */
  stop(): void {
    for (const serial of [...this.cameras.keys()]) this.forget(serial);
  }

  /** Takes a snapshot of a followed camera and publishes it; `why` is for the log. */
  async shoot(serial: string, why: string): Promise<void> {
    if (!this.cameras.has(serial)) return;
    let r: Awaited<ReturnType<SnapshotFn>>;
    try {
      r = await this.opts.snapshot(serial);
    } catch (err) {
      this.opts.log.error({ err, serial }, 'homeassistant: the snapshot function failed');
      return;
    }
    if (!r.ok) {
      this.opts.log.debug({ serial, why, reason: r.message }, 'homeassistant: no snapshot for the camera entity');
      return;
    }
    // Removed while the picture was being taken: its topic is no longer read.
    const fed = this.cameras.get(serial);
    if (!fed) return;
    const sent = await this.opts.publish(fed.topic, r.jpeg);
    this.opts.log.debug({ serial, why, bytes: r.jpeg.length, sent }, 'homeassistant: camera snapshot published');
  }

  /** Arms the camera's next timed picture (none when the interval is 0). */
  private arm(serial: string): void {
    const fed = this.cameras.get(serial);
    if (!fed || this.opts.intervalMs <= 0) return;
    fed.cancel = this.opts.clock.setTimer(this.opts.intervalMs, () => {
      if (this.cameras.get(serial) !== fed) return;
      this.arm(serial);
      if (this.opts.online(serial)) void this.shoot(serial, 'interval');
    });
  }
}
