/**
 * Builds the core services of one gateway from its settings (part of the composition root, with
 * src/gateway.ts): the store's services, the event bus, the audio chain, the alarm, the devices
 * and the third-party inbox, TTS. Nothing here starts anything; src/gateway.ts starts and stops.
 */
import type { Logger } from 'pino';
import pkg from '../package.json' with { type: 'json' };
import { AlarmService } from './core/alarm/index.ts';
import {
  AudioArbiter,
  AudioDecoder,
  type AudioSink,
  EventBeeps,
  MediaPlayer,
  SoundLibrary,
} from './core/audio/index.ts';
import { DeviceDebugLog, loggingInbox } from './core/devices/debug-log.ts';
import { DeviceRegistry, DeviceService } from './core/devices/index.ts';
import { EventBus, risingIdBase } from './core/event-bus.ts';
import { GatewayInfoCache } from './core/gateway-info.ts';
import { RuntimeMonitor } from './core/runtime.ts';
import { SecurityService } from './core/security.ts';
import type { CameraApi, CoreServices } from './core/services.ts';
import { SpeakerService } from './core/speaker.ts';
import { TokenService } from './core/tokens.ts';
import { ClipStore, detectEspeak, EspeakEngine, TtsEngines, TtsService } from './core/tts/index.ts';
import { UiCards } from './core/ui-cards.ts';
import { createSink, HttpAudioFetcher, onPath } from './drivers/audio/index.ts';
import { DirectiveClient, THIRDPARTY_DRIVER, ThirdPartyInbox } from './drivers/thirdparty/index.ts';
import type { Clock } from './lib/clock.ts';
import type { Settings } from './settings/index.ts';
import type { Db, KvStore } from './store/db.ts';

export interface BuiltServices extends CoreServices {
  registry: DeviceRegistry;
  beeps: EventBeeps;
  audio: AudioArbiter;
  sink: AudioSink;
  /** What holds sockets and timers of its own, closed at the stop. */
  close(): Promise<void>;
}

export interface BuildOptions {
  settings: Settings;
  db: Db;
  kv: KvStore;
  clock: Clock;
  log: Logger;
  sink?: AudioSink;
  /** Each write of the device store, in milliseconds (the taps). */
  onStoreWrite(ms: number): void;
}

export function buildCoreServices({ settings, db, kv, clock, log, sink: given, onStoreWrite }: BuildOptions) {
  const bus = new EventBus(
    settings.sse.replay_size,
    risingIdBase(kv),
    (err) => log.error({ err }, 'event listener failed'),
    settings.sse.replay_bytes,
    () => clock.now(),
  );
  const tokens = new TokenService(db, settings.link_window_seconds * 1000, clock, bus);
  const security = new SecurityService(db, bus);
  const sink = given ?? createSink(settings.audio, log);
  const audio = new AudioArbiter({ sink, clock, library: new SoundLibrary(), log });
  const speaker = new SpeakerService(kv, audio);
  const registry = new DeviceRegistry(db, bus, { onStoreWrite, maxDevices: settings.devices.max });
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
  const devices = new DeviceService(registry, log, clock);
  const debugLog = new DeviceDebugLog(
    () => clock.now(),
    (serial) => registry.get(serial)?.driver === THIRDPARTY_DRIVER,
    bus,
  );
  devices.observe(debugLog);
  const inbox = loggingInbox(new ThirdPartyInbox(registry, log), debugLog, (endpoint) =>
    typeof endpoint.serial_number === 'string'
      ? registry.get(endpoint.serial_number)
      : registry.listByDriver(THIRDPARTY_DRIVER).find((d) => d.third_serial_number === endpoint.third_serial_number),
  );
  const clips = new ClipStore();
  const fetcher = new HttpAudioFetcher(clock);
  // Large files are decoded in a worker thread: on the event loop they held every client (issue 24).
  const decoder = new AudioDecoder({ log });
  const { media_max_bytes: maxBytes, media_timeout_ms: timeoutMs, media_max_seconds: maxSeconds } = settings.audio;
  const media = new MediaPlayer({
    fetcher,
    arbiter: audio,
    limits: { maxBytes, timeoutMs, maxSeconds },
    local: (url) => clips.resolve(url),
    log,
    decode: (bytes, seconds) => decoder.decode(bytes, seconds),
  });
  const espeak = detectEspeak(settings.audio.tts_builtin, (cmd) => onPath(cmd) !== undefined);
  if (!espeak && settings.audio.tts_builtin !== 'off')
    log.warn({ tts_builtin: settings.audio.tts_builtin }, 'no eSpeak NG found: the built-in TTS engine is not offered');
  const engines = new TtsEngines(db);
  const directives = new DirectiveClient(settings.thirdparty.timeout_ms, clock, log);
  const speech = new TtsService({
    engines,
    directives,
    builtin: espeak ? new EspeakEngine({ backend: espeak, store: clips, now: () => clock.now() }) : undefined,
    media,
    arbiter: audio,
    clock,
  });
  const info = new GatewayInfoCache(
    () => ({ name: settings.name, domain: settings.domain, version: pkg.version }),
    bus,
  );
  const services: BuiltServices = {
    log,
    clock,
    bus,
    tokens,
    security,
    alarm,
    speaker,
    runtime: new RuntimeMonitor(),
    info: () => info.info(),
    devices,
    inbox,
    engines,
    speech,
    clips,
    media,
    // The camera routes reach the camera driver once it is loaded (at start).
    cameras: () => devices.driver('camera') as CameraApi | undefined,
    debugLog,
    cards: new UiCards(db, () => clock.now()),
    registry,
    beeps,
    audio,
    sink,
    close: async () => {
      await Promise.all([fetcher.close(), directives.close(), decoder.close()]);
    },
  };
  return services;
}
