import { unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { type ControlServer, startControlServer } from './control/server.ts';
import { AlarmService } from './core/alarm/index.ts';
import { AudioArbiter, type AudioSink, EventBeeps, MediaPlayer, SoundLibrary } from './core/audio/index.ts';
import { DeviceRegistry, DeviceService } from './core/devices/index.ts';
import { EventBus } from './core/event-bus.ts';
import { type GatewayInfo, lanInterface, threePartVersion } from './core/gateway-info.ts';
import { factoryReset } from './core/maintenance/reset.ts';
import { RuntimeMonitor } from './core/runtime.ts';
import { SecurityService } from './core/security.ts';
import { SpeakerService } from './core/speaker.ts';
import { TokenService } from './core/tokens.ts';
import { ClipStore, detectEspeak, EspeakEngine, TtsEngines, TtsService } from './core/tts/index.ts';
import { createSink, HttpAudioFetcher, onPath } from './drivers/audio/index.ts';
import type { CameraDriver } from './drivers/camera/index.ts';
import { type DriverOptions, loadDrivers } from './drivers/load.ts';
import { DirectiveClient, ThirdPartyInbox } from './drivers/thirdparty/index.ts';
import { fitToOpenFileLimit } from './http/connection-guard.ts';
import { openApiProjection } from './http/open-api/events.ts';
import { openApiPlugin } from './http/open-api/plugin.ts';
import type { AnswerCheck } from './http/open-api/route.ts';
import type { OpenApiServices } from './http/open-api/services.ts';
import { buildServer, limitConnections } from './http/server.ts';
import { StreamWriter } from './http/stream/writer.ts';
import { type Clock, systemClock } from './lib/clock.ts';
import { type MdnsHandle, startMdns } from './mdns.ts';
import type { Settings } from './settings/index.ts';
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
  /** Listens, starts drivers, the control socket and mDNS. Returns the base URL. */
  start(): Promise<string>;
  /** Graceful stop: closes streams, waits for in-flight requests, stops drivers, closes the store. */
  stop(): Promise<void>;
  /** Factory reset: clears tokens (and devices); settings of the speaker and modes stay. */
  reset(): Promise<void>;
  info(): GatewayInfo;
}

/**
 * How long a stop waits for requests in flight before it cuts their connections: longer than any
 * request runs (D4 waits at most 4 s on devices, and clients give up after 5 s).
 */
const STOP_GRACE_MS = 5000;

/** The composition root: builds every service from the settings. Nothing listens until start(). */
export function createGateway(settings: Settings, opts: GatewayOptions = {}): Gateway {
  const log = opts.log ?? pino({ level: settings.log_level }, pino.destination(2));
  const dataDir = resolve(settings.data_dir);
  const paths = {
    db: join(dataDir, 'gateway.db'),
    socket: join(dataDir, 'opencube.sock'),
    pid: join(dataDir, 'opencube.pid'),
  };
  const db = openDb(paths.db);
  const kv = new KvStore(db);
  // Event ids rise across restarts, so a Last-Event-ID from before a restart is seen as a gap: each
  // start takes a range above the clock and above the previous start (a box without a real-time
  // clock may boot with its clock behind).
  const idBase = Math.max(Date.now() * 1000, kv.get<number>('event_id_base', 0) + 1_000_000_000);
  kv.set('event_id_base', idBase);
  const bus = new EventBus(
    settings.sse.replay_size,
    idBase,
    (err) => log.error({ err }, 'event listener failed'),
    settings.sse.replay_bytes,
  );
  const clock = opts.clock ?? systemClock;
  const tokens = new TokenService(db, settings.link_window_seconds * 1000, clock, bus);
  const security = new SecurityService(db, bus);
  const sink = opts.audio?.sink ?? createSink(settings.audio, log);
  const audio = new AudioArbiter({ sink, clock, library: new SoundLibrary(), log });
  const speaker = new SpeakerService(kv, audio);
  const registry = new DeviceRegistry(db, bus);
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
  const sse = new StreamWriter(bus, openApiProjection, {
    heartbeatMs: settings.sse.heartbeat_seconds * 1000,
    queueLimit: settings.sse.client_queue,
    queueBytes: settings.sse.client_queue_bytes,
    maxStreams: settings.sse.max_streams,
    clock,
    log,
    allowOrigin: '*',
  });

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
  const tts = new TtsEngines(db);
  // The camera routes reach the camera driver once it is loaded (at start).
  const cameras = () => devices.driver('camera') as CameraDriver | undefined;
  const inbox = new ThirdPartyInbox(registry, log);
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
  const services: OpenApiServices = {
    log,
    tokens,
    security,
    alarm,
    speaker,
    runtime,
    info,
    restart: () => opts.onRestart?.(),
    devices,
    inbox,
    engines: tts,
    speech,
    clips,
    media,
    cameras,
  };
  const app = buildServer(log, [
    {
      prefix: '/open-api',
      plugin: openApiPlugin({ services, stream: sse, ...(opts.answerCheck ? { answerCheck: opts.answerCheck } : {}) }),
    },
  ]);
  limitConnections(app, {
    maxConnections: fitToOpenFileLimit(settings.http.max_connections, log),
    headersTimeoutMs: settings.http.headers_timeout_ms,
    requestTimeoutMs: settings.http.request_timeout_ms,
    clock,
  });

  let control: ControlServer | undefined;
  let mdns: MdnsHandle | undefined;
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
    devices,
    tts,
    speech,
    audio,
    sink,
    media,
    log,
    paths,
    info,
    async start() {
      control = await startControlServer(paths.socket, gateway);
      runtime.start();
      sse.start();
      // Before the drivers: a report they bring at start is a detection like any other.
      alarm.start();
      for (const driver of await loadDrivers(settings, log, { clock, ...opts.drivers })) devices.addDriver(driver);
      await devices.start();
      await app.listen({ port: settings.port, host: settings.host });
      const addr = app.server.address();
      boundPort = typeof addr === 'object' && addr ? addr.port : settings.port;
      writeFileSync(paths.pid, `${process.pid}\n`);
      wrotePid = true;
      if (settings.mdns) mdns = startMdns(settings, boundPort, log);
      beeps.start();
      beeps.bootComplete();
      const host = settings.host === '0.0.0.0' || settings.host === '::' ? '127.0.0.1' : settings.host;
      const url = `http://${host}:${boundPort}`;
      log.info({ url, data_dir: dataDir }, 'gateway listening');
      return url;
    },
    stop() {
      // A second call waits for the same stop: its caller may reuse the data folder once it resolves.
      stopping ??= (async () => {
        await mdns?.stop();
        sse.stop();
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
        await audio.close();
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
    async reset() {
      factoryReset(db, { registry, engines: tts, tokens });
      beeps.factoryReset();
    },
  };
  return gateway;
}
