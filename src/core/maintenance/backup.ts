/**
 * Backup and restore of the store. A backup is the whole SQLite database as one file (tokens,
 * devices, names, tags, modes, engines, the console's password and sessions). A restore is
 * checked first (a SQLite file of this gateway, not newer than this release), then staged beside
 * the store and swapped in at the next start, before the store is opened: the running gateway
 * never has its store replaced under it.
 */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import type { Db } from '../../store/db.ts';
import { migrations } from '../../store/migrations.ts';

/** Tables every store of this gateway has. */
const REQUIRED = ['kv', 'tokens', 'devices', 'security_modes'];

/** The whole store as the bytes of one SQLite file. */
export function backup(db: Db): Buffer {
  return db.serialize();
}

/** Why these bytes are not a backup of this gateway, or undefined when they are. */
export function backupProblem(bytes: Buffer): string | undefined {
  if (bytes.length < 100 || bytes.subarray(0, 16).toString('latin1') !== 'SQLite format 3\u0000')
    return 'this file is not a backup of the gateway (not an SQLite database)';
  let db: Db | undefined;
  try {
    // A store in WAL mode says so in its header (bytes 18 and 19), and SQLite cannot open such a
    // file from memory: the copy checked here says "rollback journal" instead.
    const copy = Buffer.from(bytes);
    copy[18] = 1;
    copy[19] = 1;
    db = new Database(copy, { readonly: true });
    const tables = new Set(
      db
        .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
        .all()
        .map((r) => r.name),
    );
    const missing = REQUIRED.filter((t) => !tables.has(t));
    if (missing.length > 0) return `this database is not a backup of the gateway (no table ${missing.join(', ')})`;
    const version = db.pragma('user_version', { simple: true }) as number;
    const latest = migrations.at(-1)?.version ?? 0;
    if (version > latest)
      return `this backup comes from a newer release (store version ${version}, this one reads ${latest})`;
    const check = db.pragma('quick_check', { simple: true });
    if (check !== 'ok') return `this backup is damaged (${String(check)})`;
    return undefined;
  } catch (err) {
    return `this file cannot be read as a database: ${(err as Error).message}`;
  } finally {
    db?.close();
  }
}

/** Checks a backup and stages it to replace the store at `dbPath` at the next start. */
export function stageRestore(dbPath: string, bytes: Buffer): { ok: true } | { ok: false; message: string } {
  const problem = backupProblem(bytes);
  if (problem) return { ok: false, message: problem };
  writeFileSync(`${dbPath}.restore`, bytes, { mode: 0o600 });
  return { ok: true };
}

/** Before the store opens: swaps in a staged restore (its WAL files go with the old store). */
export function applyStagedRestore(dbPath: string): boolean {
  const staged = `${dbPath}.restore`;
  if (!existsSync(staged)) return false;
  for (const suffix of ['-wal', '-shm']) rmSync(`${dbPath}${suffix}`, { force: true });
  renameSync(staged, dbPath);
  return true;
}
