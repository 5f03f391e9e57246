/**
 * The integration contract: what plugs into the gateway beside the drivers (Home Assistant,
 * Matter, metrics, mDNS, the control socket; scenes and automations, history), each in its own
 * folder of src/integrations/ and one entry of src/integrations/load.ts, loaded only when the
 * settings enable it. An integration gets everything it may use through its context (the core
 * services, the bus, the clock, the store, the log, the settings), hears cross-cutting changes as
 * bus events (`settings#changed`, `gateway#renamed`), and contributes routes (both APIs) and the
 * events its clients see. It imports the core and lib, never another integration or the HTTP
 * layer (test/architecture/layers.test.ts).
 */
import type { Schema } from '../catalog/schema.ts';
import type { Clock } from '../lib/clock.ts';
import type { Log } from '../lib/log.ts';
import type { LogLevel } from '../lib/logger.ts';
import type { Db, KvStore } from '../store/db.ts';
import type { Driver } from './devices/contract.ts';
import type { EventBus, EventName } from './event-bus.ts';
import type { BackupContents } from './maintenance/store-backup.ts';
import type { RestoreCheck } from './maintenance/store-restore.ts';
import type { RouteDecl } from './route.ts';
import type { CoreServices } from './services.ts';

/** What the gateway itself offers (the control socket's commands): maintenance, the log level, restarts. */
export interface GatewayControl {
  /** Factory reset (tokens, devices, the Matter bridge's identity). */
  reset(): Promise<void>;
  /** Sets the console password, ending every console session. */
  setConsolePassword(password: string): Promise<void>;
  backup(file: string): Promise<BackupContents>;
  stageRestore(file: string, name?: string): Promise<RestoreCheck>;
  /** Restarts the gateway (absent when nothing would start it again). */
  restart?: () => void;
  /** The log level now; setLogLevel returns the one there was. */
  logLevel(): string;
  setLogLevel(level: LogLevel): string;
  /** What an integration reports of itself (its `status()`), by id; undefined when it is not loaded. */
  status(id: string): unknown;
  /** Runs one of an integration's `calls` (`opencube matter open`); undefined when it has no such call. */
  call(id: string, name: string, ...args: unknown[]): Promise<unknown>;
}

/** Signals too frequent for the bus, for an integration that counts them (metrics). */
export interface Taps {
  /** Every HTTP request answered: its route pattern, method and outcome (the envelope code, or the status). */
  onRequest(fn: (route: string, method: string, outcome: string) => void): void;
  /** Every write of the device store committed to disk, in milliseconds. */
  onStoreWrite(fn: (ms: number) => void): void;
}

/** One event stream audience's counts (for metrics). */
export interface StreamCounts {
  audience: string;
  clients(): number;
  cut(): number;
}

export interface IntegrationContext<S = unknown> {
  /** The gateway's settings: the live object (a change in the console arrives as `settings#changed`). */
  settings: S;
  /** The package version (`0.1.0`). */
  version: string;
  core: CoreServices;
  bus: EventBus;
  clock: Clock;
  db: Db;
  kv: KvStore;
  log: Log;
  /** The port the gateway listens on (the configured one until it listens). */
  port(): number;
  /** The event streams' audiences (open-api, console). */
  streams: readonly StreamCounts[];
  taps: Taps;
  gateway: GatewayControl;
  /** What tests pass to this integration (GatewayOptions.integrations[id]): shorter timings. */
  options: Readonly<Record<string, unknown>>;
}

/** Routes an integration adds: under `/open-api/{v1,v2}/rest` (a token) and `/console/api` (a session). */
export interface IntegrationRoutes {
  openApi?: readonly RouteDecl[];
  console?: readonly RouteDecl[];
}

/** Events of the bus an integration shows on the streams (their payloads declared in EventPayloads). */
export interface IntegrationEvents {
  /** Shown to Open API clients as `<module>#<version>#<type>`, with the schema of their `data` (AsyncAPI). */
  openApi?: Readonly<Partial<Record<EventName, { summary: string; data: Schema }>>>;
  /** Shown to the console under their bus names. */
  console?: readonly EventName[];
}

export interface Integration<S = unknown> {
  /**
   * `listen`: started before the gateway listens (the control socket must refuse a second
   * gateway first; metrics count every request). Default `drivers`: after the drivers started.
   */
  startsAt?: 'listen' | 'drivers';
  /**
   * Drivers it brings (the Zigbee groups' driver of the Zigbee upkeep), asked for once after its
   * routes and registered with the device service before the drivers start, so that their
   * devices are served like any other; they stop with the drivers, after the integrations.
   */
  drivers?(ctx: IntegrationContext<S>): readonly Driver[];
  /** Its routes, asked for once before the gateway listens (handlers may run before start()). */
  routes?(ctx: IntegrationContext<S>): IntegrationRoutes;
  events?: IntegrationEvents;
  start(ctx: IntegrationContext<S>): Promise<void> | void;
  /** Stops it; the gateway stops integrations in the reverse order of their start. */
  stop(): Promise<void> | void;
  /** What it tells of itself (`opencube matter`, the console): GatewayControl.status(id). */
  status?(): unknown;
  /** What others may ask of it by name (the control socket's commands): GatewayControl.call(id, name). */
  calls?: Readonly<Record<string, (...args: unknown[]) => Promise<unknown>>>;
  /**
   * Runs the factory reset (`reset`, which clears the store) in its own turn: an integration that
   * keeps state in the store stops first and starts afresh after (the Matter bridge's identity).
   */
  aroundReset?(reset: () => Promise<void>): Promise<void>;
}

export interface IntegrationEntry<S = unknown> {
  id: string;
  /** Whether the settings enable it; only then is its code loaded. */
  enabled(settings: S): boolean;
  /** Loads its code (`await import`) and makes a fresh instance for one gateway. */
  load(): Promise<Integration<S>>;
}
