import { mkdtempSync, readFileSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { type ControlServer, startControlServer } from './control/server.ts';
import { ActivityLog } from './core/activity.ts';
import { AlarmService } from './core/alarm/index.ts';
import { AudioArbiter, type AudioSink, EventBeeps, MediaPlayer, SoundLibrary } from './core/audio/index.ts';
import { DeviceDebugLog, loggingInbox } from './core/devices/debug-log.ts';
import { DeviceRegistry, DeviceService } from './core/devices/index.ts';
import { EventBus } from './core/event-bus.ts';
import { type GatewayInfo, isOwnHost, lanInterface, threePartVersion } from './core/gateway-info.ts';
import { factoryReset } from './core/maintenance/reset.ts';
import { type BackupContents, writeBackup } from './core/maintenance/store-backup.ts';
import { applyStagedRestore, prepareRestore, type RestoreCheck, stagedPath } from './core/maintenance/store-restore.ts';
import { RuntimeMonitor } from './core/runtime.ts';
import { SecurityService } from './core/security.ts';
import { SpeakerService } from './core/speaker.ts';
import { TokenService } from './core/tokens.ts';
import { ClipStore, detectEspeak, EspeakEngine, TtsEngines, TtsService } from './core/tts/index.ts';
import { UiCards } from './core/ui-cards.ts';
import { createSink, HttpAudioFetcher, onPath } from './drivers/audio/index.ts';
import type { CameraDriver } from './drivers/camera/index.ts';
import { type DriverOptions, loadDrivers } from './drivers/load.ts';
import { DirectiveClient, THIRDPARTY_DRIVER, ThirdPartyInbox } from './drivers/thirdparty/index.ts';
import { fitToOpenFileLimit } from './http/connection-guard.ts';
import { ConsoleAccess } from './http/console/access.ts';
import { consoleProjection } from './http/console/events.ts';
import { consoleApiPlugin } from './http/console/plugin.ts';
import { consoleStaticPlugin } from './http/console/static.ts';
import { healthPlugin, type ReadyCheck } from './http/health/plugin.ts';
import { bearerToken } from './http/open-api/auth.ts';
import { openApiProjection } from './http/open-api/events.ts';
import { openApiPlugin } from './http/open-api/plugin.ts';
import type { AnswerCheck } from './http/open-api/route.ts';
import type { OpenApiServices } from './http/open-api/services.ts';
import { buildServer, limitConnections } from './http/server.ts';
import { StreamWriter } from './http/stream/writer.ts';
import type { MatterHandle, MatterStatus } from './integrations/matter/index.ts';
import { GatewayMetrics } from './integrations/metrics/index.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { createLogger, isLogLevel, type LogLevel } from './lib/logger.ts';
import { type MdnsHandle, mdnsHostName, startMdns } from './mdns.ts';
import { changedSettings, type SettingDef, type Settings, settingDefs } from './settings/index.ts';
import { applyStoredSettings, setByConsole, setLive } from './settings/live.ts';
import { type Db, KvStore, openDb } from './store/db.ts';

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
  /**
   * A CLI command as the user who started the gateway runs it (`npm run opencube -- passwd`), for
   * the commands the gateway shows (src/cli/invocation.ts); `opencube <words>` when not given.
   */
  cliCommand?: (words: string) => string;
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
  /**
   * Starts the control socket, listens, then starts the drivers, integrations and mDNS; resolves
   * (with the base URL) once all of them have started.
   */
  start(): Promise<string>;
  /** Graceful stop: closes streams, waits for in-flight requests, stops drivers, closes the store. */
  stop(): Promise<void>;
  /** Factory reset: clears tokens, devices and the Matter bridge's identity; settings of the speaker and modes stay. */
  reset(): Promise<void>;
  /** Sets the console password and ends every console session (`opencube passwd`). */
  setConsolePassword(password: string): Promise<void>;
  /** Writes a backup of the store (and the settings that differ from defaults) to `file`. */
  backup(file: string): Promise<BackupContents>;
  /**
   * Checks a backup and stages it to replace the store at the next start (nothing changes when it
   * is refused). The caller restarts the gateway (restart()).
   */
  stageRestore(file: string, name?: string): RestoreCheck;
  /** Asks the process to restart (as G8 does); undefined when nothing would restart it. */
  restart?: () => void;
  /** Changes the log level while running; returns the level there was. */
  setLogLevel(level: LogLevel): string;
  /** Readiness: the store, then each driver (GET /ready). */
  readiness(): ReadyCheck[];
  /** The metrics, when the `metrics` setting turns them on. */
  metrics?: GatewayMetrics;
  /** Dashboard cards of add-ons. */
  cards: UiCards;
  info(): GatewayInfo;
  /** The Matter bridge's pairing code, QR payload and fabrics (`starting` while it starts; undefined: off). */
  matter(): MatterStatus | { starting: true } | undefined;
  /** Opens (true) or closes the bridge's pairing mode for another controller; undefined while it is not running. */
  matterPairing(open: boolean): Promise<MatterStatus | undefined>;
}

/**
 * How long a stop waits for requests in flight before it cuts their connections: longer than any
 * request runs (D4 waits at most 4 s on devices, and clients give up after 5 s).
 */
const STOP_GRACE_MS = 5000;

/** Whether the pid file names a live process other than this one (a gateway serving the folder). */
function otherGatewayRuns(pidFile: string): boolean {
  let pid: number;
  try {
    pid = Number(readFileSync(pidFile, 'utf8').trim());
  } catch {
    return false;
  }
  if (!Number.isInteger(pid) || pid <= 0 || pid === process.pid) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Runs `fn` with a file name in a scratch folder of the data folder, removed afterwards. */
async function withScratch<T>(dataDir: string, fn: (file: string) => Promise<T>): Promise<T> {
  const dir = mkdtempSync(join(dataDir, '.scratch-'));
  try {
    return await fn(join(dir, 'store.db'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The composition root: builds every service from the settings. Nothing listens until start(). */
export function createGateway(settings: Settings, opts: GatewayOptions = {}): Gateway {
  const log = opts.log ?? createLogger({ level: settings.log_level, format: settings.log_format });
  const dataDir = resolve(settings.data_dir);
  const paths = {
    db: join(dataDir, 'gateway.db'),
    socket: join(dataDir, 'opencube.sock'),
    pid: join(dataDir, 'opencube.pid'),
  };
  // A restore staged by the running gateway before the restart that brought us here; never under
  // a gateway that still runs on this folder (this one will then refuse to start).
  const restored = !otherGatewayRuns(paths.pid) && applyStagedRestore(paths.db);
  const db = openDb(paths.db);
  if (restored) log.warn({ db: paths.db }, 'the store was restored from a backup');
  const kv = new KvStore(db);
  // What the console set while running (the name, the beeps) wins over flags, as it was left.
  const stored = applyStoredSettings(settings, kv);
  if (stored.dropped.length > 0)
    log.warn({ settings: stored.dropped }, 'settings set in the console are no longer valid: left out');
  // Event ids rise across restarts, so a Last-Event-ID from before a restart is seen as a gap: each
  // start takes a range above the clock and above the previous start (a box without a real-time
  // clock may boot with its clock behind).
  const idBase = Math.max(Date.now() * 1000, kv.get<number>('event_id_base', 0) + 1_000_000_000);
  kv.set('event_id_base', idBase);
  const clock = opts.clock ?? systemClock;
  /** When this gateway started (start() sets it): the console's "Running since". */
  let startedAt = clock.now();
  const bus = new EventBus(
    settings.sse.replay_size,
    idBase,
    (err) => log.error({ err }, 'event listener failed'),
    settings.sse.replay_bytes,
    () => clock.now(),
  );
  const cliCommand = opts.cliCommand ?? ((words: string) => `opencube ${words}`);
  const tokens = new TokenService(db, settings.link_window_seconds * 1000, clock, bus);
  const security = new SecurityService(db, bus);
  const sink = opts.audio?.sink ?? createSink(settings.audio, log);
  const audio = new AudioArbiter({ sink, clock, library: new SoundLibrary(), log });
  const speaker = new SpeakerService(kv, audio);
  // Set once the device service exists; the registry's store writes are timed from the start.
  let metrics: GatewayMetrics | undefined;
  const registry = new DeviceRegistry(db, bus, { onStoreWrite: (ms) => metrics?.storeWrite(ms) });
  const beeps = new EventBeeps(
    bus,
    (name) => speaker.play({ kind: 'beep', name, volume: settings.audio.beep_volume, countdown: 0 }),
    settings.audio.beeps,
  );
  const alarm = new AlarmService({
    db,
    kv,
    bus,
    security,
    arbiter: audio,
    clock,
    devices: registry,
    signals: beeps,
    log,
  });
  const runtime = new RuntimeMonitor();
  // The Open API's stream and the console's: the same bounds, each its own audience.
  const streamLimits = {
    heartbeatMs: settings.sse.heartbeat_seconds * 1000,
    queueLimit: settings.sse.client_queue,
    queueBytes: settings.sse.client_queue_bytes,
    maxStreams: settings.sse.max_streams,
    clock,
    log,
  };
  const sse = new StreamWriter(bus, openApiProjection, { ...streamLimits, allowOrigin: '*' });
  const consoleAccess = new ConsoleAccess({ db, clock, bus });
  const consoleStream = new StreamWriter(bus, consoleProjection, streamLimits);

  let boundPort = settings.port;
  let infoCache: { at: number; info: GatewayInfo } | undefined;
  const info = (): GatewayInfo => {
    // The LAN address can change (DHCP); look it up again at most every 10 s.
    const now = Date.now();
    if (!infoCache || now - infoCache.at > 10_000) {
      const lan = lanInterface();
      const next: GatewayInfo = {
        ip: lan.ip,
        mac: lan.mac,
        name: settings.name,
        domain: settings.domain,
        fw_version: threePartVersion(pkg.version),
      };
      const same = infoCache && JSON.stringify(infoCache.info) === JSON.stringify(next);
      infoCache = { at: now, info: same && infoCache ? infoCache.info : next };
    }
    return infoCache.info;
  };

  const devices = new DeviceService(registry, log, clock);
  const activity = new ActivityLog(bus, log, () => registry.list());
  const debugLog = new DeviceDebugLog(
    () => clock.now(),
    (serial) => registry.get(serial)?.driver === THIRDPARTY_DRIVER,
    bus,
  );
  devices.observe(debugLog);
  if (settings.metrics !== 'off') {
    metrics = new GatewayMetrics({
      devices,
      bus,
      streams: [
        { audience: 'open-api', clients: () => sse.size, cut: () => sse.dropped },
        { audience: 'console', clients: () => consoleStream.size, cut: () => consoleStream.dropped },
      ],
    });
    devices.observe(metrics);
  }
  const cards = new UiCards(db, () => clock.now());
  const tts = new TtsEngines(db);
  // The camera routes reach the camera driver once it is loaded (at start).
  const cameras = () => devices.driver('camera') as CameraDriver | undefined;
  const inbox = loggingInbox(new ThirdPartyInbox(registry, log), debugLog, (endpoint) =>
    typeof endpoint.serial_number === 'string'
      ? registry.get(endpoint.serial_number)
      : registry.listByDriver(THIRDPARTY_DRIVER).find((d) => d.third_serial_number === endpoint.third_serial_number),
  );
  const clips = new ClipStore();
  const fetcher = new HttpAudioFetcher(clock);
  const media = new MediaPlayer({
    fetcher,
    arbiter: audio,
    limits: {
      maxBytes: settings.audio.media_max_bytes,
      timeoutMs: settings.audio.media_timeout_ms,
      maxSeconds: settings.audio.media_max_seconds,
    },
    local: (url) => clips.resolve(url),
  });
  const espeak = detectEspeak(settings.audio.tts_builtin, (cmd) => onPath(cmd) !== undefined);
  if (!espeak && settings.audio.tts_builtin !== 'off')
    log.warn({ tts_builtin: settings.audio.tts_builtin }, 'no eSpeak NG found: the built-in TTS engine is not offered');
  const ttsDirectives = new DirectiveClient(settings.thirdparty.timeout_ms, clock, log);
  const speech = new TtsService({
    engines: tts,
    directives: ttsDirectives,
    builtin: espeak ? new EspeakEngine({ backend: espeak, store: clips, now: () => clock.now() }) : undefined,
    media,
    arbiter: audio,
    clock,
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
  let matter: MatterHandle | undefined;
  // The Matter bridge runs as the console's switch last said (kept in the store), else as the
  // setting says. Turned on and off one at a time: a second click waits for the first.
  const matterWanted = () => kv.get<boolean>('matter_enabled', settings.matter.enabled);
  let matterTurns: Promise<unknown> = Promise.resolve();
  /** Runs `fn` after the bridge's earlier turns (a click, the start, a reset), one at a time. */
  const inMatterTurn = <T>(fn: () => Promise<T>): Promise<T> => {
    const turn = matterTurns.then(fn);
    matterTurns = turn.catch(() => {});
    return turn;
  };
  // While the bridge starts (after the gateway listens, or at a click), the CLI and the console say
  // "starting" rather than "off".
  let matterStarting = false;
  const startMatterNow = async () => {
    if (matter) return;
    matterStarting = true;
    try {
      // Loaded only when on: nothing of matter.js is in a gateway that does not use it.
      const { startMatter } = await import('./integrations/matter/index.ts');
      const name = settings.name;
      matter = await startMatter({
        ...settings.matter,
        gatewayName: name,
        version: pkg.version,
        db,
        registry,
        devices,
        bus,
        log,
        clock,
      });
      // A rename while it started reached no bridge yet.
      if (settings.name !== name) await matter.rename(settings.name);
    } finally {
      matterStarting = false;
    }
  };
  const stopMatterNow = async () => {
    const running = matter;
    matter = undefined;
    await running?.stop();
    return running !== undefined;
  };
  const switchMatter = (on: boolean): Promise<void> =>
    inMatterTurn(async () => {
      if (on) await startMatterNow();
      else await stopMatterNow();
      kv.set('matter_enabled', on);
      log.info({}, on ? 'Matter bridge turned on' : 'Matter bridge turned off');
    });
  const services: OpenApiServices = {
    log,
    clock,
    tokens,
    security,
    alarm,
    speaker,
    runtime,
    info,
    ownHost: (host) => isOwnHost(host, ownNames()),
    restart: () => opts.onRestart?.(),
    devices,
    inbox,
    engines: tts,
    speech,
    clips,
    media,
    cameras,
    debugLog,
    cards,
  };
  const consoleServices = {
    ...services,
    access: consoleAccess,
    version: pkg.version,
    startedAt: () => startedAt,
    restoredAt: () => (restored ? startedAt : null),
    bus,
    pairingSeconds: settings.zigbee.permit_join_seconds,
    matter: () => matter,
    matterStarting: () => matterStarting,
    cliCommand,
    switchMatter,
    matterChosenBy: () => (kv.get<boolean | null>('matter_enabled', null) === null ? 'setting' : 'console'),
    settings: () =>
      (settingDefs as readonly SettingDef[]).map((d) => ({
        key: d.key,
        value: d.key.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)?.[k], settings),
        description: d.description,
        live: d.live === true,
        set_in_console: d.live === true && setByConsole(kv, d.key),
      })),
    setSetting: (key: string, value: unknown) => {
      const was = setLive(settings, kv, key, value);
      // The beeps read their switches and volume from `settings` each time; the name is read by
      // G-bridge (cached), the token requests' host check and mDNS, which advertises it afresh, and
      // the Home Assistant and Matter bridges show it at once.
      if (key === 'name') {
        infoCache = undefined;
        homeassistant?.rename(settings.name);
        matter?.rename(settings.name).catch((err) => log.warn({ err }, 'matter: the new name could not be set'));
        if (mdns) {
          const running = mdns;
          mdns = undefined;
          mdnsTurns = mdnsTurns
            .then(() => running.stop())
            .then(async () => {
              if (!stopping) mdns = await startMdns(settings, boundPort, log);
            })
            .catch((err) => log.warn({ err }, 'mDNS could not advertise the new name'));
        }
      }
      log.info({ setting: key, value, was }, 'setting changed in the console');
      return was;
    },
    logLevel: { get: () => log.level, set: (level: LogLevel) => gateway.setLogLevel(level) },
    maintenance: {
      backup: () =>
        withScratch(dataDir, async (file) => {
          await gateway.backup(file);
          return readFileSync(file);
        }),
      restore: (bytes: Buffer) =>
        withScratch(dataDir, async (file) => {
          writeFileSync(file, bytes, { mode: 0o600 });
          return gateway.stageRestore(file, 'the uploaded file');
        }),
    },
  };
  const readiness = (): ReadyCheck[] => {
    let store: ReadyCheck;
    try {
      db.prepare('SELECT 1').get();
      store = { name: 'store', ok: true };
    } catch (err) {
      store = { name: 'store', ok: false, reason: (err as Error).message };
    }
    return [store, ...devices.readiness().map(({ driver, ...r }) => ({ name: driver, ...r }))];
  };
  const metricsAccess = metrics && {
    authorized: (h: string | undefined) => settings.metrics === 'open' || tokens.verify(bearerToken(h)) !== null,
    text: () => metrics.text(),
    contentType: metrics.contentType,
  };
  const app = buildServer(
    log,
    [
      {
        prefix: '/open-api',
        plugin: openApiPlugin({
          services,
          stream: sse,
          ...(opts.answerCheck ? { answerCheck: opts.answerCheck } : {}),
        }),
      },
      { prefix: '/console/api', plugin: consoleApiPlugin({ services: consoleServices, stream: consoleStream }) },
      { prefix: '', plugin: healthPlugin({ checks: readiness, ...(metricsAccess ? { metrics: metricsAccess } : {}) }) },
      { prefix: '', plugin: consoleStaticPlugin(opts.consoleDir) },
    ],
    metrics ? { onAnswered: (route, method, outcome) => metrics?.request(route, method, outcome) } : {},
  );
  limitConnections(app, {
    maxConnections: fitToOpenFileLimit(settings.http.max_connections, log),
    headersTimeoutMs: settings.http.headers_timeout_ms,
    requestTimeoutMs: settings.http.request_timeout_ms,
    clock,
  });

  let control: ControlServer | undefined;
  let mdns: MdnsHandle | undefined;
  // A rename re-advertises: one stop-and-start at a time, and stop() waits for the last.
  let mdnsTurns: Promise<unknown> = Promise.resolve();
  let homeassistant: { stop(): Promise<void>; rename(name: string): void } | undefined;
  let stopping: Promise<void> | undefined;
  let wrotePid = false;

  const gateway: Gateway = {
    settings,
    app,
    db,
    bus,
    tokens,
    security,
    alarm,
    speaker,
    sse,
    console: { access: consoleAccess, stream: consoleStream },
    devices,
    tts,
    speech,
    audio,
    sink,
    media,
    log,
    paths,
    info,
    cards,
    ...(metrics ? { metrics } : {}),
    readiness,
    matter: () => matter?.status() ?? (matterStarting ? ({ starting: true } as const) : undefined),
    matterPairing: async (open) => (matter ? (open ? matter.openPairing() : matter.closePairing()) : undefined),
    ...(opts.onRestart ? { restart: opts.onRestart } : {}),
    setLogLevel(level) {
      if (!isLogLevel(level)) throw new Error(`unknown log level ${String(level)}`);
      const was = log.level;
      log.level = level;
      log.info({ level, was }, 'log level changed');
      return was;
    },
    backup: (file) =>
      writeBackup(db, file, { gatewayVersion: pkg.version, settings: changedSettings(settings), now: clock.now() }),
    stageRestore(file, name) {
      const r = prepareRestore(file, stagedPath(paths.db), name);
      if (r.ok) log.warn({ contents: r.contents }, 'a backup is staged: it replaces the store at the next start');
      return r;
    },
    async start() {
      startedAt = clock.now();
      control = await startControlServer(paths.socket, gateway);
      runtime.start();
      sse.start();
      consoleStream.start();
      // Before the drivers: a report they bring at start is a detection like any other.
      activity.start();
      alarm.start();
      // Listening before the drivers are loaded and started (their code, the simulated network, a
      // broker, a radio take a while): clients that only read (GET bridge, the device list from the
      // store) are served at once; a request that needs a driver waits for it (DeviceService).
      devices.loadingDrivers();
      await app.listen({ port: settings.port, host: settings.host });
      const addr = app.server.address();
      boundPort = typeof addr === 'object' && addr ? addr.port : settings.port;
      writeFileSync(paths.pid, `${process.pid}\n`);
      wrotePid = true;
      try {
        for (const driver of await loadDrivers(settings, log, { clock, ...opts.drivers })) devices.addDriver(driver);
      } finally {
        await devices.start();
      }
      if (settings.homeassistant.enabled) {
        // Loaded only when enabled: the bridge's code stays out of gateways that do not use it.
        const { startHomeAssistant } = await import('./integrations/homeassistant/index.ts');
        homeassistant = startHomeAssistant({
          ...settings.homeassistant,
          ...opts.homeassistant,
          gatewayName: settings.name,
          version: pkg.version,
          registry,
          devices,
          bus,
          log,
          clock,
          // The Open API's snapshot: the same cache, and one ffmpeg per camera whoever asks.
          snapshot: async (serial) =>
            (await cameras()?.snapshot(serial)) ?? { ok: false, message: 'the camera driver is not running' },
        });
      }
      if (matterWanted()) {
        // In the queue of the console's switch: a click while the gateway starts waits for this.
        await inMatterTurn(startMatterNow);
      }
      if (settings.mdns) {
        const advertised = await startMdns(settings, boundPort, log);
        // A stop that began meanwhile has already passed mDNS by.
        if (stopping) await advertised.stop();
        else mdns = advertised;
      }
      beeps.start();
      beeps.bootComplete();
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
      const url = `http://${host}:${boundPort}`;
      // Bound to every address, the url is one way in (loopback): the log says what it is bound to.
      const bound = host === settings.host ? {} : { bound: `${settings.host}:${boundPort}` };
      log.info({ url, ...bound, data_dir: dataDir }, 'gateway listening');
      const code = consoleAccess.pendingSetupCode();
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
        await mdnsTurns;
        await mdns?.stop();
        sse.stop();
        consoleStream.stop();
        runtime.stop();
        beeps.stop();
        await control?.close();
        // Waits for in-flight requests; their store writes are synchronous, so they are complete.
        // A client that never sends the rest of its request would hold the close for minutes:
        // after the longest a request runs, such connections are cut.
        const cut = setTimeout(() => app.server.closeAllConnections(), STOP_GRACE_MS);
        try {
          await app.close();
        } finally {
          clearTimeout(cut);
        }
        // After the requests in flight: one of them may still start a sound, or arm a mode. The
        // alarm keeps its stored state for the next start.
        alarm.stop();
        activity.stop();
        await audio.close();
        await homeassistant?.stop();
        await matterTurns;
        await matter?.stop();
        await devices.stop();
        await Promise.all([fetcher.close(), ttsDirectives.close()]);
        tokens.flush();
        db.close();
        // Only our own: a gateway refused because another one serves this folder leaves its pid file.
        if (wrotePid) {
          try {
            unlinkSync(paths.pid);
          } catch {
            // already gone
          }
        }
      })();
      return stopping;
    },
    setConsolePassword: (password: string) => consoleAccess.replacePassword(password),
    reset() {
      // In turn with the Matter switch: a running bridge stops before its storage is cleared, then
      // starts again as a new bridge (new pairing code, no controllers).
      return inMatterTurn(async () => {
        const wasRunning = await stopMatterNow();
        factoryReset(db, { registry, engines: tts, tokens });
        await devices.afterReset();
        beeps.factoryReset();
        if (wasRunning) await startMatterNow();
      });
    },
  };
  return gateway;
}
