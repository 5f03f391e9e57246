/**
 * Runs the real `opencube` CLI as a child process: src/main.ts through tsx, or with
 * `compiled: true` the installed command bin/opencube.js, which runs the JavaScript in dist/
 * (built first when src/ changed).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MAIN = join(ROOT, 'src', 'main.ts');
const BIN = join(ROOT, 'bin', 'opencube.js');

/** How the CLI is run: the TypeScript through tsx (tests and development), or the compiled command. */
export interface CliOptions {
  env?: Record<string, string>;
  compiled?: boolean;
  /** Node's own flags, before the script (e.g. `--import` of a recorder). */
  nodeArgs?: string[];
  /** Standard input as a pipe the test writes to (`child.stdin`: a gateway's test clock); else none. */
  stdin?: boolean;
}

function cliArgv(args: string[], opts: CliOptions): string[] {
  const node = opts.nodeArgs ?? [];
  return opts.compiled ? [...node, BIN, ...args] : [...node, '--import', 'tsx', MAIN, ...args];
}

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Environment for CLI children: no OPENCUBE_* variables leak in from the caller. The commands they
 * print are in the form of a global install (`opencube link`), whatever runs the tests (npm, a
 * PATH with opencube on it); test/cli/invocation.test.ts checks the other forms.
 */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('OPENCUBE_')) env[k] = v;
  return { ...env, OPENCUBE_COMMAND: 'opencube', ...extra };
}

/** Runs `opencube <args>` to completion (killed after `timeoutMs` so a test never hangs). */
export function runCli(args: string[], opts: CliOptions & { timeoutMs?: number } = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, cliArgv(args, opts), {
      cwd: ROOT,
      env: cleanEnv(opts.env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 30_000);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A long-running `opencube` process (e.g. `start`), in its own process group so that it and its children can be killed together. */
export interface CliProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves when stdout holds `pattern` `count` times (rejects on exit or after `ms`). */
  waitForOutput(pattern: RegExp, count?: number, ms?: number): Promise<void>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** SIGKILLs the whole process group (safe to call when already gone). */
  killAll(): void;
}

export function spawnCli(args: string[], opts: CliOptions = {}): CliProcess {
  const child = spawn(process.execPath, cliArgv(args, opts), {
    cwd: ROOT,
    env: cleanEnv(opts.env),
    stdio: [opts.stdin ? 'pipe' : 'ignore', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  let err = '';
  const listeners = new Set<() => void>();
  child.stdout?.setEncoding('utf8').on('data', (c: string) => {
    out += c;
    for (const l of listeners) l();
  });
  child.stderr?.setEncoding('utf8').on('data', (c: string) => {
    err += c;
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      done = true;
      for (const l of listeners) l();
      resolve({ code, signal });
    });
  });
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForOutput(pattern, count = 1, ms = 30_000) {
      const global = new RegExp(pattern.source, pattern.flags.includes('g') ? pattern.flags : `${pattern.flags}g`);
      return new Promise((resolve, reject) => {
        const check = () => {
          if ((out.match(global)?.length ?? 0) >= count) {
            cleanup();
            resolve();
          } else if (done) {
            cleanup();
            reject(
              new Error(`process exited before printing ${pattern}\nstdout:\n${out}\nstderr:\n${err.slice(-3000)}`),
            );
          }
        };
        const timer = setTimeout(() => {
          cleanup();
          reject(new Error(`no ${pattern} within ${ms} ms\nstdout:\n${out}\nstderr:\n${err.slice(-3000)}`));
        }, ms);
        const cleanup = () => {
          clearTimeout(timer);
          listeners.delete(check);
        };
        listeners.add(check);
        check();
      });
    },
    killAll() {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    },
  };
}

/**
 * `opencube start` as tests run it: on loopback only, on `port`, with `dataDir`, never on mDNS,
 * then `extra` flags.
 */
export function startArgs(port: number, dataDir: string, ...extra: string[]): string[] {
  return ['start', '--port', String(port), '--host', '127.0.0.1', '--data-dir', dataDir, '--no-mdns', ...extra];
}

/** A TCP port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

/** Whether a process with this pid exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}
