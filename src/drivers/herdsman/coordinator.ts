/**
 * The coordinator as the driver keeps it running: zigbee-herdsman's Controller on the serial port
 * found (or set), with the network of the data folder, its device database and the coordinator's
 * network backup (zigbee-herdsman restores that backup onto a new coordinator of the same family,
 * so a swapped dongle keeps the network and its devices). A start that fails (no dongle, a port in
 * use, a broken network file) and a coordinator that stops answering (its port closed, or its
 * firmware hung with the port open: coordinator-watch.ts) are retried with a backoff, while the
 * gateway serves the stored devices; nothing here knows devices.
 *
 * zigbee-herdsman keeps its devices in module-wide caches: one controller runs per process, and
 * the caches are emptied before each start.
 */
import { EventEmitter } from 'node:events';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import type { AdapterTypes } from 'zigbee-herdsman';
import { Controller, setLogger, Zdo } from 'zigbee-herdsman';
import { setLogger as setConvertersLogger } from 'zigbee-herdsman-converters';
import type { Clock } from '../../lib/clock.ts';
import type { Log } from '../../lib/log.ts';
import { CoordinatorWatch } from './coordinator-watch.ts';
import { keyRedactor, packageLogger } from './log.ts';
import { loadNetworkParameters, type NetworkParameters } from './network-parameters.ts';
import { type AdapterType, type CoordinatorPort, choosePort } from './ports.ts';

/** What replaces zigbee-herdsman's `Adapter.create` (tests: a fake coordinator). */
export type AdapterFactory = (
  network: AdapterTypes.NetworkOptions,
  serialPort: AdapterTypes.SerialPortOptions,
  backupPath: string,
  adapterOptions: AdapterTypes.AdapterOptions,
) => Promise<unknown>;

export interface CoordinatorOptions {
  /** The Zigbee data folder: network.json, database.db, coordinator_backup.json. */
  dir: string;
  serialPort: string;
  adapter: 'auto' | AdapterType;
  /** 0: the stored (or a picked) channel. */
  channel: number;
  log: Log;
  /** Whether zigbee-herdsman's debug lines are wanted (they are costly to build). */
  debug: boolean;
  clock: Clock;
  /** First and longest wait before another start (doubling in between). */
  retryMinMs: number;
  retryMaxMs: number;
  /** How often the running coordinator is asked whether it answers (0: never), and how long it has to. */
  watchEveryMs: number;
  watchAnswerMs: number;
  adapterFactory?: AdapterFactory;
  listPorts?: () => CoordinatorPort[];
  /** Subscribes to the events of a controller before it starts. */
  attach(controller: Controller): void;
  /** The coordinator runs (after every successful start). */
  onUp(controller: Controller, network: NetworkParameters): void;
  /** It does not (a start failed, or it stopped answering): why, for the log and the API's messages. */
  onDown(reason: string): void;
}

/**
 * Empties zigbee-herdsman's module-wide device and group caches. A request of the controller
 * before (a device's configuration answered late) may have filled them again after it stopped,
 * from its database: a new controller would then start with those devices.
 */
function resetModelCaches(): void {
  const model = createRequire(import.meta.url)('zigbee-herdsman/dist/controller/model/index.js');
  model.Device.resetCache();
  model.Group.resetCache();
}

/** The module whose `Adapter.create` the controller calls: the same object the controller requires. */
function adapterModule(): { Adapter: { create: AdapterFactory } } {
  return createRequire(import.meta.url)('zigbee-herdsman/dist/adapter/adapter.js');
}

export class CoordinatorLink {
  private running?: Controller;
  private attempt?: Promise<void>;
  private halting?: Promise<void>;
  private abort?: AbortController;
  private cancelRetry?: () => void;
  private watch?: CoordinatorWatch;
  private backoff: number;
  private stopped = false;
  private why = 'the coordinator is starting';

  constructor(private readonly opts: CoordinatorOptions) {
    this.backoff = opts.retryMinMs;
  }

  /** Starts the coordinator in the background (the gateway serves its stored devices meanwhile). */
  start(): void {
    this.attempt = this.tryStart();
  }

  /** The running controller, if the coordinator runs. */
  controller(): Controller | undefined {
    return this.running;
  }

  /** Why the coordinator does not run (meaningful while controller() is undefined). */
  reason(): string {
    return this.why;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.cancelRetry?.();
    this.watch?.stop();
    this.abort?.abort();
    await this.attempt;
    await this.halting;
    const c = this.running;
    this.running = undefined;
    if (c) await this.halt(c);
  }

  /** Tells the driver, then tries again after the backoff. */
  private down(reason: string): void {
    this.notify(reason);
    this.retry();
  }

  private notify(reason: string): void {
    this.why = reason;
    this.opts.onDown(reason);
  }

  private retry(): void {
    if (this.stopped) return;
    this.opts.log.warn({ retry_in_ms: this.backoff }, `zigbee: ${this.why}`);
    this.cancelRetry = this.opts.clock.setTimer(this.backoff, () => {
      this.cancelRetry = undefined;
      this.attempt = this.tryStart();
    });
    this.backoff = Math.min(this.backoff * 2, this.opts.retryMaxMs);
  }

  private async tryStart(): Promise<void> {
    if (this.stopped) return;
    const o = this.opts;
    let network: NetworkParameters;
    try {
      const loaded = loadNetworkParameters(o.dir, o.channel);
      network = loaded.params;
      if (loaded.created)
        o.log.info(
          { file: join(o.dir, 'network.json'), channel: network.channel, pan_id: network.pan_id },
          'zigbee: new network parameters made (PAN id, extended PAN id, network key) and kept in the data folder',
        );
      if (loaded.channelChanged)
        o.log.info({ channel: network.channel }, 'zigbee: moving the network to zigbee.channel');
    } catch (err) {
      this.down((err as Error).message);
      return;
    }
    const port = choosePort({ serial_port: o.serialPort, adapter: o.adapter }, o.listPorts);
    if (!port.ok) {
      this.down(port.message);
      return;
    }
    const redact = keyRedactor(network.network_key);
    const logger = packageLogger(o.log, redact, o.debug);
    setLogger(logger);
    setConvertersLogger(logger);
    let controller: Controller;
    try {
      controller = new Controller({
        network: {
          panID: network.pan_id,
          extendedPanID: network.ext_pan_id,
          channelList: [network.channel],
          networkKey: network.network_key,
        },
        serialPort: { path: port.path, adapter: port.adapter },
        databasePath: join(o.dir, 'database.db'),
        databaseBackupPath: join(o.dir, 'database.db.backup'),
        backupPath: join(o.dir, 'coordinator_backup.json'),
        adapter: { disableLED: false },
        acceptJoiningDeviceHandler: async () => true,
      });
    } catch (err) {
      this.down(`the coordinator cannot start: ${redact((err as Error).message)}`);
      return;
    }
    o.attach(controller);
    // Why zigbee-herdsman's adapter disconnected: its port closed, unless the watch found it hung.
    const disconnection = { why: 'the coordinator stopped answering' };
    controller.on('adapterDisconnected', () => this.lost(controller, disconnection.why));
    this.abort = new AbortController();
    resetModelCaches();
    let adapter: unknown;
    try {
      const result = await this.withFactory(
        () => controller.start(this.abort?.signal),
        (made) => {
          adapter = made;
        },
      );
      if (this.stopped) {
        await this.halt(controller);
        return;
      }
      this.running = controller;
      this.backoff = o.retryMinMs;
      o.log.info(
        { path: port.path ?? '(found by zigbee-herdsman)', adapter: port.adapter ?? 'auto', how: port.how, result },
        `zigbee: coordinator started (${result === 'resumed' ? 'network resumed' : result === 'restored' ? 'network restored from the backup' : 'new network formed'})`,
      );
      o.onUp(controller, network);
      this.watchOver(controller, adapter, disconnection);
    } catch (err) {
      await this.halt(controller);
      if (!this.stopped) this.down(`the coordinator could not start: ${redact((err as Error).message)}`);
    }
  }

  /** The coordinator stopped answering (its serial port closed, or its firmware hung): start again. */
  private lost(controller: Controller, reason: string): void {
    if (this.running !== controller) return;
    this.running = undefined;
    this.watch?.stop();
    this.watch = undefined;
    this.notify(reason);
    this.halting = this.halt(controller).then(() => this.retry());
  }

  /**
   * Asks the running coordinator, now and then, for its own active endpoints (a ZDO request to
   * itself, answered by its firmware over the serial port: the one request every adapter family
   * answers, herdsman sends it at a first start). A hung firmware is then dropped as a closed port
   * is: zigbee-herdsman, told its adapter disconnected, closes the port without asking the
   * coordinator anything more (a normal stop would ask it to close joining and for a backup,
   * which a hung firmware never gives).
   */
  private watchOver(controller: Controller, adapter: unknown, disconnection: { why: string }): void {
    const o = this.opts;
    if (o.watchEveryMs <= 0) return;
    const coordinatorIeee = controller.getDevicesByType('Coordinator')[0]?.ieeeAddr;
    this.watch?.stop();
    this.watch = new CoordinatorWatch({
      clock: o.clock,
      everyMs: o.watchEveryMs,
      answerMs: o.watchAnswerMs,
      misses: 2,
      probe: () =>
        controller.sendRaw({
          ieeeAddress: coordinatorIeee,
          networkAddress: 0,
          profileId: Zdo.ZDO_PROFILE_ID,
          clusterKey: Zdo.ClusterId.ACTIVE_ENDPOINTS_REQUEST,
          zdoParams: [0],
        }),
      hung: (why) => {
        if (this.running !== controller) return;
        o.log.warn({ why }, 'zigbee: the coordinator does not answer although its port is open; closing it');
        disconnection.why = `the coordinator stopped answering: ${why}`;
        // zigbee-herdsman closes the port, then reports the disconnection (lost() then); should
        // closing the port hang as well, the coordinator is dropped all the same.
        o.clock.setTimer(o.watchAnswerMs, () => this.lost(controller, disconnection.why));
        if (adapter instanceof EventEmitter) adapter.emit('disconnected');
      },
    });
    this.watch.start();
  }

  /** Stops a controller; a controller that never started, or whose adapter is gone, may throw: nothing more to stop then. */
  private async halt(controller: Controller): Promise<void> {
    try {
      await controller.stop();
    } catch (err) {
      this.opts.log.debug({ err: (err as Error).message }, 'zigbee: stopping the controller');
    }
    controller.removeAllListeners();
  }

  /**
   * zigbee-herdsman's controller makes its adapter through the module's `Adapter.create`, with no
   * other way in (nor out: the controller keeps its adapter to itself): for the duration of the
   * start only, the adapter it makes is handed to `made`, and an injected factory stands in for it.
   */
  private async withFactory<T>(start: () => Promise<T>, made: (adapter: unknown) => void): Promise<T> {
    const mod = adapterModule();
    const original = mod.Adapter.create;
    const factory = this.opts.adapterFactory ?? original.bind(mod.Adapter);
    mod.Adapter.create = async (...args) => {
      const adapter = await factory(...args);
      made(adapter);
      return adapter;
    };
    try {
      return await start();
    } finally {
      mod.Adapter.create = original;
    }
  }
}
