/**
 * The composition root: builds one gateway from its settings and starts and stops its parts in
 * order. Plain wiring (test/architecture/layers.test.ts keeps it so): the core services come from
 * src/core-services.ts, the drivers from src/drivers/load.ts, the integrations from
 * src/integrations/load.ts; what changes while running travels on the bus.
 */
import { hostname } from 'node:os';
import pkg from '../package.json' with { type: 'json' };
import type { AutomationsIntegration } from './automations/integration.ts';
import { ActivityLog } from './core/activity.ts';
import { isOwnHost } from './core/gateway-info.ts';
import type { GatewayControl, IntegrationContext } from './core/integration.ts';
import { IntegrationHost, TapHub } from './core/integration-host.ts';
import { Backups } from './core/maintenance/backups.ts';
import { dataPaths, otherGatewayRuns, PidFile } from './core/maintenance/data-folder.ts';
import { factoryReset } from './core/maintenance/reset.ts';
import { beforeOpening, confirmRestore } from './core/maintenance/store-restore.ts';
import { buildCoreServices } from './core-services.ts';
import { loadDrivers } from './drivers/load.ts';
import type { Gateway, GatewayOptions } from './gateway-types.ts';
import type { HistoryIntegration } from './history/integration.ts';
import { closeServer } from './http/server.ts';
import { buildWeb, webLimits } from './http/surfaces.ts';
import { INTEGRATIONS, loadIntegrations } from './integrations/load.ts';
import { mdnsHostName } from './integrations/mdns/advertise.ts';
import type { MetricsText } from './integrations/metrics/integration.ts';
import { systemClock } from './lib/clock.ts';
import { changeLevel, createLogger } from './lib/logger.ts';
import { changedSettings, type Settings } from './settings/index.ts';
import { applyStoredSettings, LiveSettings } from './settings/live.ts';
import { KvStore, openDb, storeReadiness } from './store/db.ts';

export type { Gateway, GatewayOptions };

/** How long a stop waits for requests in flight: longer than any request runs (D4 waits at most 4 s; clients 5 s). */
const STOP_GRACE_MS = 5000;

/** Builds every service from the settings. Nothing listens until start(). */
export function createGateway(settings: Settings, opts: GatewayOptions = {}): Gateway {
  const log = opts.log ?? createLogger({ level: settings.log_level, format: settings.log_format });
  const paths = dataPaths(settings.data_dir);
  // A restore staged before the restart that brought us here (one the last start did not get
  // through is rolled back); never under a gateway that still runs here.
  const restored = !otherGatewayRuns(paths.pid) && beforeOpening(paths.db, log);
  const db = openDb(paths.db);
  const kv = new KvStore(db);
  // What the console set while running (the name, the beeps) wins over flags, as it was left.
  const { dropped } = applyStoredSettings(settings, kv);
  if (dropped.length > 0) log.warn({ settings: dropped }, 'settings set in the console are no longer valid: left out');
  const clock = opts.clock ?? systemClock;
  const cliCommand = opts.cliCommand ?? ((words: string) => `opencube ${words}`);
  /** When this gateway started (start() sets it again): the console's "Running since". */
  let startedAt = clock.now();
  const taps = new TapHub();
  const onStoreWrite = (ms: number) => taps.storeWrite(ms);
  const core = buildCoreServices({ settings, db, kv, clock, log, sink: opts.audio?.sink, onStoreWrite });
  const { bus, tokens, devices, registry, alarm, beeps, runtime, audio } = core;
  const integrations = new IntegrationHost<Settings>();
  const activity = new ActivityLog(bus, log, () => registry.list());
  const live = new LiveSettings(settings, kv, bus, log);
  const changed = () => changedSettings(settings);
  const backups = new Backups({
    db,
    dbPath: paths.db,
    dataDir: paths.dir,
    version: pkg.version,
    changedSettings: changed,
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
  const ownHost = (host: string | undefined) => isOwnHost(host, ownNames());
  const web = buildWeb({
    core,
    db,
    log,
    clock,
    answerCheck: opts.answerCheck,
    consoleDir: opts.consoleDir,
    contributed: integrations,
    limits: webLimits(settings),
    onAnswered: () => taps.requestTap(),
    openApi: { ownHost, restart: () => opts.onRestart?.() },
    console: {
      ownHost,
      version: pkg.version,
      startedAt: () => startedAt,
      restoredAt: () => (restored ? startedAt : null),
      restart: () => opts.onRestart?.(),
      pairingSeconds: settings.zigbee.permit_join_seconds,
      cliCommand,
      settings: () => live.rows(),
      setSetting: (key, value, by) => live.set(key, value, by),
      logLevel: { get: () => log.level, set: (level) => gateway.setLogLevel(level) },
      maintenance: { backup: () => backups.bytes(), restore: (bytes) => backups.stageBytes(bytes) },
    },
    health: {
      checks: () => gateway.readiness(),
      metrics: () => integrations.status('metrics') as MetricsText | undefined,
    },
  });
  const { app, sse } = web;
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
    call: (id, name, ...args) => integrations.call(id, name, ...args),
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
      { audience: 'console', clients: () => web.console.stream.size, cut: () => web.console.stream.dropped },
    ],
    options: opts.integrations?.[id] ?? {},
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
    sse,
    console: web.console,
    security: core.security,
    speaker: core.speaker,
    tts: core.engines,
    speech: core.speech,
    sink: core.sink,
    media: core.media,
    cards: core.cards,
    info: core.info,
    readiness: () => [storeReadiness(db), ...devices.readiness().map(({ driver, ...r }) => ({ name: driver, ...r }))],
    matter: () => integrations.status('matter'),
    automations: () => (integrations.get('automations') as AutomationsIntegration | undefined)?.engine,
    history: () => (integrations.get('history') as HistoryIntegration | undefined)?.history,
    ...(opts.onRestart ? { restart: opts.onRestart } : {}),
    setLogLevel: (level) => changeLevel(log, level),
    backup: (file) => backups.backup(file),
    stageRestore: (file, name) => backups.stageRestore(file, name),
    setConsolePassword: (password) => web.console.access.replacePassword(password),
    async start() {
      startedAt = clock.now();
      integrations.add(await loadIntegrations(settings, [...INTEGRATIONS, ...(opts.addIntegrations ?? [])]), contextOf);
      // The control socket first: a second gateway on this data folder is refused before it serves.
      await integrations.start('listen');
      runtime.start();
      sse.start();
      web.console.stream.start();
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
        const loaded = await loadDrivers(settings, log, { clock, ...opts.drivers });
        for (const driver of [...loaded, ...integrations.drivers()]) devices.addDriver(driver);
      } finally {
        await devices.start();
      }
      await integrations.start('drivers');
      beeps.start();
      beeps.bootComplete();
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
      const url = `http://${host}:${port}`;
      // Bound to every address, the url is one way in (loopback): the log says what it is bound to.
      const bound = host === settings.host ? {} : { bound: `${settings.host}:${port}` };
      log.info({ url, ...bound, data_dir: paths.dir }, 'gateway listening');
      // Everything started on this store: a restore it came from stays (store-restore.ts).
      confirmRestore(paths.db);
      const code = web.console.access.pendingSetupCode();
      // The first visitor of the console sets the password with this code (or `opencube passwd`).
      if (code)
        log.warn(
          { console: `${url}/`, setup_code: code },
          `console: no password set yet; setup code ${code} (or run "${cliCommand('passwd')}")`,
        );
      return url;
    },
    stop() {
      // A second call waits for the same stop: its caller may reuse the data folder once it resolves.
      stopping ??= (async () => {
        sse.stop();
        web.console.stream.stop();
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
    reset: () =>
      integrations.aroundReset(async () => {
        factoryReset(db, { registry, engines: core.engines, tokens });
        await devices.afterReset();
        beeps.factoryReset();
      }),
  };
  return gateway;
}
