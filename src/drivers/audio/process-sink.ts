import { type ChildProcess, spawn } from 'node:child_process';
import type { AudioSink, SinkClip, SinkEnd, SinkPlayback } from '../../core/audio/sink.ts';
import { pcmBytes, wavHeader } from '../../core/audio/wav.ts';

export interface ProcessSinkOptions {
  kind: string;
  command: string;
  args: readonly string[];
  /** Run in its own process group and stop the whole group (a shell and the player it starts). */
  group?: boolean;
}

/** A WAV data size that says "until the end of the stream" (players read a looped clip until EOF). */
const STREAMED = 0xffffffff;

/** How long a stopped player has to exit before it is killed outright. */
const KILL_AFTER_MS = 2000;

/** How long a new clip waits for the previous player to exit (an ALSA device opens once at a time). */
const EXIT_WAIT_MS = 2000;

interface Running {
  child: ChildProcess | undefined;
  stopped: boolean;
  exited: Promise<void>;
  stop(): void;
}

/**
 * A sink that pipes each clip as a WAV file into a new process: aplay, or any command that reads
 * WAV on stdin. A loop is written again and again as the process takes it (its pipe paces the
 * writing), so a sound repeated for half an hour never exists in memory whole. Stopping kills the
 * process; a new clip first waits for the previous process to exit.
 */
export class ProcessSink implements AudioSink {
  readonly kind: string;
  private current: Running | undefined;

  constructor(private readonly opts: ProcessSinkOptions) {
    this.kind = opts.kind;
  }

  play(clip: SinkClip): SinkPlayback {
    const previous = this.current;
    previous?.stop();
    let settle: (end: SinkEnd) => void = () => {};
    const ended = new Promise<SinkEnd>((resolve) => {
      settle = resolve;
    });
    let markExited: () => void = () => {};
    const run: Running = {
      child: undefined,
      stopped: false,
      exited: new Promise<void>((resolve) => {
        markExited = resolve;
      }),
      stop: () => {
        if (run.stopped) return;
        run.stopped = true;
        if (!run.child) {
          settle({ kind: 'stopped' });
          markExited();
          return;
        }
        this.kill(run.child);
      },
    };
    this.current = run;
    const waitPrevious = previous
      ? Promise.race([previous.exited, new Promise<void>((r) => setTimeout(r, EXIT_WAIT_MS).unref())])
      : Promise.resolve();
    void waitPrevious.then(() => {
      if (run.stopped) return;
      this.start(run, clip, settle, markExited);
    });
    return { stop: () => run.stop(), ended };
  }

  async close(): Promise<void> {
    const run = this.current;
    run?.stop();
    await run?.exited;
  }

  private start(run: Running, clip: SinkClip, settle: (end: SinkEnd) => void, markExited: () => void): void {
    let stderr = '';
    let child: ChildProcess;
    try {
      child = spawn(this.opts.command, [...this.opts.args], {
        stdio: ['pipe', 'ignore', 'pipe'],
        detached: this.opts.group ?? false,
      });
    } catch (err) {
      settle({ kind: 'failed', reason: `${this.opts.command}: ${(err as Error).message}` });
      markExited();
      return;
    }
    run.child = child;
    let failedToStart: string | undefined;
    child.on('error', (err) => {
      failedToStart = `${this.opts.command}: ${err.message}`;
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-2000);
    });
    child.on('close', (code, signal) => {
      markExited();
      if (run.stopped) settle({ kind: 'stopped' });
      else if (failedToStart) settle({ kind: 'failed', reason: failedToStart });
      else if (code === 0) settle({ kind: 'finished' });
      else
        settle({
          kind: 'failed',
          reason: `${this.opts.command} exited with ${code ?? signal}${stderr ? `: ${stderr.trim()}` : ''}`,
        });
    });
    const stdin = child.stdin;
    if (!stdin) return;
    // The player may exit (or be stopped) while we write: a broken pipe is its end, not a fault.
    stdin.on('error', () => {});
    const data = pcmBytes(clip.pcm);
    stdin.write(wavHeader(clip.pcm.rate, clip.loop ? STREAMED : data.length));
    if (!clip.loop) {
      stdin.end(data);
      return;
    }
    const pump = () => {
      while (!run.stopped && stdin.writable) {
        if (!stdin.write(data)) {
          stdin.once('drain', pump);
          return;
        }
      }
    };
    pump();
  }

  private kill(child: ChildProcess): void {
    child.stdin?.destroy();
    const signal = (sig: NodeJS.Signals) => {
      try {
        if (this.opts.group && child.pid !== undefined) process.kill(-child.pid, sig);
        else child.kill(sig);
      } catch {
        // already gone
      }
    };
    signal('SIGTERM');
    // A player that ignores SIGTERM must not hold a stopping gateway.
    const hard = setTimeout(() => signal('SIGKILL'), KILL_AFTER_MS);
    hard.unref();
    child.once('close', () => clearTimeout(hard));
  }
}
