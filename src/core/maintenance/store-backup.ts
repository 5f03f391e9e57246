/**
 * Backups of the store. A backup is one SQLite file: a consistent copy of the store taken with
 * SQLite's online backup while the gateway runs (writes made during the copy are in it or after
 * it, never half), plus one table, `opencube_backup`, saying what it is: the format, when it was
 * taken, the gateway's version, and the settings that differed from their defaults (settings
 * live in flags and the environment, which belong to the service manager: the backup carries
 * them for the record, a restore prints them and does not apply them). Everything the gateway
 * keeps is in the store: devices with their names, tags and state, cameras with their stream
 * settings, tokens (hashed), security modes and alarm settings, TTS engines, dashboard cards, the
 * speaker's volume. The file can be read with any SQLite tool.
 */
import { createHash } from 'node:crypto';
import { renameSync, rmSync } from 'node:fs';
import Database from 'better-sqlite3';
import { type Db, ownerOnlyFile } from '../../store/db.ts';
import { migrations } from '../../store/migrations.ts';

/** The table that marks a file as a backup of this gateway. */
export const BACKUP_TABLE = 'opencube_backup';
/** The version of the backup format (the table's shape), for a later release to read old ones. */
export const BACKUP_FORMAT = 1;

/** What the backup says of itself. */
export interface BackupMeta {
  format: number;
  created_at: string;
  gateway_version: string;
  /** The store's schema version (its last migration). */
  store_version: number;
  /** Settings that differed from their defaults, as environment variables (`OPENCUBE_ZIGBEE_MODE`). */
  settings: Record<string, string>;
  /** SHA-256 of every row of every table (contentDigest): a byte damaged anywhere is found. */
  digest: string;
}

/** What a backup holds, counted. */
export interface BackupContents {
  devices: number;
  cameras: number;
  tokens: number;
  tts_engines: number;
  ui_cards: number;
  security_modes: number;
  /** Scenes and automations (their definitions, switches and traces). */
  scenes: number;
  automations: number;
}

export interface WriteBackupOptions {
  gatewayVersion: string;
  settings: Record<string, string>;
  /** The time written into the backup (epoch ms). */
  now: number;
  /** Pages copied per step (SQLite's default 100); the event loop runs between steps. */
  pagesPerStep?: number;
}

/**
 * Writes a backup of `db` to `file` (replaced atomically: a reader never sees half a backup, and a
 * failed backup leaves the file there was). Readable by the gateway's user only.
 */
export async function writeBackup(db: Db, file: string, opts: WriteBackupOptions): Promise<BackupContents> {
  const partial = `${file}.partial-${process.pid}-${Date.now()}`;
  try {
    // The online backup copies the store page by page while the gateway goes on writing through
    // the same connection; SQLite carries those writes into the copy, so it is consistent.
    // Made the user's alone before a byte is in it (SQLite's backup keeps an existing file's mode).
    ownerOnlyFile(partial);
    const step = opts.pagesPerStep;
    await (step ? db.backup(partial, { progress: () => step }) : db.backup(partial));
    const copy = new Database(partial);
    let contents: BackupContents;
    try {
      // One self-contained file: no -wal beside it.
      copy.pragma('journal_mode = DELETE');
      const meta: BackupMeta = {
        format: BACKUP_FORMAT,
        created_at: new Date(opts.now).toISOString(),
        gateway_version: opts.gatewayVersion,
        store_version: copy.pragma('user_version', { simple: true }) as number,
        settings: opts.settings,
        digest: contentDigest(copy),
      };
      copy.exec(
        `DROP TABLE IF EXISTS ${BACKUP_TABLE}; CREATE TABLE ${BACKUP_TABLE} (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
      );
      const put = copy.prepare(`INSERT INTO ${BACKUP_TABLE} (key, value) VALUES (?, ?)`);
      copy.transaction(() => {
        for (const [k, v] of Object.entries(meta)) put.run(k, JSON.stringify(v));
      })();
      contents = countContents(copy);
    } finally {
      copy.close();
    }
    renameSync(partial, file);
    return contents;
  } catch (err) {
    rmSync(partial, { force: true });
    rmSync(`${partial}-journal`, { force: true });
    throw err;
  }
}

function count(db: Db, sql: string): number {
  return (db.prepare<[], { n: number }>(sql).get()?.n ?? 0) as number;
}

function hasTable(db: Db, name: string): boolean {
  return count(db, `SELECT count(*) AS n FROM sqlite_master WHERE type = 'table' AND name = '${name}'`) > 0;
}

/**
 * A digest of the store's contents: every table but the backup's own, in name order, every row in
 * rowid order, and the schema version. SQLite's integrity check finds a broken structure; this
 * finds a changed value too.
 */
export function contentDigest(db: Db): string {
  const hash = createHash('sha256');
  hash.update(`v${db.pragma('user_version', { simple: true })}\n`);
  const tables = db
    .prepare<[], { name: string }>(
      `SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND name != '${BACKUP_TABLE}' ORDER BY name`,
    )
    .all();
  for (const { name } of tables) {
    hash.update(`table ${name}\n`);
    for (const row of db.prepare(`SELECT * FROM "${name.replace(/"/g, '""')}" ORDER BY rowid`).iterate())
      hash.update(`${JSON.stringify(row)}\n`);
  }
  return hash.digest('hex');
}

/** Counts what a store (or a backup) holds. */
export function countContents(db: Db): BackupContents {
  const n = (table: string, where = '') =>
    hasTable(db, table) ? count(db, `SELECT count(*) AS n FROM ${table} ${where}`) : 0;
  return {
    devices: n('devices'),
    cameras: n('devices', "WHERE driver = 'camera'"),
    tokens: n('tokens'),
    tts_engines: n('tts_engines'),
    ui_cards: n('ui_cards'),
    security_modes: n('security_modes'),
    scenes: n('automations', "WHERE kind = 'scene'"),
    automations: n('automations', "WHERE kind = 'automation'"),
  };
}

/** Reads the `opencube_backup` table (undefined for a plain store copied by hand). */
export function readMeta(db: Db): BackupMeta | undefined {
  if (!hasTable(db, BACKUP_TABLE)) return undefined;
  const rows = db.prepare<[], { key: string; value: string }>(`SELECT key, value FROM ${BACKUP_TABLE}`).all();
  const out: Record<string, unknown> = {};
  for (const r of rows) {
    try {
      out[r.key] = JSON.parse(r.value);
    } catch {
      out[r.key] = r.value;
    }
  }
  return out as unknown as BackupMeta;
}

/** The store version this release reads (its last migration). */
export function latestStoreVersion(): number {
  return migrations.at(-1)?.version ?? 0;
}
