/**
 * Restoring a backup (store-backup.ts). A file is checked before anything changes: it must be an
 * SQLite database, whole (SQLite's integrity check, and the backup's own digest of its contents),
 * a store of this gateway, not from a newer release, with exactly the schema this release's
 * migrations make (store-schema.ts: no planted trigger, view or table), and every row readable by
 * the gateway's start (store-rows.ts). It is then prepared beside the store as a store of this
 * release (an older schema is migrated there) and put in place:
 * - with the gateway stopped, at once (`opencube restore FILE`);
 * - with the gateway running, at its next start (staged as `gateway.db.restore`; the control
 *   socket then restarts the gateway): a running gateway never has its store replaced under it.
 * The store there was is kept as `gateway.db.before-restore` (with its -wal), and a restored store
 * stays unconfirmed until a gateway has started on it: one that does not start is put aside as
 * `gateway.db.restore-failed` and the store there was comes back (rollBackRestore). A file
 * refused changes nothing. The checks run in a worker thread (restore-worker.ts) for a running
 * gateway: a large store took over a second.
 */
import {
  chmodSync,
  copyFileSync,
  existsSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import Database from 'better-sqlite3';
import { readHead } from '../../lib/file-head.ts';
import type { Log } from '../../lib/log.ts';
import { type Db, KvStore, migrate } from '../../store/db.ts';
import {
  BACKUP_FORMAT,
  BACKUP_TABLE,
  type BackupContents,
  type BackupMeta,
  contentDigest,
  countContents,
  latestStoreVersion,
  readMeta,
} from './store-backup.ts';
import { rowProblems } from './store-rows.ts';
import { schemaProblems } from './store-schema.ts';

/** Tables every store of this gateway has had since its first release. */
const REQUIRED_TABLES = ['kv', 'tokens', 'devices', 'security_modes', 'tts_engines'];
const SQLITE_HEADER = Buffer.from('SQLite format 3\u0000', 'latin1');

/** A file checked and prepared, or why it is refused. */
export type RestoreCheck =
  | {
      ok: true;
      /** What the backup says of itself; absent for a store copied by hand. */
      meta?: BackupMeta;
      contents: BackupContents;
      /** The schema version the file had (the prepared store has this release's). */
      from_version: number;
    }
  | { ok: false; message: string };

/**
 * The mark a restored store carries until its first start reads it (`{taken_at}`: when the backup
 * was taken, or null for a store copied by hand): the automations end the runs that were under
 * way when the backup was taken instead of resuming them (docs/automations.md).
 */
export const RESTORED_FROM_KEY = 'restored_from';

/** Where a running gateway stages a restore for its next start. */
export function stagedPath(dbPath: string): string {
  return `${dbPath}.restore`;
}

function refuse(message: string): RestoreCheck {
  return { ok: false, message };
}

function readHeader(file: string, name: string): Buffer | string {
  try {
    if (!statSync(file).isFile()) return `${name} is not a file`;
    return readHead(file, 100);
  } catch (err) {
    return `cannot read ${name}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  }
}

/** Checks one opened copy; returns why it is refused, or what it holds. */
function checkCopy(db: Db, name: string): RestoreCheck {
  const integrity = db.pragma('integrity_check', { simple: true });
  if (integrity !== 'ok') return refuse(`${name} is damaged: SQLite's integrity check says ${String(integrity)}`);
  const tables = new Set(
    db
      .prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'")
      .all()
      .map((r) => r.name),
  );
  const missing = REQUIRED_TABLES.filter((t) => !tables.has(t));
  const version = db.pragma('user_version', { simple: true }) as number;
  if (missing.length > 0 || version < 1)
    return refuse(
      `${name} is an SQLite database but not a backup of opencube (${missing.length > 0 ? `no table ${missing.join(', ')}` : 'no store version'})`,
    );
  const latest = latestStoreVersion();
  if (version > latest)
    return refuse(
      `${name} comes from a newer release of opencube (store version ${version}; this release reads up to ${latest}): update opencube first`,
    );
  const meta = tables.has(BACKUP_TABLE) ? readMeta(db) : undefined;
  if (meta) {
    if (typeof meta.format !== 'number' || meta.format > BACKUP_FORMAT)
      return refuse(`${name} is a backup in a newer format (${String(meta.format)}): update opencube first`);
    if (typeof meta.digest === 'string' && meta.digest !== contentDigest(db))
      return refuse(`${name} is damaged: its contents differ from the checksum written when it was taken`);
  }
  const schema = schemaProblems(db, version, [BACKUP_TABLE]);
  if (schema.extra.length > 0)
    return refuse(
      `${name} holds what no backup of opencube holds (${schema.extra.join(', ')}): it was changed after it was taken, and is not restored`,
    );
  if (schema.missing.length > 0) return refuse(`${name} is damaged: it lacks ${schema.missing.join(', ')}`);
  return { ok: true, ...(meta ? { meta } : {}), contents: countContents(db), from_version: version };
}

/**
 * Checks `file` and prepares it at `stage` as a store of this release. Only `stage` is written
 * (replaced when it exists); on refusal nothing is left behind. Messages call the file `name`
 * (the user's name of a file the gateway received as a copy).
 */
export function prepareRestore(path: string, stage: string, name = path): RestoreCheck {
  const head = readHeader(path, name);
  if (typeof head === 'string') return refuse(head);
  if (head.length < 100 || !head.subarray(0, 16).equals(SQLITE_HEADER))
    return refuse(`${name} is not a backup of opencube (not an SQLite database)`);
  const partial = `${stage}.partial`;
  let db: Db | undefined;
  try {
    copyFileSync(path, partial);
    // The copy took the mode of the file given; a store is the gateway user's alone.
    chmodSync(partial, 0o600);
    db = new Database(partial, { fileMustExist: true });
    const checked = checkCopy(db, name);
    if (!checked.ok) return checked;
    db.exec(`DROP TABLE IF EXISTS ${BACKUP_TABLE}`);
    // An older schema becomes this release's here, before anything is replaced.
    migrate(db);
    new KvStore(db).set(RESTORED_FROM_KEY, { taken_at: checked.meta?.created_at ?? null });
    const fk = db.pragma('foreign_key_check') as unknown[];
    if (fk.length > 0) return refuse(`${name} is damaged: ${fk.length} rows refer to rows that are not there`);
    // Every row through the readers of the gateway's start: what they cannot read is found now,
    // not by a gateway that then cannot start.
    const rows = rowProblems(db);
    if (rows.length > 0) return refuse(`${name} cannot be restored: ${rows.join('; ')}`);
    db.close();
    db = undefined;
    renameSync(partial, stage);
    return checked;
  } catch (err) {
    const code = (err as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_NOTADB') || code.startsWith('SQLITE_CORRUPT'))
      return refuse(`${name} is damaged: ${(err as Error).message}`);
    return refuse(`${name} cannot be restored: ${(err as Error).message}`);
  } finally {
    db?.close();
    for (const f of [partial, `${partial}-journal`, `${partial}-wal`, `${partial}-shm`]) rmSync(f, { force: true });
  }
}

/** The mark of a restored store no gateway has started on yet. */
function unconfirmedPath(dbPath: string): string {
  return `${dbPath}.restore-unconfirmed`;
}

/**
 * Puts the prepared store `stage` in place of the store at `dbPath` (the gateway is not running on
 * it), unconfirmed until a gateway starts on it (confirmRestore). The store there was, if any,
 * becomes `<dbPath>.before-restore`; returns that path.
 */
export function installRestore(dbPath: string, stage: string): string | undefined {
  let previous: string | undefined;
  if (existsSync(dbPath)) {
    previous = `${dbPath}.before-restore`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${previous}${suffix}`, { force: true });
    // The -wal goes with its store: it may hold the last commits of a gateway that did not stop cleanly.
    for (const suffix of ['-wal', '-shm'])
      if (existsSync(`${dbPath}${suffix}`)) renameSync(`${dbPath}${suffix}`, `${previous}${suffix}`);
    renameSync(dbPath, previous);
  }
  renameSync(stage, dbPath);
  writeFileSync(unconfirmedPath(dbPath), 'installed\n', { mode: 0o600 });
  return previous;
}

/**
 * Before a gateway opens its store: a restored store whose last start never completed (the process
 * died in it) is rolled back, and `log` says so; a restore a running gateway staged is put in place
 * (returns true); a restored store not yet confirmed is marked as being tried, so that the next
 * start knows this one did not get through.
 */
export function beforeOpening(dbPath: string, log: Log): boolean {
  const mark = unconfirmedPath(dbPath);
  const tried = existsSync(mark) && readFileSync(mark, 'utf8').startsWith('trying');
  const rolledBack = tried ? rollBackRestore(dbPath) : undefined;
  if (rolledBack)
    log.error(
      { kept_as: rolledBack },
      'the restored store did not start: it is put aside, and the store there was is back',
    );
  const stage = stagedPath(dbPath);
  const restored = existsSync(stage);
  if (restored) installRestore(dbPath, stage);
  if (existsSync(mark)) writeFileSync(mark, 'trying\n', { mode: 0o600 });
  if (restored) log.warn({ db: dbPath }, 'the store was restored from a backup');
  return restored;
}

/** A gateway started on the restored store: it stays. */
export function confirmRestore(dbPath: string): void {
  rmSync(unconfirmedPath(dbPath), { force: true });
}

/**
 * When the store in place is a restore no gateway started on (the last start on it failed, or
 * the process died in it): puts it aside as `gateway.db.restore-failed` and the store there was
 * back. Returns the path it was put aside at, or undefined when there was nothing to undo.
 */
export function rollBackRestore(dbPath: string): string | undefined {
  if (!existsSync(unconfirmedPath(dbPath))) return undefined;
  const failed = `${dbPath}.restore-failed`;
  const previous = `${dbPath}.before-restore`;
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${failed}${suffix}`, { force: true });
  for (const suffix of ['', '-wal', '-shm'])
    if (existsSync(`${dbPath}${suffix}`)) renameSync(`${dbPath}${suffix}`, `${failed}${suffix}`);
  // A restore onto a folder without a store had nothing before it: the gateway starts empty.
  for (const suffix of ['-wal', '-shm', ''])
    if (existsSync(`${previous}${suffix}`)) renameSync(`${previous}${suffix}`, `${dbPath}${suffix}`);
  rmSync(unconfirmedPath(dbPath), { force: true });
  return failed;
}
