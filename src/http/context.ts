import type { Logger } from 'pino';
import type { AlarmService } from '../core/alarm/index.ts';
import type { EventBus } from '../core/event-bus.ts';
import type { GatewayInfo } from '../core/gateway-info.ts';
import type { RuntimeMonitor } from '../core/runtime.ts';
import type { SecurityService } from '../core/security.ts';
import type { SpeakerService } from '../core/speaker.ts';
import type { TokenService } from '../core/tokens.ts';
import type { Settings } from '../settings/index.ts';

/** What the HTTP layer is given by the composition root: core services only, no drivers. */
export interface HttpContext {
  settings: Settings;
  log: Logger;
  bus: EventBus;
  tokens: TokenService;
  security: SecurityService;
  /** Arms and disarms the modes (S2-S5) with their delays, and owns the alarm state (G7). */
  alarm: AlarmService;
  speaker: SpeakerService;
  runtime: RuntimeMonitor;
  info: () => GatewayInfo;
  /** Asks the process to restart (G8); called after the reply is sent. */
  restart: () => void;
}
