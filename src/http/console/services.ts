/**
 * What the console's API is given by the composition root: core services only, like the Open
 * API's (the HTTP layer knows no driver; cameras through the small CameraApi of their routes).
 */
import type { AlarmService } from '../../core/alarm/index.ts';
import type { DeviceService } from '../../core/devices/index.ts';
import type { EventBus } from '../../core/event-bus.ts';
import type { GatewayInfo } from '../../core/gateway-info.ts';
import type { RuntimeMonitor } from '../../core/runtime.ts';
import type { SecurityService } from '../../core/security.ts';
import type { SpeakerService } from '../../core/speaker.ts';
import type { TokenService } from '../../core/tokens.ts';
import type { TtsService } from '../../core/tts/index.ts';
import type { UiCards } from '../../core/ui-cards.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import type { LogLevel } from '../../lib/logger.ts';
import type { CameraApi } from '../open-api/routes/cameras.ts';
import type { ConsoleAccess } from './access.ts';
import type { MatterView } from './views.ts';

/** A setting as the console shows it: read-only (flags and the environment, at start) unless live. */
export interface SettingRow {
  key: string;
  value: unknown;
  description: string;
  /** The console can change it while the gateway runs (PUT /settings/{key}). */
  live: boolean;
  /** Its value was set in the console, and wins over the flag and the environment. */
  set_in_console: boolean;
}

/** Backup and restore of the store (src/core/maintenance/store-backup.ts, store-restore.ts). */
export interface BackupApi {
  /** A backup of the store as the bytes of one SQLite file (as `opencube backup` writes it). */
  backup(): Promise<Buffer>;
  /** Checks a backup and stages it for the next start; the caller restarts. `meta`: what the backup says of itself. */
  restore(bytes: Buffer): Promise<{ ok: true; meta?: { created_at: string } } | { ok: false; message: string }>;
}

export interface ConsoleServices {
  log: Log;
  access: ConsoleAccess;
  tokens: TokenService;
  security: SecurityService;
  alarm: AlarmService;
  speaker: SpeakerService;
  runtime: RuntimeMonitor;
  info(): GatewayInfo;
  /** The package version (`0.1.0`). */
  version: string;
  /** When this gateway started (ms on its clock): "Running since", not the host's boot. */
  startedAt(): number;
  /** When this start installed a restore (ms on its clock), or null: the login page says so. */
  restoredAt(): number | null;
  /** Asks the process to restart; called after the reply is on the wire. */
  restart(): void;
  devices: DeviceService;
  speech: TtsService;
  cameras(): CameraApi | undefined;
  bus: EventBus;
  clock: Clock;
  /** How long pairing stays open when the console opens it (zigbee.permit_join_seconds). */
  pairingSeconds: number;
  settings(): SettingRow[];
  /** Sets a live setting (a value checkLive accepted), applies it now and keeps it; returns the value there was. */
  setSetting(key: string, value: unknown): unknown;
  maintenance: BackupApi;
  /** The running gateway's log level; set returns the level there was. */
  logLevel: { get(): string; set(level: LogLevel): string };
  /** The dashboard cards add-ons registered. */
  cards: UiCards;
  /** The Matter bridge, while it runs (undefined: off). */
  matter(): MatterApi | undefined;
  /** Turns the Matter bridge on or off now, and keeps the choice for the next starts. */
  switchMatter(on: boolean): Promise<void>;
  /** What decides whether the bridge runs: the setting `matter.enabled`, or the console's switch once used. */
  matterChosenBy(): 'setting' | 'console';
  /** Whether the bridge is starting (it is not running yet). */
  matterStarting(): boolean;
  /** A CLI command (`passwd`) as the user who started the gateway runs it (`npm run opencube -- passwd`). */
  cliCommand(words: string): string;
}

/** What the console asks of the Matter bridge (src/integrations/matter). */
export interface MatterApi {
  status(): Omit<Extract<MatterView, { enabled: true }>, 'enabled' | 'chosen_by' | 'qr_svg'>;
  qrSvg(): string;
  removeFabric(index: number): Promise<boolean>;
  /** Opens pairing mode for another controller (15 minutes), or closes it. */
  openPairing(): Promise<unknown>;
  closePairing(): Promise<unknown>;
}
