/**
 * Snapshots: one JPEG of a camera now. ESP32-CAM boards give one from their capture path (or
 * the first frame of their stream); RTSP cameras through ffmpeg. A snapshot is kept for a second
 * (dashboards poll), a running live view gives its newest frame (or, while it starts, its first),
 * and one camera never has two snapshots being taken at once: concurrent requests share the one
 * in flight.
 */

import { ErrorCode } from '../../catalog/errors.ts';
import type { LazyAgent } from '../../lib/lazy-agent.ts';
import type { Camera } from './camera.ts';
import type { Ffmpeg } from './ffmpeg.ts';
import type { LiveHub } from './live.ts';
import { fetchCapture, fetchStreamFrame } from './probe-http.ts';
import { urlWithAccount } from './stream-url.ts';
import { type CameraFailure, cameraFailure } from './types.ts';

export type SnapshotOutcome = { ok: true; jpeg: Buffer } | CameraFailure;

export interface SnapshotOptions {
  ffmpeg: Ffmpeg;
  live: LiveHub;
  dispatcher: LazyAgent;
  /** Longest one snapshot may take (ffmpeg is killed after it). */
  timeoutMs: number;
  /** How long a snapshot is served again. */
  cacheMs: number;
  now?: () => number;
}

export class Snapshots {
  private readonly cache = new Map<string, { at: number; jpeg: Buffer }>();
  private readonly inFlight = new Map<string, Promise<SnapshotOutcome>>();
  private readonly now: () => number;

  constructor(private readonly opts: SnapshotOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** A JPEG of the camera: cached, shared, or taken now. */
  take(cam: Camera): Promise<SnapshotOutcome> {
    const cached = this.cache.get(cam.serial);
    if (cached && this.now() - cached.at < this.opts.cacheMs) return Promise.resolve({ ok: true, jpeg: cached.jpeg });
    const live = this.opts.live.latest(cam.serial, this.opts.cacheMs);
    if (live) return Promise.resolve({ ok: true, jpeg: live });
    let running = this.inFlight.get(cam.serial);
    if (!running) {
      // A live view that has started but has no frame yet holds the camera's one connection
      // (its one ffmpeg): its first frame is the snapshot, within the same time limit.
      const fromLive = this.opts.live.nextFrame(cam.serial, this.opts.timeoutMs);
      const shot = fromLive
        ? fromLive.then((r) =>
            r.ok ? r : cameraFailure(ErrorCode.DEVICE_OFFLINE, `no picture from the camera: ${r.reason}`),
          )
        : this.shoot(cam);
      running = shot.then((r) => {
        this.inFlight.delete(cam.serial);
        if (r.ok) this.cache.set(cam.serial, { at: this.now(), jpeg: r.jpeg });
        return r;
      });
      this.inFlight.set(cam.serial, running);
    }
    return running;
  }

  private async shoot(cam: Camera): Promise<SnapshotOutcome> {
    const t = this.opts.timeoutMs;
    if (cam.protocol === 'rtsp') {
      if (!(await this.opts.ffmpeg.available()))
        return cameraFailure(
          ErrorCode.SERVER_ERROR,
          'snapshots of RTSP cameras need ffmpeg (Debian package ffmpeg), which is not installed',
        );
      const r = await this.opts.ffmpeg.grabFrame(urlWithAccount(cam.address, cam.account), t);
      return r.ok ? r : cameraFailure(ErrorCode.DEVICE_OFFLINE, `no picture from the camera: ${r.reason}`);
    }
    const d = this.opts.dispatcher;
    const r = cam.captureUrl
      ? await fetchCapture(cam.captureUrl, cam.account, t, d)
      : await fetchStreamFrame(cam.mjpegUrl ?? cam.address.url, cam.account, t, d);
    return r.ok ? r : cameraFailure(ErrorCode.DEVICE_OFFLINE, `no picture from the camera: ${r.reason}`);
  }

  /** Drops what is kept of a camera (re-configured or removed). */
  forget(serial: string): void {
    this.cache.delete(serial);
  }
}
