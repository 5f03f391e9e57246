/**
 * The checks `opencube start` makes before anything starts: the data folder, another gateway on
 * it, the store, the port. Each failure is one line that names the setting, the path or port, and
 * what to do, and the gateway then exits with CONFIG_EXIT_CODE, which its supervisor (and the
 * systemd unit) do not retry: starting again cannot fix a folder that is a file. Without these, a
 * folder that is a file gave a bare `EEXIST: file already exists, mkdir`, and a port in use
 * started the simulated network, then failed with a stack trace, again and again.
 */

import { mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { socketAnswers } from '../lib/control-client.ts';
import type { Settings } from '../settings/index.ts';
import { shellWord } from './invocation.ts';

/** What the checks touch; tests replace a part (root can write anywhere, so "not writable" is injected). */
export interface PreflightDeps {
  /** Writes and removes a small file in `dir`; throws the file system's error. */
  probeWrite(dir: string): void;
  /** Whether a gateway answers on the control socket at `path`. */
  socketAnswers(path: string): Promise<boolean>;
  /** Binds `host:port` and lets it go; throws the bind's error. */
  probePort(host: string, port: number): Promise<void>;
}

function probeWrite(dir: string): void {
  const file = join(dir, `.write-check-${process.pid}`);
  writeFileSync(file, '');
  unlinkSync(file);
}

function probePort(host: string, port: number): Promise<void> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen({ port, host, exclusive: true }, () => server.close(() => done()));
  });
}

export const systemPreflight: PreflightDeps = { probeWrite, socketAnswers, probePort };

function code(err: unknown): string | undefined {
  return (err as NodeJS.ErrnoException | null)?.code;
}

/** The nearest existing path at or above `path` (the file that stands where a folder should be). */
function nearestExisting(path: string): { path: string; isDirectory: boolean } | undefined {
  for (let p = path; ; p = dirname(p)) {
    try {
      return { path: p, isDirectory: statSync(p).isDirectory() };
    } catch {
      if (dirname(p) === p) return undefined;
    }
  }
}

function notWritable(dir: string, err: unknown): string {
  const why = code(err) === 'EROFS' ? 'is on a read-only file system' : 'is not writable by this user';
  return `the data folder ${dir} (--data-dir) ${why} (${code(err) ?? (err as Error).message}): give this user write access to it, or choose another --data-dir`;
}

function checkDataDir(dir: string, deps: PreflightDeps): string | undefined {
  const existing = nearestExisting(dir);
  if (existing && !existing.isDirectory) {
    return existing.path === dir
      ? `the data folder ${dir} (--data-dir) is a file, not a folder: move the file away, or choose another --data-dir`
      : `the data folder ${dir} (--data-dir) cannot be made: ${existing.path} is a file, not a folder; choose another --data-dir`;
  }
  try {
    // The user's alone: it holds the store (src/store/db.ts), backups in the making, the socket.
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    deps.probeWrite(dir);
  } catch (err) {
    if (['EACCES', 'EPERM', 'EROFS'].includes(code(err) ?? '')) return notWritable(dir, err);
    if (code(err) === 'ENOSPC') return `the data folder ${dir} (--data-dir) is on a full disk: free some space`;
    throw err;
  }
  return undefined;
}

/** Why the store cannot be used, or undefined when it opens and its pages check out. */
function storeDamage(file: string): string | undefined {
  let db: Database.Database | undefined;
  try {
    if (statSync(file).isDirectory()) return 'a folder, not a file';
    db = new Database(file, { fileMustExist: true });
    const rows = db.pragma('quick_check(1)', { simple: false }) as { quick_check: string }[];
    const first = rows[0]?.quick_check ?? 'ok';
    if (first === 'ok') return undefined;
    // SQLite's report spans lines ("*** in database main ***\nTree 16 page 16: ..."): one line here.
    return `corrupt: ${first
      .replace(/\*\*\* in database \w+ \*\*\*/, '')
      .replace(/\s+/g, ' ')
      .trim()}`;
  } catch (err) {
    if (code(err) === 'ENOENT') return undefined;
    if (code(err) === 'SQLITE_NOTADB') return 'not a SQLite database';
    if (code(err)?.startsWith('SQLITE_CORRUPT')) return 'corrupt';
    if (code(err) === 'SQLITE_READONLY' || code(err) === 'SQLITE_CANTOPEN') return `cannot be opened (${code(err)})`;
    throw err;
  } finally {
    db?.close();
  }
}

/** The one line for a port that cannot be bound, or undefined for another error. */
export function portProblem(err: unknown, host: string, port: number): string | undefined {
  switch (code(err)) {
    case 'EADDRINUSE':
      return `port ${port} is in use on ${host}; stop the other program or use --port`;
    case 'EACCES':
      return `port ${port} on ${host} needs privileges this user lacks (ports below 1024); use --port 8081, or give node CAP_NET_BIND_SERVICE`;
    case 'EADDRNOTAVAIL':
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `${host} (--host) is not an address of this machine; use 0.0.0.0 for every address, or one of this machine's addresses`;
    default:
      return undefined;
  }
}

/**
 * The first problem that stops this gateway from starting, as one line for the user, or
 * undefined when it can start. Run before anything else starts (no driver, no broker, no store
 * created in the wrong place).
 */
export async function checkStart(
  settings: Settings,
  deps: PreflightDeps = systemPreflight,
): Promise<string | undefined> {
  const dir = resolve(settings.data_dir);
  const folder = checkDataDir(dir, deps);
  if (folder) return folder;
  if (await deps.socketAnswers(join(dir, 'opencube.sock')))
    return `another gateway is running on the data folder ${dir} (--data-dir) and holds its store: stop it first, or give this one another --data-dir`;
  const store = join(dir, 'gateway.db');
  const damage = storeDamage(store);
  if (damage)
    return `the store ${store} is damaged (${damage}): restore a backup with "opencube restore FILE --data-dir ${shellWord(dir)}", or move the file away to start with an empty store`;
  if (settings.port !== 0) {
    try {
      await deps.probePort(settings.host, settings.port);
    } catch (err) {
      const problem = portProblem(err, settings.host, settings.port);
      if (problem) return problem;
      throw err;
    }
  }
  return undefined;
}
