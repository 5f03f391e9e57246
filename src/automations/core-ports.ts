/**
 * The engine's ports built from the gateway's core services: the one place that knows how the
 * device service, the alarm, the speaker and TTS are called (the automations' integration,
 * integration.ts, hands it the services of its context).
 */
import { isSoundName } from '../catalog/index.ts';
import type { AlarmService } from '../core/alarm/index.ts';
import type { DeviceService } from '../core/devices/index.ts';
import type { EventBus } from '../core/event-bus.ts';
import type { SecurityService } from '../core/security.ts';
import type { SpeakerService } from '../core/speaker.ts';
import type { TtsService } from '../core/tts/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Settings } from '../settings/index.ts';
import type { Db } from '../store/db.ts';
import type { Done, EnginePorts, EngineSettings } from './ports.ts';

/** The core services the engine's ports are made of (a part of the integration context's). */
export interface EngineServices {
  db: Db;
  bus: EventBus;
  devices: DeviceService;
  security: SecurityService;
  alarm: AlarmService;
  speaker: SpeakerService;
  /** TTS and the base URL its clips are served under (the gateway's own). */
  speech?: { service: TtsService; baseUrl: () => string };
  clock: Clock;
  log: Log;
}

/** The engine's settings from the gateway's (`time_zone`, `location`, `automations.grace_minutes`). */
export function engineSettings(s: Pick<Settings, 'time_zone' | 'location' | 'automations'>): EngineSettings {
  return { timeZone: s.time_zone, location: s.location, graceSeconds: s.automations.grace_minutes * 60 };
}

const unknownSid = (sid: number | undefined): Done => ({ ok: false, message: `no security mode has sid ${sid}` });

/** The ports of the engine over the core services, with the engine's settings. */
export function corePorts(s: EngineServices, settings: EngineSettings): EnginePorts {
  const registry = s.devices.registry;
  return {
    db: s.db,
    bus: s.bus,
    clock: s.clock,
    log: s.log,
    settings,
    devices: {
      get: (serial) => registry.get(serial),
      list: () => registry.list(),
      async control(serial, state, by) {
        const r = await s.devices.update(serial, { state }, by);
        return r.ok ? { ok: true } : { ok: false, message: r.message };
      },
    },
    security: {
      modes: () => s.security.list(),
      // Through the alarm, as clients' requests go: exit delays, beeps and the arm state event.
      arm: (sid, by) => {
        const r = sid === undefined ? s.alarm.armDefault(by) : s.alarm.arm(sid, by);
        return r.ok ? { ok: true } : unknownSid(sid);
      },
      disarm: (sid, by) => {
        if (sid === undefined) {
          s.alarm.disarmAll(by);
          return { ok: true };
        }
        return s.alarm.disarm(sid, by).ok ? { ok: true } : unknownSid(sid);
      },
    },
    speaker: {
      play(sound, volume, countdown) {
        if (!isSoundName(sound)) return { ok: false, message: `${sound} is not a sound` };
        s.speaker.play({ kind: 'sound', name: sound, volume, countdown });
        return { ok: true };
      },
    },
    ...(s.speech
      ? {
          speech: {
            async speak(req) {
              const r = await s.speech!.service.speak(req, s.speech!.baseUrl());
              return r.ok ? { ok: true } : { ok: false, message: r.message };
            },
          },
        }
      : {}),
  };
}
