/**
 * Debian's mosquitto as the broker of the Home Assistant tests, as users run it next to Home
 * Assistant: bound to 127.0.0.1 by a config file, with or without a password file, stopped by its
 * pid, and restartable on the same port (retained messages are lost: no persistence).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../helpers/cli.ts';
import { ensureSystemDeps } from '../helpers/system-deps.ts';

const MOSQUITTO = '/usr/sbin/mosquitto';

export interface Mosquitto {
  port: number;
  /** `mqtt://127.0.0.1:<port>`, or with the user and password when the broker has them. */
  url: string;
  /** Stops the broker and starts it again on the same port. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect(port, '127.0.0.1');
    s.once('connect', () => {
      s.destroy();
      resolve(true);
    });
    s.once('error', () => resolve(false));
  });
}

/** Starts mosquitto on a free port of 127.0.0.1; `auth` requires that user and password; `extra` config lines. */
export async function startMosquitto(
  auth?: { user: string; password: string },
  extra: string[] = [],
): Promise<Mosquitto> {
  ensureSystemDeps();
  const dir = mkdtempSync(join(tmpdir(), 'opencube-mosquitto-'));
  // Started as root, mosquitto runs as the `mosquitto` user: it must be able to read its files.
  chmodSync(dir, 0o755);
  const port = await freePort();
  const lines = [`listener ${port} 127.0.0.1`, 'persistence false', 'log_dest stderr', 'log_type error', ...extra];
  if (auth) {
    const file = join(dir, 'passwd');
    writeFileSync(file, '');
    execFileSync('/usr/bin/mosquitto_passwd', ['-b', file, auth.user, auth.password]);
    chmodSync(file, 0o644);
    lines.push('allow_anonymous false', `password_file ${file}`);
  } else lines.push('allow_anonymous true');
  const conf = join(dir, 'mosquitto.conf');
  writeFileSync(conf, `${lines.join('\n')}\n`);

  let child: ChildProcess | undefined;
  const run = async () => {
    const c = spawn(MOSQUITTO, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] });
    let err = '';
    c.stderr?.setEncoding('utf8').on('data', (s: string) => {
      err += s;
    });
    child = c;
    const until = Date.now() + 10_000;
    while (!(await listening(port))) {
      if (c.exitCode !== null || Date.now() > until) throw new Error(`mosquitto did not start: ${err}`);
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  const halt = async () => {
    const c = child;
    child = undefined;
    if (!c || c.exitCode !== null || c.pid === undefined) return;
    const exited = new Promise((r) => c.once('exit', r));
    process.kill(c.pid, 'SIGTERM');
    await exited;
  };
  await run();
  const creds = auth ? `${encodeURIComponent(auth.user)}:${encodeURIComponent(auth.password)}@` : '';
  return {
    port,
    url: `mqtt://${creds}127.0.0.1:${port}`,
    async restart() {
      await halt();
      await run();
    },
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
