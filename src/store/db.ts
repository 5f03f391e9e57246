import { chmodSync, closeSync, existsSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import Database from 'better-sqlite3';
import { migrations } from './migrations.ts';

export type Db = Database.Database;

/**
 * Makes `file` the user's alone (0600), creating it empty when it is not there, and its folder
 * (0700) when that is not there. The store holds the hashes of tokens and of the console's
 * password, cameras' passwords and the Matter bridge's keys; SQLite gives its -wal and -shm the
 * store's own mode. A store an older release made readable by others is narrowed too.
 */
export function ownerOnlyFile(file: string): void {
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  if (!existsSync(file)) closeSync(openSync(file, 'a', 0o600));
  for (const f of [file, `${file}-wal`, `${file}-shm`])
    if (existsSync(f) && (statSync(f).mode & 0o077) !== 0) chmodSync(f, statSync(f).mode & 0o700);
}

/** Opens (creating if needed) the SQLite store at `file` in WAL mode and brings its schema up to date. */
export function openDb(file: string): Db {
  if (file !== ':memory:') ownerOnlyFile(file);
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  // NORMAL is durable across process crashes in WAL mode; FULL also survives power loss at the
  // cost of an fsync per commit. A gateway on an SD card gets power cuts: keep FULL.
  db.pragma('synchronous = FULL');
  db.pragma('foreign_keys = ON');
  db.pragma('busy_timeout = 5000');
  migrate(db);
  return db;
}

/** Applies every migration newer than the store's user_version, each in its own transaction. */
export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  for (const m of migrations) {
    if (m.version <= current) continue;
    db.transaction(() => {
      db.exec(m.sql);
      db.pragma(`user_version = ${m.version}`);
    })();
  }
}

/** A small typed key-value table for single settings such as the speaker volume. */
export class KvStore {
  private readonly getStmt;
  private readonly setStmt;
  private readonly delStmt;

  constructor(db: Db) {
    this.getStmt = db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?');
    this.setStmt = db.prepare<[string, string]>(
      'INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
    );
    this.delStmt = db.prepare<[string]>('DELETE FROM kv WHERE key = ?');
  }

  /** Reads a JSON value, or the fallback when the key is absent. */
  get<T>(key: string, fallback: T): T {
    const row = this.getStmt.get(key);
    return row ? (JSON.parse(row.value) as T) : fallback;
  }

  /** Writes a JSON value (committed when this returns). */
  set(key: string, value: unknown): void {
    this.setStmt.run(key, JSON.stringify(value));
  }

  delete(key: string): void {
    this.delStmt.run(key);
  }
}

/** Readiness of the store (GET /ready): it answers a query. */
export function storeReadiness(db: Db): { name: 'store'; ok: boolean; reason?: string } {
  try {
    db.prepare('SELECT 1').get();
    return { name: 'store', ok: true };
  } catch (err) {
    return { name: 'store', ok: false, reason: (err as Error).message };
  }
}
