/**
 * Backups and restores of a running gateway's store, for the control socket (files) and the
 * console (bytes): a backup carries the settings that differ from the defaults; a restore is
 * checked and staged, and replaces the store at the next start.
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { runWorker } from '../../lib/workers.ts';
import type { Db } from '../../store/db.ts';
import { withScratch } from './data-folder.ts';
import { type BackupContents, writeBackup } from './store-backup.ts';
import { type RestoreCheck, stagedPath } from './store-restore.ts';

export interface BackupsOptions {
  db: Db;
  dbPath: string;
  dataDir: string;
  version: string;
  /** The settings that differ from the defaults, carried by each backup. */
  changedSettings(): Record<string, string>;
  clock: Clock;
  log: Log;
}

export class Backups {
  constructor(private readonly o: BackupsOptions) {}

  /** Writes a backup of the store (and the settings that differ from defaults) to `file`. */
  backup(file: string): Promise<BackupContents> {
    const { db, version, clock } = this.o;
    return writeBackup(db, file, { gatewayVersion: version, settings: this.o.changedSettings(), now: clock.now() });
  }

  /**
   * Checks a backup and stages it to replace the store at the next start (nothing changes when it
   * is refused). In a worker thread (restore-worker.ts): checking a store of tens of MB held the
   * event loop for over a second.
   */
  async stageRestore(file: string, name = file): Promise<RestoreCheck> {
    const r = await runWorker<RestoreCheck>('core/maintenance/restore-worker', {
      path: file,
      stage: stagedPath(this.o.dbPath),
      name,
    });
    if (r.ok) this.o.log.warn({ contents: r.contents }, 'a backup is staged: it replaces the store at the next start');
    return r;
  }

  /** A backup as the bytes of one SQLite file (the console's download). */
  bytes(): Promise<Buffer> {
    return withScratch(this.o.dataDir, async (file) => {
      await this.backup(file);
      return readFileSync(file);
    });
  }

  /** Checks uploaded bytes and stages them (the console's upload). */
  stageBytes(bytes: Buffer): Promise<RestoreCheck> {
    return withScratch(this.o.dataDir, async (file) => {
      await writeFile(file, bytes, { mode: 0o600 });
      return this.stageRestore(file, 'the uploaded file');
    });
  }
}
