/**
 * What the engine needs of the rest of the gateway, as small interfaces (ports) passed in: the
 * event bus, the devices (read, and commanded through the device service, the path clients'
 * commands take), the security modes and the alarm, the speaker and TTS, the store, the clock and
 * a log. `corePorts` (core-ports.ts) builds them from the gateway's core services.
 */
import type { CapabilityObject } from '../catalog/index.ts';
import type { Actor } from '../core/actor.ts';
import type { BusEvent, EventName, EventPayloads } from '../core/event-bus.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Db } from '../store/db.ts';

/** A device as the engine reads it. */
export interface DeviceView {
  serial_number: string;
  name: string;
  capabilities: CapabilityObject[];
  state: Record<string, unknown>;
  online: boolean;
}

/** An expected failure, in words for a trace. */
export type Done = { ok: true } | { ok: false; message: string };

export interface DevicesPort {
  get(serial: string): DeviceView | undefined;
  list(): readonly DeviceView[];
  /** Sends a control command (D4 `state`), checked and routed as a client's; `by` (the automation) is named in the activity log. */
  control(serial: string, state: Record<string, unknown>, by: Actor): Promise<Done>;
}

export interface BusPort {
  subscribe(listener: (event: BusEvent) => void): () => void;
  publish<N extends EventName>(name: N, data: EventPayloads[N]): unknown;
}

export interface SecurityPort {
  modes(): readonly { sid: number; name: string; enable: boolean }[];
  /** Arms a mode (its exit delay runs as for a client's request); no sid: the default mode; `by` is named in the activity log. */
  arm(sid: number | undefined, by: Actor): Done;
  /** Disarms a mode; no sid: every mode. */
  disarm(sid: number | undefined, by: Actor): Done;
}

export interface SpeakerPort {
  /** Plays one of the gateway's sounds (spec 2.8) at `volume` for `countdown` seconds (-1: until cancelled; 0: once). */
  play(sound: string, volume: number, countdown: number): Done;
}

export interface SpeechPort {
  speak(request: { text: string; engine?: string; volume?: number }): Promise<Done>;
}

/** Settings of the engine (from the gateway's settings: time_zone, location, automations.*). */
export interface EngineSettings {
  /** An IANA name; empty: the machine's own. */
  timeZone: string;
  /** `latitude,longitude`; empty: not set (sun triggers and conditions are refused). */
  location: string;
  /** How late a time or sun trigger missed while down may still run at start. */
  graceSeconds: number;
}

export interface EnginePorts {
  db: Db;
  bus: BusPort;
  devices: DevicesPort;
  security: SecurityPort;
  speaker: SpeakerPort;
  /** Absent: `speak` actions fail with "no TTS" in their trace. */
  speech?: SpeechPort;
  clock: Clock;
  log: Log;
  settings: EngineSettings;
}
