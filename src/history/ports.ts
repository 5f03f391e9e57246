/**
 * What the history needs from the rest of the gateway, as small interfaces: the event bus
 * (src/core/event-bus.ts `EventBus` fits), the device registry (src/core/devices/registry.ts
 * `DeviceRegistry` fits), the store (src/store/db.ts), the clock, a log and the settings.
 */
import type { CapabilityObject } from '../catalog/index.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { Settings } from '../settings/index.ts';
import type { Db } from '../store/db.ts';

/** One event of the bus, as the history reads it. */
export interface HistoryBusEvent {
  name: string;
  data: unknown;
}

/** The event bus: the history subscribes to every event. */
export interface HistoryBus {
  subscribe(listener: (event: HistoryBusEvent) => void): () => void;
}

/** A device as the registry knows it. */
export interface HistoryDevice {
  serial_number: string;
  name: string;
  capabilities: readonly CapabilityObject[];
  /** Its current state (what a value that stands across a restart or an outage is read from). */
  state: Record<string, unknown>;
  online: boolean;
}

/** The device registry: which devices exist, their names, capabilities and states. */
export interface HistoryDevices {
  get(serial: string): HistoryDevice | undefined;
  list(): readonly HistoryDevice[];
}

/** The `history.*` settings (src/settings/schema.ts). */
export type HistorySettings = Settings['history'];

/** A logbook entry a bus event makes: its kind, the device it is about (if any) and a JSON value. */
export interface LogbookInput {
  kind: string;
  serial_number?: string;
  value?: unknown;
}

/** Reads one bus event's data into a logbook entry, or undefined to leave it out. */
export type EventMapper = (data: unknown) => LogbookInput | undefined;

/** One step of the history's work, timed: the event loop stood still for `ms`, of which `cpuMs` were this process's own. */
export interface StepReport {
  kind: 'flush' | 'rollup' | 'prune' | 'forget' | 'replay';
  ms: number;
  cpuMs: number;
  /** Values written (flush), series rolled up, or rows deleted. */
  count: number;
}

export interface HistoryOptions {
  db: Db;
  bus: HistoryBus;
  devices: HistoryDevices;
  clock: Clock;
  log: Log;
  settings: HistorySettings;
  /** IANA time zone of days and months (energy, CSV times): the `time_zone` setting; the host's when empty or absent. */
  timeZone?: string;
  /**
   * More bus events the logbook keeps, by event name, beside the device, security, alarm and
   * automation events it always keeps (GATEWAY_EVENTS).
   */
  events?: Readonly<Record<string, EventMapper>>;
  /** Told of every step (metrics, the bench). */
  observe?: (step: StepReport) => void;
  /** Runs `fn` on a later turn of the event loop, between steps (setImmediate by default). */
  defer?: (fn: () => void) => void;
}
