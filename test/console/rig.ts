/**
 * A real gateway process for the console's browser tests: `opencube start` with the simulated
 * Zigbee network, on 127.0.0.1, stopped by its pid; the console built first (skipped when fresh);
 * `opencube passwd` fed on standard input.
 */
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { type CliProcess, freePort, ROOT, spawnCli } from '../helpers/cli.ts';
import { tempDir } from '../helpers/foundation.ts';
import { launch, openBothWidths } from './browser.ts';

/** Builds the console into console/dist (a no-op when it is fresh). */
export function buildConsole(): void {
  execFileSync(process.execPath, [join(ROOT, 'scripts', 'build-console.mjs')], { cwd: ROOT, stdio: 'inherit' });
}

export interface GatewayProcess {
  url: string;
  port: number;
  dataDir: string;
  proc: CliProcess;
  /** SIGTERM by pid and wait for the exit (SIGKILL of its group if it hangs). */
  stop(): Promise<void>;
  /** Stops it and starts a new process on the same port and data folder. */
  restart(): Promise<GatewayProcess>;
  /** Stops it and removes its data folder. */
  dispose(): Promise<void>;
  /** The test clock's instant (epoch ms; only with `clockAt`). */
  now(): number;
  /** Moves the test clock by `ms`; resolves once the timers due on the way have fired (only with `clockAt`). */
  advance(ms: number): Promise<void>;
}

export interface GatewayOptions {
  dataDir?: string;
  port?: number;
  simDevices?: number;
  /** `off`: no Zigbee network at all (the console then offers no pairing). */
  zigbeeMode?: 'sim' | 'off';
  /** More settings as flags (`['--history-enabled', 'false']`). */
  args?: string[];
  /**
   * The gateway's clock starts at this instant (epoch ms) and moves only by `advance` (the test
   * clock, src/cli/test-clock.ts): time and sun triggers, delays and time-outs without waiting.
   */
  clockAt?: number;
}

/** Starts `opencube start` and resolves once it listens. */
export async function startGatewayProcess(opts: GatewayOptions = {}): Promise<GatewayProcess> {
  const dataDir = opts.dataDir ?? tempDir('opencube-console-');
  const port = opts.port ?? (await freePort());
  const proc = spawnCli(
    [
      'start',
      '--no-supervise',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      '--data-dir',
      dataDir,
      '--mdns',
      'false',
      '--audio-sink',
      'null',
      '--zigbee-mode',
      opts.zigbeeMode ?? 'sim',
      '--sim-devices',
      String(opts.simDevices ?? 16),
      '--log-level',
      'warn',
      ...(opts.args ?? []),
    ],
    opts.clockAt === undefined ? {} : { env: { OPENCUBE_TEST_CLOCK: String(opts.clockAt) }, stdin: true },
  );
  try {
    await proc.waitForOutput(/listening on/, 1, 60_000);
  } catch (err) {
    proc.killAll();
    throw err;
  }
  const stop = async () => {
    if (proc.child.exitCode !== null || proc.child.signalCode !== null) return;
    const guard = setTimeout(() => proc.killAll(), 15_000);
    proc.child.kill('SIGTERM');
    await proc.exited;
    clearTimeout(guard);
    proc.killAll();
  };
  let now = opts.clockAt ?? Number.NaN;
  const self: GatewayProcess = {
    url: `http://127.0.0.1:${port}`,
    port,
    dataDir,
    proc,
    stop,
    async restart() {
      await stop();
      // On the test clock, the new process goes on from where this one's clock stood.
      return startGatewayProcess({ ...opts, dataDir, port, ...(opts.clockAt === undefined ? {} : { clockAt: now }) });
    },
    async dispose() {
      await stop();
      rmSync(dataDir, { recursive: true, force: true });
    },
    now: () => now,
    async advance(ms) {
      if (opts.clockAt === undefined) throw new Error('advance: this gateway runs on the real clock (no clockAt)');
      const target = now + ms;
      proc.child.stdin?.write(`advance ${ms}\n`);
      await proc.waitForOutput(new RegExp(`opencube: clock ${target}\\n`));
      now = target;
    },
  };
  return self;
}

/** The setup code the gateway printed in its log. */
export function setupCode(g: GatewayProcess): string {
  const m = /setup code ([A-Z0-9]{5}-[A-Z0-9]{5})/.exec(g.proc.stderr());
  if (!m) throw new Error(`no setup code in the log:\n${g.proc.stderr().slice(-2000)}`);
  return m[1] as string;
}

/** Runs `opencube passwd --data-dir <dir>` with the password on standard input. */
export function setPasswordCli(dataDir: string, password: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(ROOT, 'src', 'main.ts'), 'passwd', '--data-dir', dataDir],
      {
        cwd: ROOT,
        stdio: ['pipe', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stdout.on('data', (c) => {
      out += c;
    });
    child.stderr.on('data', (c) => {
      out += c;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, out });
    });
    child.stdin.end(`${password}\n`);
  });
}

export interface Consoles {
  g: GatewayProcess;
  browser: Browser;
  /** Two consoles logged in: a laptop's and a phone's. */
  desk: Page;
  phone: Page;
  /** Closes the browser and stops the gateway (its data folder removed). */
  close(): Promise<void>;
}

/** A gateway process with its console's password set, and a browser with two consoles logged in. */
export async function startConsoles(password: string, opts: GatewayOptions = {}): Promise<Consoles> {
  buildConsole();
  const g = await startGatewayProcess(opts);
  try {
    const set = await setPasswordCli(g.dataDir, password);
    assert.equal(set.code, 0, set.out);
    const browser = await launch();
    const { desk, phone } = await openBothWidths(browser, g.url, password).catch(async (err) => {
      await browser.close();
      throw err;
    });
    return {
      g,
      browser,
      desk,
      phone,
      async close() {
        await browser.close();
        await g.dispose();
      },
    };
  } catch (err) {
    await g.dispose();
    throw err;
  }
}
