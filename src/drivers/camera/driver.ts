/**
 * The camera driver: RTSP cameras and ESP32-CAM boards added by hand (D2), behind the driver
 * contract like every other backend. Adding is provisioning: probe the stream first, then add the
 * device through the host. D4 `configuration` re-probes before anything changes; D5 forgets the
 * camera; a watcher marks cameras offline and online. Snapshots and the live view read cameras
 * through the same records.
 */
import { randomUUID } from 'node:crypto';
import type { LookupFunction } from 'node:net';
import { ErrorCode, errorMessages } from '../../catalog/errors.ts';
import type { CapabilityObject } from '../../catalog/index.ts';
import type { Actor } from '../../core/actor.ts';
import {
  DeviceLimitReached,
  type DeviceRecord,
  type Driver,
  type DriverCommand,
  type DriverHost,
  type Outcome,
  type Provisioning,
  type ProvisionOutcome,
} from '../../core/devices/contract.ts';
import { type Clock, systemClock } from '../../lib/clock.ts';
import { LazyAgent } from '../../lib/lazy-agent.ts';
import type { Log } from '../../lib/log.ts';
import type { Settings } from '../../settings/index.ts';
import { type CameraSpec, chooseAccount, configuredSource, readAddRequest } from './add-request.ts';
import {
  CAMERA_DRIVER,
  type Camera,
  cameraCapability,
  cameraExtra,
  cameraOf,
  streamKeyOf,
  streamSettingValue,
} from './camera.ts';
import { Ffmpeg } from './ffmpeg.ts';
import { LiveHub, type LiveViewer } from './live.ts';
import { httpAlive, probeEsp32 } from './probe-http.ts';
import { probeRtsp, rtspAlive } from './probe-rtsp.ts';
import { type SnapshotOutcome, Snapshots } from './snapshots.ts';
import { type Account, hostPort, maskUrl, parseStreamUrl, type StreamAddress, streamIdentity } from './stream-url.ts';
import { type CameraFailure, cameraFailure, type ProbeOutcome } from './types.ts';
import { type Timers, Watcher } from './watcher.ts';

/** The settings of the camera group (`camera.*`), as the settings' schema types them. */
export type CameraSettings = Settings['camera'];

export interface CameraDriverOptions {
  settings: CameraSettings;
  log?: Log;
  /** The watcher's timers (tests run rounds by hand). */
  timers?: Timers;
  /** The gateway's clock: D2 and D4 deadlines, probe and check budgets, the snapshot cache. */
  clock?: Clock;
  /** DNS lookup for RTSP connections (node's by default). */
  lookup?: LookupFunction;
}

/** Longest a watcher check of one camera waits. */
const CHECK_TIMEOUT_MS = 3000;
/** How long a snapshot is served again. */
const SNAPSHOT_CACHE_MS = 1000;

function isCameraStream(c: CapabilityObject): boolean {
  return c.capability === 'camera-stream';
}

export class CameraDriver implements Driver {
  readonly id = CAMERA_DRIVER;
  readonly provisioning: Provisioning = {
    protocols: ['rtsp', 'esp32-cam'],
    provision: (body, deadline, by) => this.provision(body, deadline, by),
  };
  private host: DriverHost | undefined;
  private readonly agent: LazyAgent;
  private readonly ffmpeg: Ffmpeg;
  readonly live: LiveHub;
  private readonly snapshots: Snapshots;
  private readonly watcher: Watcher;
  /** Now on the gateway's clock, which the deadlines handed in (D2, D4) are on. */
  private readonly now: () => number;

  constructor(private readonly opts: CameraDriverOptions) {
    const s = opts.settings;
    const clock = opts.clock ?? systemClock;
    this.now = () => clock.now();
    // Short keep-alive: a board serves few connections, and the live view holds one of them.
    this.agent = new LazyAgent({ keepAliveTimeout: 1000, connections: 8 });
    this.ffmpeg = new Ffmpeg(s.ffmpeg_path);
    this.live = new LiveHub({
      ffmpeg: this.ffmpeg,
      dispatcher: this.agent,
      fps: s.live_fps,
      maxViewers: s.max_viewers,
      ...(opts.log ? { log: opts.log } : {}),
    });
    this.snapshots = new Snapshots({
      ...(opts.clock ? { now: () => (opts.clock as Clock).now() } : {}),
      ffmpeg: this.ffmpeg,
      live: this.live,
      dispatcher: this.agent,
      timeoutMs: s.snapshot_timeout_ms,
      cacheMs: SNAPSHOT_CACHE_MS,
    });
    this.watcher = new Watcher({
      intervalMs: s.check_interval_seconds * 1000,
      failuresBeforeOffline: s.failures_before_offline,
      ...(opts.timers ? { timers: opts.timers } : {}),
      list: () => this.registry.listByDriver(CAMERA_DRIVER).map((d) => d.serial_number),
      check: (serial) => this.alive(serial),
      isOnline: (serial) => this.registry.get(serial)?.online === true,
      setOnline: (serial, online) => {
        this.opts.log?.info({ serial_number: serial, online }, online ? 'camera is back online' : 'camera is offline');
        this.registry.onlineChanged(serial, online);
      },
    });
  }

  private get registry(): DriverHost {
    if (!this.host) throw new Error('the camera driver is not started');
    return this.host;
  }

  async start(host: DriverHost): Promise<void> {
    this.host = host;
    this.watcher.start();
  }

  async stop(): Promise<void> {
    await this.watcher.stop();
    this.live.stopAll();
    this.ffmpeg.stopAll();
    // Destroyed, not closed: a capture of a live view may be in flight and must not hold the stop.
    await this.agent.destroy().catch(() => {});
  }

  /** Runs one watcher round now (tests; the schedule runs them every interval). */
  checkNow(): Promise<void> {
    return this.watcher.checkNow();
  }

  /** How many ffmpeg processes were started (tests check that snapshots share one). */
  get ffmpegRuns(): number {
    return this.ffmpeg.runs;
  }

  private probe(address: StreamAddress, account: Account | undefined, deadline: number): Promise<ProbeOutcome> {
    return address.protocol === 'rtsp'
      ? probeRtsp(address, account, {
          deadline,
          now: this.now,
          ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
          ...(this.opts.log ? { log: this.opts.log } : {}),
        })
      : probeEsp32(address, account, {
          deadline,
          now: this.now,
          dispatcher: this.agent,
          ...(this.opts.log ? { log: this.opts.log } : {}),
        });
  }

  private async alive(serial: string): Promise<boolean> {
    const d = this.registry.get(serial);
    const cam = d && cameraOf(d);
    if (!cam) return false;
    const r =
      cam.protocol === 'rtsp'
        ? await rtspAlive(cam.address, cam.account, {
            deadline: this.now() + CHECK_TIMEOUT_MS,
            now: this.now,
            ...(this.opts.lookup ? { lookup: this.opts.lookup } : {}),
          })
        : await httpAlive(cam.captureUrl ?? cam.mjpegUrl ?? cam.address.url, cam.account, CHECK_TIMEOUT_MS, this.agent);
    if (!r.alive) this.opts.log?.debug({ serial_number: serial, reason: r.reason }, 'camera check failed');
    return r.alive;
  }

  /** The cameras whose stream is `key`, other than `except`. */
  private holderOf(key: string, except?: string): DeviceRecord | undefined {
    return this.registry.listByDriver(CAMERA_DRIVER).find((d) => d.serial_number !== except && streamKeyOf(d) === key);
  }

  /** What must hold before and after probing: no camera twice, no more than the limit. */
  private admissible(cameras: CameraSpec[], at: (i: number) => string): CameraFailure | undefined {
    const seen = new Map<string, number>();
    for (const [i, c] of cameras.entries()) {
      const key = streamIdentity(c.address);
      const holder = this.holderOf(key);
      if (holder)
        return cameraFailure(
          ErrorCode.DEVICE_EXISTS,
          `${at(i)}the stream ${maskUrl(c.address.url)} is already added as ${holder.serial_number} (${holder.name})`,
        );
      const twin = seen.get(key);
      if (twin !== undefined)
        return cameraFailure(ErrorCode.DEVICE_EXISTS, `cameras ${twin} and ${i} of this request name the same stream`);
      seen.set(key, i);
    }
    const now = this.registry.listByDriver(CAMERA_DRIVER).length;
    const max = this.opts.settings.max_cameras;
    if (now + cameras.length > max)
      return cameraFailure(
        ErrorCode.CAMERA_LIMIT,
        `${now} of at most ${max} cameras are added; this request adds ${cameras.length} (setting camera.max_cameras)`,
      );
    return undefined;
  }

  /**
   * D2: reads the body (one camera or an array), probes every stream (within `deadline`), and
   * adds them all, or none when one fails (spec 4.2).
   */
  async provision(body: unknown, deadline: number, by?: Actor): Promise<ProvisionOutcome> {
    const read = readAddRequest(body);
    if (!read.ok) return read;
    const { cameras } = read;
    const many = Array.isArray(body);
    const at = (i: number) => (many ? `${i}: ` : '');
    const before = this.admissible(cameras, at);
    if (before) return before;
    const until = Math.min(deadline, this.now() + this.opts.settings.probe_timeout_ms);
    const probes = await Promise.all(cameras.map((c) => this.probe(c.address, c.account, until)));
    for (const [i, p] of probes.entries()) {
      if (!p.ok) {
        this.opts.log?.info(
          { url: maskUrl(cameras[i]?.address.url ?? ''), code: p.code, message: p.message },
          'camera probe failed',
        );
        return { ok: false, code: p.code, message: many ? `${i}: ${p.message}` : p.message };
      }
    }
    // Another request may have added the same stream while these were probed.
    const after = this.admissible(cameras, at);
    if (after) return after;
    const add = () =>
      cameras.map((c, i) => {
        const facts = (probes[i] as Extract<ProbeOutcome, { ok: true }>).facts;
        return this.registry.deviceFound(
          CAMERA_DRIVER,
          {
            // Not the stream: a D4 may move the camera to another stream address.
            driver_ref: randomUUID(),
            name: c.name,
            manufacturer: c.manufacturer,
            model: c.model,
            firmware_version: c.firmware_version,
            hostname: c.address.hostname,
            display_category: 'camera',
            capabilities: [cameraCapability(c.address, c.account, facts, c.permission, c.configuration)],
            protocol: c.protocol,
            online: true,
            extra: cameraExtra(c.address, c.account, facts),
          },
          by,
        ).serial_number;
      });
    let serials: string[];
    try {
      serials = this.registry.batch(add);
    } catch (err) {
      if (err instanceof DeviceLimitReached) return { ok: false, code: ErrorCode.CAMERA_LIMIT, message: err.message };
      throw err;
    }
    for (const [i, serial] of serials.entries())
      this.opts.log?.info({ serial_number: serial, url: maskUrl(cameras[i]?.address.url ?? '') }, 'camera added');
    return { ok: true, serial_number: serials[0] as string, ...(many ? { serial_numbers: serials } : {}) };
  }

  async execute(command: DriverCommand): Promise<Outcome> {
    const d = command.device;
    switch (command.kind) {
      case 'configure':
        return this.reconfigure(d, command.capabilities, command.deadline);
      case 'remove':
        this.live.stop(d.serial_number, 'the camera was removed');
        this.snapshots.forget(d.serial_number);
        this.watcher.forget(d.serial_number);
        return { ok: true };
      case 'update-state':
      case 'query-state':
        return {
          ok: false,
          code: ErrorCode.DEVICE_UPDATE_FAILED,
          message: `${errorMessages[ErrorCode.DEVICE_UPDATE_FAILED]}: a camera has no state to control or query`,
        };
    }
  }

  /** D4: a changed stream (URL or account) is probed first; on failure nothing changes (110024). */
  private async reconfigure(d: DeviceRecord, caps: CapabilityObject[], deadline?: number): Promise<Outcome> {
    const next = caps.find(isCameraStream);
    const cam = cameraOf(d);
    if (!next || !cam) return { ok: true };
    const fail = (detail: string): Outcome => ({
      ok: false,
      code: ErrorCode.DEVICE_CONFIG_FAILED,
      message: `${errorMessages[ErrorCode.DEVICE_CONFIG_FAILED]}: ${detail}`,
    });
    const source = configuredSource(next, d.capabilities.find(isCameraStream));
    if ('ok' in source) return fail(source.message);
    const address = source.url === undefined ? cam.address : parseStreamUrl(source.url, cam.protocol);
    if ('error' in address) return fail(`${errorMessages[ErrorCode.CAMERA_STREAM_ADDRESS_ERROR]}: ${address.error}`);
    const chosen = chooseAccount(address, source.account);
    if (chosen && 'ok' in chosen) return fail(chosen.message);
    // A URL without an account and no account given keeps the camera's account (it moved).
    const account = chosen ?? (source.url === undefined || !address.account ? cam.account : undefined);
    const key = streamIdentity(address);
    const sameStream = key === streamIdentity(cam.address);
    if (!d.online && sameStream)
      return {
        ok: false,
        code: ErrorCode.CAMERA_NO_OFFLINE_OPERATION,
        message: `${errorMessages[ErrorCode.CAMERA_NO_OFFLINE_OPERATION]}: ${hostPort(cam.address)} does not answer, so the change cannot be checked`,
      };
    const holder = this.holderOf(key, d.serial_number);
    if (holder) return fail(`the stream ${maskUrl(address.url)} is already added as ${holder.serial_number}`);
    const until = Math.min(deadline ?? Number.POSITIVE_INFINITY, this.now() + this.opts.settings.probe_timeout_ms);
    const probed = await this.probe(address, account, until);
    if (!probed.ok) return fail(`(${probed.code}) ${probed.message}`);
    const current = this.registry.get(d.serial_number);
    if (!current)
      return { ok: false, code: ErrorCode.DEVICE_NOT_FOUND, message: errorMessages[ErrorCode.DEVICE_NOT_FOUND] };
    const value = streamSettingValue(address, account, probed.facts);
    const withValue = (list: CapabilityObject[]) =>
      list.map((c) => (isCameraStream(c) ? withStreamValue(c, value) : c));
    this.registry.infoUpdated(d.serial_number, {
      capabilities: withValue(current.capabilities),
      extra: cameraExtra(address, account, probed.facts),
    });
    this.registry.onlineChanged(d.serial_number, true);
    this.watcher.forget(d.serial_number);
    this.live.stop(d.serial_number);
    this.snapshots.forget(d.serial_number);
    // The device service applies the client's capability onto the device after this returns; a
    // client that changed the setting's value wrote only part of it (the URL, the account), so
    // the probe's full value is written back once that is done.
    const prev = d.capabilities.find(isCameraStream);
    if (JSON.stringify(next.settings) !== JSON.stringify(prev?.settings)) {
      setImmediate(() => {
        const now = this.host?.get(d.serial_number);
        if (now) this.host?.infoUpdated(d.serial_number, { capabilities: withValue(now.capabilities) });
      });
    }
    this.opts.log?.info({ serial_number: d.serial_number, url: maskUrl(address.url) }, 'camera re-configured');
    return { ok: true };
  }

  /** The camera behind a device, or why there is none. */
  camera(serial: string): Camera | CameraFailure {
    const d = this.registry.get(serial);
    if (!d) return cameraFailure(ErrorCode.DEVICE_NOT_FOUND);
    const cam = d.driver === CAMERA_DRIVER ? cameraOf(d) : undefined;
    if (!cam) return cameraFailure(ErrorCode.INVALID_PARAMETERS, `the device ${serial} is not a camera`);
    return cam;
  }

  /** A JPEG of a camera now (cached for a second). */
  async snapshot(serial: string): Promise<SnapshotOutcome> {
    const cam = this.camera(serial);
    if ('ok' in cam) return cam;
    return this.snapshots.take(cam);
  }

  /** Adds a live viewer of a camera. */
  watch(serial: string, viewer: LiveViewer): Promise<{ ok: true; leave: () => void } | CameraFailure> {
    const cam = this.camera(serial);
    if ('ok' in cam) return Promise.resolve(cam);
    return this.live.join(cam, viewer);
  }
}

/** The capability with its stream setting value replaced. */
function withStreamValue(c: CapabilityObject, value: Record<string, unknown>): CapabilityObject {
  const setting = c.settings?.streamSetting ?? { type: 'object', permission: '11' };
  return { ...c, settings: { ...c.settings, streamSetting: { ...setting, value } } };
}
