/**
 * The gateway as a user runs it, for the reliability runs: `opencube start` (supervisor and
 * gateway) as a child process group on 127.0.0.1, a token obtained the way clients get one (the
 * link button through `opencube link`, then G1), and the ways to end it: a clean stop, a
 * SIGKILL of the gateway alone, a SIGKILL of the whole tree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type CliProcess, freePort, runCli, spawnCli } from '../../test/helpers/cli.ts';

export interface GatewayProcess {
  url: string;
  port: number;
  dataDir: string;
  cli: CliProcess;
  /** Pid of the gateway process itself (not the supervisor). */
  gatewayPid(): number;
  /** Resident memory of the gateway process, in bytes (Linux). */
  rss(): number;
  /** Whether the gateway process is still there. */
  alive(): boolean;
  /** SIGTERM to the supervisor; resolves once the tree has exited (SIGKILL after 10 s). */
  stop(): Promise<void>;
  /** SIGKILL to the gateway process only. */
  killGateway(): void;
  /** SIGKILL to the supervisor and the gateway at once. */
  killTree(): void;
  /** Resolves when the supervisor has exited. */
  exited: Promise<unknown>;
}

export interface LaunchOptions {
  dataDir: string;
  /** Reuse a port (a restart on the same address); a free one by default. */
  port?: number;
  /** More flags of `opencube start`. */
  flags?: string[];
  /** More environment (e.g. NODE_OPTIONS=--max-old-space-size=384). */
  env?: Record<string, string>;
  /** Node's own flags for the gateway process (e.g. `--import` of a recorder). */
  nodeArgs?: string[];
}

/** Starts `opencube start` and resolves once it listens. */
export async function launchGateway(opts: LaunchOptions): Promise<GatewayProcess> {
  const port = opts.port ?? (await freePort());
  const cli = spawnCli(
    [
      'start',
      '--port',
      String(port),
      '--host',
      '127.0.0.1',
      '--data-dir',
      opts.dataDir,
      '--no-mdns',
      '--zigbee-mode',
      'off',
      '--audio-sink',
      'null',
      '--log-level',
      'error',
      ...(opts.flags ?? []),
    ],
    { ...(opts.env ? { env: opts.env } : {}), ...(opts.nodeArgs ? { nodeArgs: opts.nodeArgs } : {}) },
  );
  // A run that dies (an uncaught error, a kill of its own) takes its gateway with it.
  const orphaned = () => cli.killAll();
  process.on('exit', orphaned);
  void cli.exited.then(() => process.off('exit', orphaned));
  try {
    await cli.waitForOutput(/opencube listening on /, 1, 60_000);
  } catch (err) {
    cli.killAll();
    throw err;
  }
  const pidFile = join(opts.dataDir, 'opencube.pid');
  const gatewayPid = () => Number(readFileSync(pidFile, 'utf8').trim());
  const isAlive = (pid: number) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir: opts.dataDir,
    cli,
    gatewayPid,
    rss() {
      const status = readFileSync(`/proc/${gatewayPid()}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+) kB/.exec(status)?.[1] ?? 0) * 1024;
    },
    alive: () => isAlive(gatewayPid()),
    async stop() {
      cli.child.kill('SIGTERM');
      const timer = setTimeout(() => cli.killAll(), 10_000);
      await cli.exited;
      clearTimeout(timer);
      cli.killAll();
    },
    killGateway() {
      process.kill(gatewayPid(), 'SIGKILL');
    },
    killTree() {
      cli.killAll();
    },
    exited: cli.exited,
  };
}

/**
 * Ctrl-C or SIGTERM ends a run through process.exit, so that its exit handlers stop the gateways
 * it started (they run in process groups of their own, which the signal does not reach).
 */
export function exitOnSignals(): void {
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => process.exit(130));
}

/** A token for `app`: `opencube link` presses the button, the app's poll of G1 gets its token. */
export async function linkToken(g: { url: string; dataDir: string }, app = 'reliability'): Promise<string> {
  const link = await runCli(['link', '--data-dir', g.dataDir]);
  if (link.code !== 0) throw new Error(`opencube link failed: ${link.stderr}`);
  const res = await fetch(`${g.url}/open-api/v2/rest/bridge/access_token?app_name=${encodeURIComponent(app)}`);
  const body = (await res.json()) as { error: number; data: { token?: string } };
  if (body.error !== 0 || !body.data.token) throw new Error(`no token: ${JSON.stringify(body)}`);
  return body.data.token;
}
