/**
 * What the console's API is given by the composition root: the core services, like the Open
 * API's, and what is this surface's own (sessions, the live settings, backups, the log level).
 */

import type { Actor } from '../../core/actor.ts';
import type { CoreServices } from '../../core/services.ts';
import type { LogLevel } from '../../lib/logger.ts';
import type { SettingRow } from '../../settings/live.ts';
import type { ConsoleAccess } from './access.ts';

/** Backup and restore of the store (src/core/maintenance/store-backup.ts, store-restore.ts). */
export interface BackupApi {
  /** A backup of the store as the bytes of one SQLite file (as `opencube backup` writes it). */
  backup(): Promise<Buffer>;
  /** Checks a backup and stages it for the next start; the caller restarts. `meta`: what the backup says of itself. */
  restore(bytes: Buffer): Promise<{ ok: true; meta?: { created_at: string } } | { ok: false; message: string }>;
}

export interface ConsoleServices extends CoreServices {
  access: ConsoleAccess;
  /** Whether a Host header names this gateway (isOwnHost of gateway-info.ts, the names it goes by). */
  ownHost(host: string | undefined): boolean;
  /** The package version (`0.1.0`). */
  version: string;
  /** When this gateway started (ms on its clock): "Running since", not the host's boot. */
  startedAt(): number;
  /** When this start installed a restore (ms on its clock), or null: the login page says so. */
  restoredAt(): number | null;
  /** Asks the process to restart; called after the reply is on the wire. */
  restart(): void;
  /** How long pairing stays open when the console opens it (zigbee.permit_join_seconds). */
  pairingSeconds: number;
  settings(): SettingRow[];
  /** Sets a live setting (a value checkLive accepted), applies it now and keeps it; returns the value there was. `by`: who, for the activity log. */
  setSetting(key: string, value: unknown, by?: Actor): unknown;
  maintenance: BackupApi;
  /** The running gateway's log level; set returns the level there was. */
  logLevel: { get(): string; set(level: LogLevel): string };
  /** A CLI command (`passwd`) as the user who started the gateway runs it (`npm run opencube -- passwd`). */
  cliCommand(words: string): string;
}

export type { SettingRow };
