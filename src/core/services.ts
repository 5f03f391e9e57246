/**
 * The core services one gateway builds, as every part that uses them receives them: the Open
 * API's routes, the console's API and the integrations (src/core/integration.ts). Each surface
 * adds only what is its own (the Open API its host check, the console its sessions and settings).
 */
import type { Failed } from '../catalog/errors.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { AlarmService } from './alarm/index.ts';
import type { MediaPlayer } from './audio/index.ts';
import type { DeviceDebugLog } from './devices/debug-log.ts';
import type { DeviceEventInbox } from './devices/inbox.ts';
import type { DeviceService } from './devices/index.ts';
import type { EventBus } from './event-bus.ts';
import type { GatewayInfo } from './gateway-info.ts';
import type { RuntimeMonitor } from './runtime.ts';
import type { SecurityService } from './security.ts';
import type { SpeakerService } from './speaker.ts';
import type { TokenService } from './tokens.ts';
import type { ClipStore, TtsEngines, TtsService } from './tts/index.ts';
import type { UiCards } from './ui-cards.ts';

/** What the camera routes and integrations need of the camera driver (the HTTP layer knows no driver). */
export interface CameraApi {
  /** A JPEG of the camera's picture now (cached for a second). */
  snapshot(serial: string): Promise<{ ok: true; jpeg: Buffer } | Failed>;
  /** Joins the camera's one upstream live view; `leave` when the viewer goes. */
  watch(
    serial: string,
    viewer: { frame(jpeg: Buffer): void; end(reason: string): void },
  ): Promise<{ ok: true; leave: () => void } | Failed>;
}

export interface CoreServices {
  log: Log;
  /** The gateway's clock: every deadline and timer runs on it. */
  clock: Clock;
  bus: EventBus;
  tokens: TokenService;
  security: SecurityService;
  alarm: AlarmService;
  speaker: SpeakerService;
  runtime: RuntimeMonitor;
  /** G4: the gateway's address, name and version (cached, the name follows a rename at once). */
  info(): GatewayInfo;
  /** The device registry and the service that routes commands to drivers. */
  devices: DeviceService;
  /** What third-party services report of their devices (T1). */
  inbox: DeviceEventInbox;
  /** Engines registered by third parties (RegisterTTSEngine). */
  engines: TtsEngines;
  /** Every TTS engine, the built-in one included: synthesis and speaking. */
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
