/**
 * The live view: each camera's picture re-streamed as Motion JPEG to any number of viewers over
 * ONE upstream connection per camera, started by the first viewer and stopped when the last one
 * leaves. RTSP cameras go through ffmpeg (re-encoded to MJPEG at a few frames a second);
 * ESP32-CAM boards are read from their MJPEG stream, or from their capture path when they have
 * no stream. A slow viewer misses frames instead of slowing the others.
 */
import type { ChildProcess } from 'node:child_process';
import { ErrorCode } from '../../catalog/errors.ts';
import type { LazyAgent } from '../../lib/lazy-agent.ts';
import type { Log } from '../../lib/log.ts';
import { basicAuthorization } from './auth.ts';
import type { Camera } from './camera.ts';
import type { Ffmpeg } from './ffmpeg.ts';
import { MultipartReader, multipartBoundary } from './mjpeg.ts';
import { fetchCapture } from './probe-http.ts';
import { urlWithAccount } from './stream-url.ts';
import { type CameraFailure, cameraFailure } from './types.ts';

/** One viewer: frames are handed to it as they come; `end` once when the upstream ends. */
export interface LiveViewer {
  frame(jpeg: Buffer): void;
  end(reason: string): void;
}

export interface LiveOptions {
  ffmpeg: Ffmpeg;
  dispatcher: LazyAgent;
  fps: number;
  maxViewers: number;
  log?: Log;
  now?: () => number;
}

interface Upstream {
  viewers: Set<LiveViewer>;
  latest?: { jpeg: Buffer; at: number };
  /** Snapshots waiting for the next frame; each is told once, with the frame or why none came. */
  waiting: Set<(r: FrameWait) => void>;
  stop(): void;
}

/** A frame of the live view, or why none came. */
export type FrameWait = { ok: true; jpeg: Buffer } | { ok: false; reason: string };

/** Tells every snapshot waiting on an upstream (each once: `done` removes itself). */
function tell(up: Upstream, r: FrameWait): void {
  for (const done of [...up.waiting]) done(r);
}

/** Failed captures in a row after which a capture-only live view ends. */
const CAPTURE_FAILURES = 3;

export class LiveHub {
  private readonly upstreams = new Map<string, Upstream>();
  /** How many upstream connections were opened in all (tests check the sharing with it). */
  upstreamsOpened = 0;
  private readonly now: () => number;

  constructor(private readonly opts: LiveOptions) {
    this.now = opts.now ?? Date.now;
  }

  /** Adds a viewer of a camera; opens the camera's upstream when it is the first. */
  async join(cam: Camera, viewer: LiveViewer): Promise<{ ok: true; leave: () => void } | CameraFailure> {
    if (cam.protocol === 'rtsp' && !(await this.opts.ffmpeg.available()))
      return cameraFailure(
        ErrorCode.SERVER_ERROR,
        'the live view of an RTSP camera needs ffmpeg (Debian package ffmpeg), which is not installed',
      );
    let up = this.upstreams.get(cam.serial);
    if (up && up.viewers.size >= this.opts.maxViewers)
      return cameraFailure(ErrorCode.INVALID_PARAMETERS, `at most ${this.opts.maxViewers} viewers per camera`);
    if (!up) {
      up = this.open(cam);
      this.upstreams.set(cam.serial, up);
    }
    const upstream = up;
    upstream.viewers.add(viewer);
    let left = false;
    return {
      ok: true,
      leave: () => {
        if (left) return;
        left = true;
        upstream.viewers.delete(viewer);
        if (upstream.viewers.size === 0 && this.upstreams.get(cam.serial) === upstream) {
          this.upstreams.delete(cam.serial);
          upstream.stop();
          tell(upstream, { ok: false, reason: 'the live view stopped before its first frame' });
        }
      },
    };
  }

  /** The newest frame of a running live view, when it is at most `maxAgeMs` old. */
  latest(serial: string, maxAgeMs: number): Buffer | undefined {
    const l = this.upstreams.get(serial)?.latest;
    return l && this.now() - l.at <= maxAgeMs ? l.jpeg : undefined;
  }

  /**
   * The next frame of a camera's running live view, within `waitMs`; undefined when no live view
   * runs. A snapshot asked for while a live view starts waits for it rather than starting a second
   * connection (a second ffmpeg) to the camera.
   */
  nextFrame(serial: string, waitMs: number): Promise<FrameWait> | undefined {
    const up = this.upstreams.get(serial);
    if (!up) return undefined;
    return new Promise((resolve) => {
      const done = (r: FrameWait) => {
        clearTimeout(timer);
        up.waiting.delete(done);
        resolve(r);
      };
      const timer = setTimeout(() => done({ ok: false, reason: `no frame within ${waitMs} ms` }), waitMs);
      up.waiting.add(done);
    });
  }

  /** Snapshots waiting for a live view's next frame now. */
  waitingFor(serial: string): number {
    return this.upstreams.get(serial)?.waiting.size ?? 0;
  }

  /** Viewers of a camera now. */
  viewers(serial: string): number {
    return this.upstreams.get(serial)?.viewers.size ?? 0;
  }

  /** Upstream connections open now. */
  get open_upstreams(): number {
    return this.upstreams.size;
  }

  /** Ends a camera's live view (it was removed or re-configured). */
  stop(serial: string, reason = 'the camera was changed'): void {
    const up = this.upstreams.get(serial);
    if (!up) return;
    this.upstreams.delete(serial);
    up.stop();
    tell(up, { ok: false, reason });
    for (const v of up.viewers) v.end(reason);
    up.viewers.clear();
  }

  /** Ends every live view (the gateway stops). */
  stopAll(): void {
    for (const serial of [...this.upstreams.keys()]) this.stop(serial, 'the gateway is stopping');
  }

  private open(cam: Camera): Upstream {
    this.upstreamsOpened++;
    const up: Upstream = { viewers: new Set(), waiting: new Set(), stop: () => {} };
    const onFrame = (jpeg: Buffer) => {
      up.latest = { jpeg, at: this.now() };
      tell(up, { ok: true, jpeg });
      for (const v of up.viewers) v.frame(jpeg);
    };
    const onEnd = (reason: string) => {
      if (this.upstreams.get(cam.serial) !== up) return;
      this.opts.log?.debug({ serial_number: cam.serial, reason }, 'camera live view ended');
      this.stop(cam.serial, reason);
    };
    if (cam.protocol === 'rtsp') up.stop = this.fromFfmpeg(cam, onFrame, onEnd);
    else if (cam.mjpegUrl) up.stop = this.fromMjpeg(cam, cam.mjpegUrl, onFrame, onEnd);
    else up.stop = this.fromCaptures(cam, onFrame, onEnd);
    return up;
  }

  private fromFfmpeg(cam: Camera, onFrame: (f: Buffer) => void, onEnd: (r: string) => void): () => void {
    const child: ChildProcess = this.opts.ffmpeg.mjpegStream(urlWithAccount(cam.address, cam.account), this.opts.fps);
    const reader = new MultipartReader('ffmpeg', onFrame);
    child.stdout?.on('data', (c: Buffer) => reader.push(c));
    child.stderr?.resume();
    child.on('error', () => onEnd('ffmpeg could not be run'));
    child.on('close', () => onEnd("the camera's stream ended"));
    return () => child.kill('SIGKILL');
  }

  private fromMjpeg(cam: Camera, url: string, onFrame: (f: Buffer) => void, onEnd: (r: string) => void): () => void {
    const abort = new AbortController();
    const headers: Record<string, string> = cam.account ? { authorization: basicAuthorization(cam.account) } : {};
    void (async () => {
      try {
        const res = await this.opts.dispatcher.request(url, { headers, signal: abort.signal });
        const type = res.headers['content-type'];
        const boundary = multipartBoundary(Array.isArray(type) ? type[0] : type);
        if (res.statusCode !== 200 || !boundary) {
          res.body.destroy();
          onEnd(`the camera's stream answered ${res.statusCode}`);
          return;
        }
        const reader = new MultipartReader(boundary, onFrame);
        for await (const chunk of res.body) reader.push(chunk as Buffer);
        onEnd("the camera's stream ended");
      } catch {
        onEnd(abort.signal.aborted ? 'stopped' : "the camera's stream failed");
      }
    })();
    return () => abort.abort();
  }

  private fromCaptures(cam: Camera, onFrame: (f: Buffer) => void, onEnd: (r: string) => void): () => void {
    let stopped = false;
    let wake: (() => void) | undefined;
    const pause = (ms: number) =>
      new Promise<void>((resolve) => {
        const t = setTimeout(resolve, ms);
        wake = () => {
          clearTimeout(t);
          resolve();
        };
      });
    const interval = Math.round(1000 / this.opts.fps);
    void (async () => {
      let failures = 0;
      while (!stopped) {
        const got = await fetchCapture(cam.captureUrl ?? cam.address.url, cam.account, 5000, this.opts.dispatcher);
        if (stopped) return;
        if (got.ok) {
          failures = 0;
          onFrame(got.jpeg);
        } else if (++failures >= CAPTURE_FAILURES) {
          onEnd(`the camera's capture path failed: ${got.reason}`);
          return;
        }
        await pause(interval);
      }
    })();
    return () => {
      stopped = true;
      wake?.();
    };
  }
}
