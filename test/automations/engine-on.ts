/** The automation engine built on a gateway's services, as the gateway will build it (tests, the host script, the bench). */
import { AutomationEngine, corePorts, engineSettings } from '../../src/automations/index.ts';
import type { Gateway } from '../../src/gateway.ts';
import type { Clock } from '../../src/lib/clock.ts';

/** The engine (not started) on `g`'s services and settings; `baseUrl`: the gateway's, for TTS clips (none: no TTS). */
export function engineOn(g: Gateway, clock: Clock, baseUrl?: string): AutomationEngine {
  return new AutomationEngine(
    corePorts(
      {
        db: g.db,
        bus: g.bus,
        devices: g.devices,
        security: g.security,
        alarm: g.alarm,
        speaker: g.speaker,
        ...(baseUrl ? { speech: { service: g.speech, baseUrl: () => baseUrl } } : {}),
        clock,
        log: g.log,
      },
      engineSettings(g.settings),
    ),
  );
}
