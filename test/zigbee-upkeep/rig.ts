/**
 * The core of the gateway around one Zigbee driver, for the tests of firmware updates, groups,
 * bindings and the network map: a real device registry on a SQLite file, the event bus, the
 * device service with the Zigbee driver and the group driver registered, and the Zigbee upkeep
 * service started after them, as the gateway will wire them (phase 2). Every event of the bus is
 * recorded, so a test waits for what a client of the event stream would see.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import type { DeviceRecord, Driver } from '../../src/core/devices/contract.ts';
import { DeviceRegistry, DeviceService } from '../../src/core/devices/index.ts';
import { type BusEvent, EventBus, type EventName, type EventPayloads } from '../../src/core/event-bus.ts';
import { ZigbeeUpkeepService } from '../../src/core/zigbee-upkeep/index.ts';
import type { Clock } from '../../src/lib/clock.ts';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/db.ts';
import { eventually, tempDir } from '../helpers/foundation.ts';

export const quiet = { debug() {}, info() {}, warn() {}, error() {}, trace() {} };

export interface UpkeepRig {
  dir: string;
  db: Db;
  bus: EventBus;
  registry: DeviceRegistry;
  devices: DeviceService;
  upkeep: ZigbeeUpkeepService;
  /** Every event published since the rig started, in order. */
  events: BusEvent[];
  /** The device of the registry with this IEEE address (its driver's), once it is listed. */
  byIeee(ieee: string): DeviceRecord;
  /** Waits for a device with this IEEE address to be listed (and online, by default). */
  listed(ieee: string, online?: boolean): Promise<DeviceRecord>;
  /** Waits for an event (after position `from` of `events`) that `match` accepts. */
  waitFor<N extends EventName>(
    name: N,
    match?: (data: EventPayloads[N]) => boolean,
    from?: number,
    ms?: number,
  ): Promise<BusEvent<N>>;
  /** The events of one name from position `from` on. */
  since<N extends EventName>(name: N, from?: number): BusEvent<N>[];
  stop(): Promise<void>;
}

/** Starts the core around `driver` (its data folder `dir`, made when not given). */
export async function startRig(driver: Driver, opts: { dir?: string; clock?: Clock } = {}): Promise<UpkeepRig> {
  const dir = opts.dir ?? tempDir('opencube-upkeep-');
  const db = openDb(join(dir, 'gateway.db'));
  const bus = new EventBus(10_000, 1);
  const events: BusEvent[] = [];
  const waiters = new Set<() => void>();
  bus.subscribe((e) => {
    events.push(e);
    for (const w of [...waiters]) w();
  });
  const registry = new DeviceRegistry(db, bus);
  const devices = new DeviceService(registry, quiet, opts.clock);
  const upkeep = new ZigbeeUpkeepService({ registry, devices, bus, clock: opts.clock, log: quiet });
  devices.addDriver(driver);
  devices.addDriver(upkeep.groupDriver);
  await devices.start();
  upkeep.start();

  const byIeee = (ieee: string): DeviceRecord => {
    const d = registry.listByDriver(driver.id).find((r) => r.extra.ieee_address === ieee);
    if (!d) throw new Error(`no device ${ieee} in the registry`);
    return d;
  };
  const rig: UpkeepRig = {
    dir,
    db,
    bus,
    registry,
    devices,
    upkeep,
    events,
    byIeee,
    async listed(ieee, online = true) {
      await eventually(
        () => registry.listByDriver(driver.id).some((r) => r.extra.ieee_address === ieee && (!online || r.online)),
        60_000,
        `the device ${ieee} listed${online ? ' and online' : ''}`,
      );
      return byIeee(ieee);
    },
    waitFor(name, match = () => true, from = 0, ms = 120_000) {
      const find = () =>
        events.slice(from).find((e) => e.name === name && match(e.data as EventPayloads[typeof name])) as
          | BusEvent<typeof name>
          | undefined;
      const seen = find();
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve, reject) => {
        const check = () => {
          const e = find();
          if (!e) return;
          clearTimeout(timer);
          waiters.delete(check);
          resolve(e);
        };
        // A bound against a broken run only; no test asserts on how long it took.
        const timer = setTimeout(() => {
          waiters.delete(check);
          const last = events.slice(-6).map((e) => `${e.name} ${e.json.slice(0, 200)}`);
          reject(new Error(`no ${name} event matching within ${ms} ms; the last events:\n  ${last.join('\n  ')}`));
        }, ms);
        waiters.add(check);
      });
    },
    since(name, from = 0) {
      return events.slice(from).filter((e) => e.name === name) as BusEvent<typeof name>[];
    },
    async stop() {
      upkeep.stop();
      await devices.stop();
      db.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
  return rig;
}
