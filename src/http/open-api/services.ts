/**
 * What the Open API's routes are given by the composition root: core services only (the HTTP
 * layer knows no driver; cameras are reached through the small CameraApi of their routes).
 */
import type { AlarmService } from '../../core/alarm/index.ts';
import type { MediaPlayer } from '../../core/audio/index.ts';
import type { DeviceDebugLog } from '../../core/devices/debug-log.ts';
import type { DeviceEventInbox } from '../../core/devices/inbox.ts';
import type { DeviceService } from '../../core/devices/index.ts';
import type { GatewayInfo } from '../../core/gateway-info.ts';
import type { RuntimeMonitor } from '../../core/runtime.ts';
import type { SecurityService } from '../../core/security.ts';
import type { SpeakerService } from '../../core/speaker.ts';
import type { TokenService } from '../../core/tokens.ts';
import type { ClipStore, TtsEngines, TtsService } from '../../core/tts/index.ts';
import type { UiCards } from '../../core/ui-cards.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import type { CameraApi } from './routes/cameras.ts';

export interface OpenApiServices {
  log: Log;
  /** The gateway's clock: request deadlines (D2's budget) are read on it. */
  clock: Clock;
  tokens: TokenService;
  security: SecurityService;
  alarm: AlarmService;
  speaker: SpeakerService;
  runtime: RuntimeMonitor;
  info(): GatewayInfo;
  /** Whether a Host header names this gateway (token requests are answered only then). */
  ownHost(host: string | undefined): boolean;
  /** Asks the process to restart (G8); called after the reply is on the wire. */
  restart(): void;
  devices: DeviceService;
  inbox: DeviceEventInbox;
  engines: TtsEngines;
  speech: TtsService;
  clips: ClipStore;
  media: MediaPlayer;
  /** The camera driver once loaded. */
  cameras(): CameraApi | undefined;
  /** The debug log of third-party devices (directives sent, events received). */
  debugLog: DeviceDebugLog;
  /** Dashboard cards of add-ons. */
  cards: UiCards;
}
