/**
 * A command started as users start it (npm start, a global `opencube`, node on a path), in a
 * process group of its own with its output kept, and stopped as a whole: SIGTERM to the group (npm,
 * its shell and the gateway all get it, and the gateway stops gracefully), SIGKILL after 10 s, and
 * the stop resolves once no process of the group is left.
 */
import { type ChildProcess, spawn } from 'node:child_process';

export interface ProcessGroup {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Whether the command itself has exited. */
  exited(): boolean;
  /** Stops every process of the group (safe to call again). */
  stop(): Promise<void>;
}

/** Starts `command args` in its own process group. */
export function spawnGroup(
  command: string,
  args: readonly string[],
  opts: { cwd: string; env: NodeJS.ProcessEnv },
): ProcessGroup {
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env,
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  const signal = (s: NodeJS.Signals | 0): boolean => {
    try {
      process.kill(-(child.pid as number), s);
      return true;
    } catch {
      return false; // no process of the group is left
    }
  };
  // A run that dies (an uncaught error) takes its group with it.
  const orphaned = () => signal('SIGKILL');
  process.on('exit', orphaned);
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited: () => child.exitCode !== null || child.signalCode !== null,
    async stop() {
      signal('SIGTERM');
      const killAt = Date.now() + 10_000;
      while (signal(0)) {
        if (Date.now() > killAt) signal('SIGKILL');
        await new Promise((r) => setTimeout(r, 50));
      }
      process.off('exit', orphaned);
    },
  };
}
