/**
 * What a gateway is to its callers (the CLI, the control socket, tests): the options it is built
 * with and what it offers once built (src/gateway.ts builds it).
 */
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import type { AutomationEngine } from './automations/index.ts';
import type { AlarmService } from './core/alarm/index.ts';
import type { AudioArbiter, AudioSink, MediaPlayer } from './core/audio/index.ts';
import type { DeviceService } from './core/devices/index.ts';
import type { EventBus } from './core/event-bus.ts';
import type { GatewayInfo } from './core/gateway-info.ts';
import type { IntegrationEntry } from './core/integration.ts';
import type { BackupContents } from './core/maintenance/store-backup.ts';
import type { RestoreCheck } from './core/maintenance/store-restore.ts';
import type { SecurityService } from './core/security.ts';
import type { SpeakerService } from './core/speaker.ts';
import type { TokenService } from './core/tokens.ts';
import type { TtsEngines, TtsService } from './core/tts/index.ts';
import type { UiCards } from './core/ui-cards.ts';
import type { DriverOptions } from './drivers/load.ts';
import type { History } from './history/index.ts';
import type { ConsoleAccess } from './http/console/access.ts';
import type { ReadyCheck } from './http/health/plugin.ts';
import type { AnswerCheck } from './http/open-api/route.ts';
import type { StreamWriter } from './http/stream/writer.ts';
import type { Clock } from './lib/clock.ts';
import type { LogLevel } from './lib/logger.ts';
import type { Settings } from './settings/index.ts';
import type { Db } from './store/db.ts';

export interface GatewayOptions {
  log?: Logger;
  /** Called when a client asks for a restart (G8), after the reply is sent. */
  onRestart?: () => void;
  /** The clock of every timer (tests move it by hand); the system clock by default. */
  clock?: Clock;
  /** The audio sink (default: from `audio.sink`; tests record). */
  audio?: { sink?: AudioSink };
  /** Tests: every success's `data` is checked against the route's declared answer schema. */
  answerCheck?: AnswerCheck;
  /** Options of the drivers that tests replace (the camera watcher's timers, DNS lookup; Zigbee timings). */
  drivers?: DriverOptions;
  /** The built console's folder (default: console/dist of this package). */
  consoleDir?: string;
  /**
   * A CLI command as the user who started the gateway runs it (`npm run opencube -- passwd`), for
   * the commands the gateway shows (src/cli/invocation.ts); `opencube <words>` when not given.
   */
  cliCommand?: (words: string) => string;
  /** Tests: integrations loaded after the table's (src/integrations/load.ts), as a new one would be. */
  addIntegrations?: readonly IntegrationEntry<Settings>[];
  /** What tests pass to an integration, by its id (its context's `options`: `homeassistant`'s reconnect backoff). */
  integrations?: Readonly<Record<string, Readonly<Record<string, unknown>>>>;
}

export interface Gateway {
  settings: Settings;
  app: FastifyInstance;
  db: Db;
  bus: EventBus;
  tokens: TokenService;
  security: SecurityService;
  /** The alarm: arming with delays, triggers, the alarm sound and alarm_state. */
  alarm: AlarmService;
  speaker: SpeakerService;
  /** The Open API's event stream. */
  sse: StreamWriter;
  /** The web console: who may use it (password, sessions) and its event stream. */
  console: { access: ConsoleAccess; stream: StreamWriter };
  /** The device registry (DriverHost) and the service that routes client commands to drivers. */
  devices: DeviceService;
  /** Engines registered by third parties (RegisterTTSEngine). */
  tts: TtsEngines;
  /** Every TTS engine, the built-in one included: synthesis and speaking. */
  speech: TtsService;
  /** What the speaker plays (sounds, beeps, speech, media, alarm), and its sink. */
  audio: AudioArbiter;
  sink: AudioSink;
  media: MediaPlayer;
  log: Logger;
  /** Paths of the files the gateway keeps in its data folder. */
  paths: { db: string; socket: string; pid: string };
  /** Starts the control socket, listens, then starts the drivers and integrations; resolves with the base URL. */
  start(): Promise<string>;
  /** Graceful stop: closes streams, waits for in-flight requests, stops drivers, closes the store. */
  stop(): Promise<void>;
  /** Factory reset: clears tokens, devices and the Matter bridge's identity; settings of the speaker and modes stay. */
  reset(): Promise<void>;
  /** Sets the console password and ends every console session (`opencube passwd`). */
  setConsolePassword(password: string): Promise<void>;
  /** Writes a backup of the store (and the settings that differ from defaults) to `file`. */
  backup(file: string): Promise<BackupContents>;
  /** Checks a backup and stages it to replace the store at the next start; the caller restarts. */
  stageRestore(file: string, name?: string): Promise<RestoreCheck>;
  /** Asks the process to restart (as G8 does); undefined when nothing would restart it. */
  restart?: () => void;
  /** Changes the log level while running; returns the level there was. */
  setLogLevel(level: LogLevel): string;
  /** Readiness: the store, then each driver (GET /ready). */
  readiness(): ReadyCheck[];
  /** Dashboard cards of add-ons. */
  cards: UiCards;
  info(): GatewayInfo;
  /** The Matter bridge's pairing code, QR payload and fabrics (`starting` while it starts; undefined: off). */
  matter(): unknown;
  /** The engine of scenes and automations (once start() has loaded the integrations). */
  automations(): AutomationEngine | undefined;
  /** The history (src/history), once the gateway has loaded it (docs/history.md). */
  history(): History | undefined;
}
