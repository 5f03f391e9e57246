/**
 * The composition root: builds one gateway from its settings and starts and stops its parts in
 * order. Plain wiring (test/architecture/layers.test.ts keeps it so): the core services come from
 * src/core-services.ts, the drivers from src/drivers/load.ts, the integrations from
 * src/integrations/load.ts; what changes while running travels on the bus.
 */
import { hostname } from 'node:os';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { ActivityLog } from './core/activity.ts';
import type { AlarmService } from './core/alarm/index.ts';
import type { AudioArbiter, AudioSink, MediaPlayer } from './core/audio/index.ts';
import type { DeviceService } from './core/devices/index.ts';
import type { EventBus } from './core/event-bus.ts';
import { type GatewayInfo, isOwnHost } from './core/gateway-info.ts';
import type { GatewayControl, IntegrationContext } from './core/integration.ts';
import { IntegrationHost, TapHub } from './core/integration-host.ts';
import { Backups } from './core/maintenance/backups.ts';
import { dataPaths, otherGatewayRuns, PidFile } from './core/maintenance/data-folder.ts';
import { factoryReset } from './core/maintenance/reset.ts';
import type { BackupContents } from './core/maintenance/store-backup.ts';
import { applyStagedRestore, type RestoreCheck } from './core/maintenance/store-restore.ts';
import type { SecurityService } from './core/security.ts';
import type { SpeakerService } from './core/speaker.ts';
import type { TokenService } from './core/tokens.ts';
import type { TtsEngines, TtsService } from './core/tts/index.ts';
import type { UiCards } from './core/ui-cards.ts';
import { buildCoreServices } from './core-services.ts';
import { type DriverOptions, loadDrivers } from './drivers/load.ts';
import { fitToOpenFileLimit } from './http/connection-guard.ts';
import { ConsoleAccess } from './http/console/access.ts';
import { consoleProjectionOf } from './http/console/events.ts';
import { consoleApiPlugin } from './http/console/plugin.ts';
import { consoleStaticPlugin } from './http/console/static.ts';
import { healthPlugin, type ReadyCheck } from './http/health/plugin.ts';
import { openApiProjectionOf } from './http/open-api/events.ts';
import { openApiPlugin } from './http/open-api/plugin.ts';
import type { AnswerCheck } from './http/open-api/route.ts';
import { buildServer, closeServer, limitConnections } from './http/server.ts';
import { StreamWriter } from './http/stream/writer.ts';
import { loadIntegrations } from './integrations/load.ts';
import { mdnsHostName } from './integrations/mdns/advertise.ts';
import type { MetricsText } from './integrations/metrics/integration.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { changeLevel, createLogger, type LogLevel } from './lib/logger.ts';
import { changedSettings, type Settings } from './settings/index.ts';
import { applyStoredSettings, LiveSettings } from './settings/live.ts';
import { type Db, KvStore, openDb, storeReadiness } from './store/db.ts';

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
  /** Reconnect backoff of the Home Assistant bridge (tests shorten it). */
  homeassistant?: { reconnectMinMs?: number; reconnectMaxMs?: number };
  /** What tests pass to an integration, by its id (its context's `options`). */
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
  stageRestore(file: string, name?: string): RestoreCheck;
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
}

/** How long a stop waits for requests in flight: longer than any request runs (D4 waits at most 4 s; clients 5 s). */
const STOP_GRACE_MS = 5000;

/** Builds every service from the settings. Nothing listens until start(). */
export function createGateway(settings: Settings, opts: GatewayOptions = {}): Gateway {
  const log = opts.log ?? createLogger({ level: settings.log_level, format: settings.log_format });
  const paths = dataPaths(settings.data_dir);
  // A restore staged before the restart that brought us here; never under a gateway that still runs here.
  if (!otherGatewayRuns(paths.pid) && applyStagedRestore(paths.db))
    log.warn({ db: paths.db }, 'the store was restored from a backup');
  const db = openDb(paths.db);
  const kv = new KvStore(db);
  // What the console set while running (the name, the beeps) wins over flags, as it was left.
  const { dropped } = applyStoredSettings(settings, kv);
  if (dropped.length > 0) log.warn({ settings: dropped }, 'settings set in the console are no longer valid: left out');
  const clock = opts.clock ?? systemClock;
  const taps = new TapHub();
  const core = buildCoreServices({
    settings,
    db,
    kv,
    clock,
    log,
    sink: opts.audio?.sink,
    onStoreWrite: (ms) => taps.storeWrite(ms),
  });
  const { bus, tokens, devices, registry, alarm, beeps, runtime, audio } = core;
  const integrations = new IntegrationHost<Settings>();
  // The Open API's stream and the console's: the same bounds, each its own audience.
  const { heartbeat_seconds, client_queue, client_queue_bytes, max_streams } = settings.sse;
  const streamLimits = {
    heartbeatMs: heartbeat_seconds * 1000,
    queueLimit: client_queue,
    queueBytes: client_queue_bytes,
    maxStreams: max_streams,
    clock,
    log,
  };
  const sse = new StreamWriter(
    bus,
    openApiProjectionOf(() => integrations.events.openApi),
    { ...streamLimits, allowOrigin: '*' },
  );
  const consoleAccess = new ConsoleAccess({ db, clock, bus });
  const consoleStream = new StreamWriter(
    bus,
    consoleProjectionOf(() => integrations.events.console),
    streamLimits,
  );
  const activity = new ActivityLog(bus, log, () => registry.list());
  const live = new LiveSettings(settings, kv, bus, log);
  const backups = new Backups({
    db,
    dbPath: paths.db,
    dataDir: paths.dir,
    version: pkg.version,
    changedSettings: () => changedSettings(settings),
    clock,
    log,
  });
  // The names clients reach the gateway by (beside IP addresses and localhost): token requests
  // under any other name come from a DNS-rebinding page.
  const ownNames = () => [
    hostname(),
    `${hostname()}.local`,
    mdnsHostName(settings),
    settings.domain,
    ...settings.allowed_hosts,
  ];
  const services = {
    ...core,
    ownHost: (host: string | undefined) => isOwnHost(host, ownNames()),
    restart: () => opts.onRestart?.(),
  };
  const readiness = (): ReadyCheck[] => [
    storeReadiness(db),
    ...devices.readiness().map(({ driver, ...r }) => ({ name: driver, ...r })),
  ];
  const contributed = () => integrations.routes();
  const app = buildServer(
    log,
    [
      {
        prefix: '/open-api',
        plugin: openApiPlugin({
          services,
          stream: sse,
          contributed: () => contributed().openApi,
          contributedEvents: () => integrations.events.openApi,
          ...(opts.answerCheck ? { answerCheck: opts.answerCheck } : {}),
        }),
      },
      {
        prefix: '/console/api',
        plugin: consoleApiPlugin({
          services: {
            ...services,
            access: consoleAccess,
            version: pkg.version,
            pairingSeconds: settings.zigbee.permit_join_seconds,
            settings: () => live.rows(),
            setSetting: (key, value) => live.set(key, value),
            logLevel: { get: () => log.level, set: (level) => gateway.setLogLevel(level) },
            maintenance: { backup: () => backups.bytes(), restore: (bytes) => backups.stageBytes(bytes) },
          },
          stream: consoleStream,
          contributed: () => contributed().console,
        }),
      },
      {
        prefix: '',
        plugin: healthPlugin({
          checks: readiness,
          tokens,
          metrics: () => integrations.status('metrics') as MetricsText | undefined,
        }),
      },
      { prefix: '', plugin: consoleStaticPlugin(opts.consoleDir) },
    ],
    { onAnswered: () => taps.requestTap() },
  );
  limitConnections(app, {
    maxConnections: fitToOpenFileLimit(settings.http.max_connections, log),
    headersTimeoutMs: settings.http.headers_timeout_ms,
    requestTimeoutMs: settings.http.request_timeout_ms,
    clock,
  });
  const pidFile = new PidFile(paths.pid);
  let port = settings.port;
  let stopping: Promise<void> | undefined;

  const control: GatewayControl = {
    reset: () => gateway.reset(),
    setConsolePassword: (password) => gateway.setConsolePassword(password),
    backup: (file) => backups.backup(file),
    stageRestore: (file, name) => backups.stageRestore(file, name),
    ...(opts.onRestart ? { restart: opts.onRestart } : {}),
    logLevel: () => log.level,
    setLogLevel: (level) => gateway.setLogLevel(level),
    status: (id) => integrations.status(id),
  };
  const contextOf = (id: string): IntegrationContext<Settings> => ({
    settings,
    version: pkg.version,
    core,
    bus,
    clock,
    db,
    kv,
    log,
    taps,
    gateway: control,
    port: () => port,
    streams: [
      { audience: 'open-api', clients: () => sse.size, cut: () => sse.dropped },
      { audience: 'console', clients: () => consoleStream.size, cut: () => consoleStream.dropped },
    ],
    options: { ...(id === 'homeassistant' ? opts.homeassistant : {}), ...opts.integrations?.[id] },
  });

  const gateway: Gateway = {
    settings,
    app,
    db,
    bus,
    tokens,
    alarm,
    devices,
    audio,
    log,
    paths,
    readiness,
    security: core.security,
    speaker: core.speaker,
    sse,
    console: { access: consoleAccess, stream: consoleStream },
    tts: core.engines,
    speech: core.speech,
    sink: core.sink,
    media: core.media,
    cards: core.cards,
    info: core.info,
    matter: () => integrations.status('matter'),
    ...(opts.onRestart ? { restart: opts.onRestart } : {}),
    setLogLevel: (level) => changeLevel(log, level),
    backup: (file) => backups.backup(file),
    stageRestore: (file, name) => backups.stageRestore(file, name),
    async start() {
      integrations.add(await loadIntegrations(settings), contextOf);
      // The control socket first: a second gateway on this data folder is refused before it serves.
      await integrations.start('listen');
      runtime.start();
      sse.start();
      consoleStream.start();
      // Before the drivers: a report they bring at start is a detection like any other.
      activity.start();
      alarm.start();
      // Listening before the drivers are loaded and started: clients that only read are served at
      // once; a request that needs a driver waits for it (DeviceService).
      devices.loadingDrivers();
      await app.listen({ port: settings.port, host: settings.host });
      const addr = app.server.address();
      port = typeof addr === 'object' && addr ? addr.port : settings.port;
      pidFile.write();
      try {
        for (const driver of await loadDrivers(settings, log, { clock, ...opts.drivers })) devices.addDriver(driver);
      } finally {
        await devices.start();
      }
      await integrations.start('drivers');
      beeps.start();
      beeps.bootComplete();
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
      const url = `http://${host}:${port}`;
      log.info({ url, data_dir: paths.dir }, 'gateway listening');
      const code = consoleAccess.pendingSetupCode();
      // The first visitor of the console sets the password with this code (or `opencube passwd`).
      if (code) log.warn({ console: `${url}/`, setup_code: code }, `console: no password set yet; setup code ${code}`);
      return url;
    },
    stop() {
      // A second call waits for the same stop: its caller may reuse the data folder once it resolves.
      stopping ??= (async () => {
        sse.stop();
        consoleStream.stop();
        runtime.stop();
        beeps.stop();
        await integrations.stop();
        await closeServer(app, STOP_GRACE_MS);
        // After the requests in flight: one of them may still start a sound, or arm a mode. The
        // alarm keeps its stored state for the next start.
        alarm.stop();
        activity.stop();
        await audio.close();
        await devices.stop();
        await core.close();
        tokens.flush();
        db.close();
        pidFile.remove();
      })();
      return stopping;
    },
    setConsolePassword: (password) => consoleAccess.replacePassword(password),
    reset: () =>
      integrations.aroundReset(async () => {
        factoryReset(db, { registry, engines: core.engines, tokens });
        await devices.afterReset();
        beeps.factoryReset();
      }),
  };
  return gateway;
}
