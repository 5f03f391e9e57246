/**
 * ffmpeg (Debian's package) as the gateway uses it for RTSP cameras: one frame as a JPEG
 * (snapshots), and a Motion JPEG stream of the camera (the live view). Optional: when it is not
 * installed, `available()` says so and the callers answer a clear error. Its command line holds
 * the stream URL with credentials, so neither the command line nor its raw output is logged.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { MAX_FRAME_BYTES } from './mjpeg.ts';
import { maskText } from './stream-url.ts';

/** Longest error output kept from one run (for the message of a failure). */
const MAX_STDERR = 4096;

export type FrameResult = { ok: true; jpeg: Buffer } | { ok: false; reason: string };

export class Ffmpeg {
  private probed: Promise<boolean> | undefined;
  /** How many ffmpeg processes were started (snapshots and live views), for tests and metrics. */
  runs = 0;
  private readonly children = new Set<ChildProcess>();

  /** `path`: the ffmpeg executable (a name looked up in PATH, or a path); empty disables ffmpeg. */
  constructor(readonly path: string) {}

  /** Whether ffmpeg can be run (checked once, by running `ffmpeg -version`). */
  available(): Promise<boolean> {
    if (this.path === '') return Promise.resolve(false);
    this.probed ??= new Promise((resolve) => {
      let child: ChildProcess;
      try {
        child = spawn(this.path, ['-hide_banner', '-version'], { stdio: 'ignore' });
      } catch {
        resolve(false);
        return;
      }
      child.on('error', () => resolve(false));
      child.on('exit', (code) => resolve(code === 0));
    });
    return this.probed;
  }

  private run(args: string[]): ChildProcess {
    this.runs++;
    const child = spawn(this.path, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.children.add(child);
    child.on('exit', () => this.children.delete(child));
    child.on('error', () => this.children.delete(child));
    return child;
  }

  /** One frame of an RTSP stream as a JPEG, within `timeoutMs` (the process is killed after it). */
  grabFrame(url: string, timeoutMs: number): Promise<FrameResult> {
    return new Promise((resolve) => {
      const child = this.run([
        '-hide_banner',
        '-loglevel',
        'error',
        '-nostdin',
        '-rtsp_transport',
        'tcp',
        // Socket I/O timeout of the RTSP demuxer (microseconds): a silent camera ends the run.
        '-timeout',
        String(timeoutMs * 1000),
        '-i',
        url,
        '-frames:v',
        '1',
        '-an',
        '-c:v',
        'mjpeg',
        '-q:v',
        '3',
        '-f',
        'image2pipe',
        'pipe:1',
      ]);
      const out: Buffer[] = [];
      let size = 0;
      let err = '';
      let settled = false;
      const finish = (r: FrameResult) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        child.kill('SIGKILL');
        resolve(r);
      };
      const timer = setTimeout(() => finish({ ok: false, reason: `no frame within ${timeoutMs} ms` }), timeoutMs);
      child.stdout?.on('data', (c: Buffer) => {
        size += c.length;
        if (size > MAX_FRAME_BYTES) finish({ ok: false, reason: 'the frame is larger than the limit' });
        else out.push(c);
      });
      child.stderr?.on('data', (c: Buffer) => {
        if (err.length < MAX_STDERR) err += c.toString('utf8');
      });
      child.on('error', (e) => finish({ ok: false, reason: `ffmpeg could not be run: ${e.message}` }));
      child.on('close', (code) => {
        const jpeg = Buffer.concat(out);
        if (code === 0 && jpeg.length > 0) finish({ ok: true, jpeg });
        else finish({ ok: false, reason: lastLine(err) || `ffmpeg exited with ${code}` });
      });
    });
  }

  /** Starts ffmpeg re-encoding an RTSP stream as multipart MJPEG on its stdout (boundary `ffmpeg`). */
  mjpegStream(url: string, fps: number): ChildProcess {
    return this.run([
      '-hide_banner',
      '-loglevel',
      'error',
      '-nostdin',
      '-rtsp_transport',
      'tcp',
      '-i',
      url,
      '-an',
      '-vf',
      `fps=${fps}`,
      '-c:v',
      'mjpeg',
      '-q:v',
      '5',
      '-f',
      'mpjpeg',
      'pipe:1',
    ]);
  }

  /** Kills every ffmpeg still running (the gateway stops). */
  stopAll(): void {
    for (const c of this.children) c.kill('SIGKILL');
    this.children.clear();
  }
}

/** The last non-empty line of ffmpeg's error output, with credentials masked. */
export function lastLine(text: string): string {
  const lines = text
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  return maskText(lines[lines.length - 1] ?? '');
}
