/**
 * The device registry: every device of every driver, kept in memory for reads and committed to
 * SQLite before any call returns, with one event on the bus per change, published after commit.
 * Drivers feed it through the DriverHost contract; the device service routes client commands.
 */
import { createHash, randomBytes } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { CapabilityObject } from '../../catalog/index.ts';
import { withoutUndefined } from '../../lib/object.ts';
import type { Db } from '../../store/db.ts';
import type { Actor } from '../actor.ts';
import type { EventBus } from '../event-bus.ts';
import {
  type DeviceAnnouncement,
  type DeviceInfoUpdate,
  DeviceLimitReached,
  type DeviceRecord,
  type DriverHost,
} from './contract.ts';
import { Interned } from './interned.ts';
import { mergeState, pruneState } from './state.ts';
import { clearDevices, DeviceStore, type StoredDevice } from './store.ts';
import { endpointOf, toWire } from './wire.ts';

type Entry = StoredDevice;

/** The most devices a gateway keeps unless its settings say otherwise (`devices.max`). */
export const DEFAULT_MAX_DEVICES = 10_000;

/**
 * Told of each change of the device list, after it is made: `serial` was added or changed, or is
 * `gone`; `serial` null: any device may have changed (the list was cleared or reloaded).
 */
export type ListWatcher = (serial: string | null, gone: boolean) => void;

function refKey(driver: string, ref: string): string {
  return `${driver}\u0000${ref}`;
}

/** What a local (non-driver) update of a device may change. */
export interface LocalUpdate {
  /** A user-given name (D4). */
  userName?: string;
  /** New tags; null removes them. */
  tags?: Record<string, unknown> | null;
  capabilities?: CapabilityObject[];
  /** Who asked (D4 of an app, the console...): the activity log's line of a rename names them. */
  by?: Actor;
}

export class DeviceRegistry implements DriverHost {
  private readonly bySerial = new Map<string, Entry>();
  private readonly byRef = new Map<string, Entry>();
  private readonly store: DeviceStore;
  /** Events held back while a batch is open; published once it is committed. */
  private pending: (() => void)[] | null = null;
  private readonly watchers: ListWatcher[] = [];
  /** Capability lists, one per distinct list (most devices share their model's). */
  private readonly capabilityLists = new Interned<CapabilityObject[]>();
  /** New devices are refused past this many (a store that holds more, kept from before, keeps them all). */
  readonly maxDevices: number;

  /** `opts.onStoreWrite` is told how long each write of the store took (ms), for metrics. */
  constructor(
    private readonly db: Db,
    private readonly bus: EventBus,
    opts: { onStoreWrite?: (ms: number) => void; maxDevices?: number } = {},
  ) {
    this.store = new DeviceStore(db, opts.onStoreWrite);
    this.maxDevices = opts.maxDevices ?? DEFAULT_MAX_DEVICES;
    for (const d of this.store.loadAll()) this.index(d);
  }

  private index(d: Entry): void {
    // Every record passes here before anyone else holds it.
    d.record.capabilities = this.capabilityLists.of(d.record.capabilities);
    this.bySerial.set(d.record.serial_number, d);
    this.byRef.set(refKey(d.record.driver, d.record.driver_ref), d);
    this.told(d.record.serial_number, false);
  }

  private told(serial: string | null, gone: boolean): void {
    for (const w of this.watchers) w(serial, gone);
  }

  /** Tells `watcher` of every change of the device list from now on (a cache of what is served). */
  watch(watcher: ListWatcher): void {
    this.watchers.push(watcher);
  }

  private emit(fn: () => void): void {
    if (this.pending) this.pending.push(fn);
    else fn();
  }

  /** Runs `fn` in one transaction; events it causes are published after the commit, in order. */
  batch<T>(fn: () => T): T {
    if (this.pending) return this.store.transaction(fn);
    this.pending = [];
    let result: T;
    let events: (() => void)[];
    try {
      result = this.store.transaction(fn);
      events = this.pending;
    } catch (err) {
      // The transaction rolled back: forget the in-memory changes by reloading.
      this.pending = null;
      this.reload();
      throw err;
    }
    this.pending = null;
    for (const e of events) e();
    return result;
  }

  private reload(): void {
    this.bySerial.clear();
    this.byRef.clear();
    for (const d of this.store.loadAll()) this.index(d);
    this.told(null, false);
  }

  private newSerial(driver: string, ref: string): string {
    // Stable: the same device of the same driver gets the same serial number after a re-add.
    let serial = createHash('sha256').update(`${driver}/${ref}`).digest('hex').slice(0, 16);
    while (this.bySerial.has(serial)) serial = randomBytes(8).toString('hex');
    return serial;
  }

  private replace(entry: Entry, record: DeviceRecord, names?: { announcedName: string; userName?: string }): Entry {
    const next: Entry = {
      record,
      announcedName: names?.announcedName ?? entry.announcedName,
      userName: names ? names.userName : entry.userName,
    };
    this.index(next);
    return next;
  }

  /**
   * `tags` ride along only when they changed: gateway-to-gateway sync add-ons forward this event
   * as a DeviceInformationUpdatedReport, and a `tags: null` sent for a rename would delete every
   * tag at the other gateway (COMPAT.md). Tags removed are `null`.
   */
  private emitInfo(d: DeviceRecord, old: DeviceRecord, by?: Actor): void {
    const tagsChanged = !isDeepStrictEqual(old.tags, d.tags);
    const payload = { name: d.name, capabilities: d.capabilities, ...(tagsChanged ? { tags: d.tags ?? null } : {}) };
    this.emit(() => this.bus.publish('device#updateDeviceInfo', { endpoint: endpointOf(d), payload }, by));
  }

  // ---- DriverHost ----

  deviceFound(driver: string, a: DeviceAnnouncement, by?: Actor): DeviceRecord {
    return this.batch(() => {
      const existing = this.byRef.get(refKey(driver, a.driver_ref));
      if (!existing) {
        if (this.bySerial.size >= this.maxDevices) throw new DeviceLimitReached(this.maxDevices);
        const record: DeviceRecord = withoutUndefined({
          serial_number: this.newSerial(driver, a.driver_ref),
          driver,
          driver_ref: a.driver_ref,
          third_serial_number: a.third_serial_number,
          service_address: a.service_address,
          name: a.name,
          manufacturer: a.manufacturer,
          model: a.model,
          firmware_version: a.firmware_version,
          hostname: a.hostname,
          mac_address: a.mac_address,
          app_name: a.app_name,
          display_category: a.display_category,
          capabilities: a.capabilities,
          protocol: a.protocol,
          state: a.state ?? {},
          tags: a.tags,
          online: a.online ?? true,
          extra: a.extra ?? {},
        });
        const entry: Entry = { record, announcedName: a.name };
        this.store.save(entry);
        this.index(entry);
        const wire = toWire(record);
        this.emit(() => this.bus.publish('device#addDevice', { payload: wire }, by));
        return record;
      }
      // Reconcile: update what the driver announces; keep the user's name; merge state.
      const old = existing.record;
      const merged = a.state
        ? mergeState(old.state, a.state, a.capabilities, { repeatPresses: false })
        : { state: old.state, changed: {} };
      const record: DeviceRecord = withoutUndefined({
        ...old,
        third_serial_number: a.third_serial_number ?? old.third_serial_number,
        service_address: a.service_address ?? old.service_address,
        name: existing.userName ?? a.name,
        manufacturer: a.manufacturer,
        model: a.model,
        firmware_version: a.firmware_version,
        hostname: a.hostname ?? old.hostname,
        mac_address: a.mac_address ?? old.mac_address,
        app_name: a.app_name ?? old.app_name,
        display_category: a.display_category,
        capabilities: a.capabilities,
        protocol: a.protocol,
        state: pruneState(merged.state, a.capabilities),
        tags: a.tags === undefined ? old.tags : a.tags,
        online: a.online ?? old.online,
        extra: a.extra ? { ...old.extra, ...a.extra } : old.extra,
      });
      const entry = this.replace(existing, record, { announcedName: a.name, userName: existing.userName });
      this.store.save(entry);
      const ep = endpointOf(record);
      if (
        old.name !== record.name ||
        !isDeepStrictEqual(old.capabilities, record.capabilities) ||
        !isDeepStrictEqual(old.tags, record.tags)
      )
        this.emitInfo(record, old);
      if (old.online !== record.online)
        this.emit(() =>
          this.bus.publish('device#updateDeviceOnline', { endpoint: ep, payload: { online: record.online } }),
        );
      if (Object.keys(merged.changed).length > 0)
        this.emit(() => this.bus.publish('device#updateDeviceState', { endpoint: ep, payload: merged.changed }));
      return record;
    });
  }

  stateReported(serial: string, state: Record<string, unknown>): void {
    this.mergeReported(serial, state);
  }

  /** Merges a report and returns what changed (empty when nothing did, or the device is unknown). */
  mergeReported(serial: string, state: Record<string, unknown>): Record<string, unknown> {
    const entry = this.bySerial.get(serial);
    if (!entry) return {};
    const { state: next, changed } = mergeState(entry.record.state, state, entry.record.capabilities);
    if (Object.keys(changed).length === 0) return changed;
    const record = { ...entry.record, state: next };
    this.store.saveState(serial, next);
    this.replace(entry, record);
    this.emit(() => this.bus.publish('device#updateDeviceState', { endpoint: endpointOf(record), payload: changed }));
    return changed;
  }

  onlineChanged(serial: string, online: boolean): void {
    const entry = this.bySerial.get(serial);
    if (!entry || entry.record.online === online) return;
    const record = { ...entry.record, online };
    this.store.saveOnline(serial, online);
    this.replace(entry, record);
    this.emit(() =>
      this.bus.publish('device#updateDeviceOnline', { endpoint: endpointOf(record), payload: { online } }),
    );
  }

  infoUpdated(serial: string, info: DeviceInfoUpdate): void {
    const entry = this.bySerial.get(serial);
    if (!entry) return;
    const announcedName = info.name ?? entry.announcedName;
    this.apply(
      entry,
      { capabilities: info.capabilities, tags: info.tags, firmware_version: info.firmware_version },
      announcedName,
      entry.userName,
      info.extra,
    );
  }

  /** A device is gone (its driver says so, or D5 `by` someone removed it). */
  deviceLeft(serial: string, by?: Actor): void {
    const entry = this.bySerial.get(serial);
    if (!entry) return;
    this.store.delete(serial);
    this.bySerial.delete(serial);
    this.byRef.delete(refKey(entry.record.driver, entry.record.driver_ref));
    this.told(serial, true);
    const ep = endpointOf(entry.record);
    this.emit(() => this.bus.publish('device#deleteDevice', { endpoint: ep }, by));
  }

  adopt(serial: string, driver: string, ref: string): DeviceRecord | undefined {
    const entry = this.bySerial.get(serial);
    if (!entry || this.byRef.has(refKey(driver, ref))) return undefined;
    const record: DeviceRecord = { ...entry.record, driver, driver_ref: ref };
    // Stored first: if the write fails, memory still shows what the store holds.
    this.store.save({ record, announcedName: entry.announcedName, userName: entry.userName });
    this.byRef.delete(refKey(entry.record.driver, entry.record.driver_ref));
    this.replace(entry, record);
    return record;
  }

  get(serial: string): DeviceRecord | undefined {
    return this.bySerial.get(serial)?.record;
  }

  findByRef(driver: string, ref: string): DeviceRecord | undefined {
    return this.byRef.get(refKey(driver, ref))?.record;
  }

  listByDriver(driver: string): DeviceRecord[] {
    const out: DeviceRecord[] = [];
    for (const e of this.bySerial.values()) if (e.record.driver === driver) out.push(e.record);
    return out;
  }

  // ---- for the device service and the routes ----

  /** Applies local changes (user name, tags, capabilities); emits updateDeviceInfo when something changed. */
  updateLocal(serial: string, update: LocalUpdate): DeviceRecord | undefined {
    const entry = this.bySerial.get(serial);
    if (!entry) return undefined;
    const userName = update.userName ?? entry.userName;
    return this.apply(
      entry,
      { capabilities: update.capabilities, tags: update.tags },
      entry.announcedName,
      userName,
      undefined,
      update.by,
    );
  }

  private apply(
    entry: Entry,
    change: { capabilities?: CapabilityObject[]; tags?: Record<string, unknown> | null; firmware_version?: string },
    announcedName: string,
    userName: string | undefined,
    extra?: Record<string, unknown>,
    by?: Actor,
  ): DeviceRecord {
    const old = entry.record;
    const next: DeviceRecord = { ...old, name: userName ?? announcedName };
    if (change.capabilities) {
      next.capabilities = change.capabilities;
      next.state = pruneState(old.state, change.capabilities);
    }
    if (change.tags === null) next.tags = undefined;
    else if (change.tags !== undefined) next.tags = change.tags;
    if (extra) next.extra = { ...old.extra, ...extra };
    // Served in D3, but not an updateDeviceInfo field (spec 6): a client sees it at its next D3.
    if (change.firmware_version !== undefined) next.firmware_version = change.firmware_version;
    const record = withoutUndefined(next);
    const infoChanged =
      old.name !== record.name ||
      !isDeepStrictEqual(old.capabilities, record.capabilities) ||
      !isDeepStrictEqual(old.tags, record.tags);
    const namesChanged = announcedName !== entry.announcedName || userName !== entry.userName;
    if (
      !infoChanged &&
      !namesChanged &&
      old.firmware_version === record.firmware_version &&
      isDeepStrictEqual(old.extra, record.extra)
    )
      return old;
    // Stored first: if the write fails, memory (and so D3) still shows what the store holds.
    this.store.save({ record, announcedName, userName });
    this.replace(entry, record, { announcedName, userName });
    if (infoChanged) this.emitInfo(record, old, by);
    return record;
  }

  /** Emits a query result (D6) as an updateDeviceState event without storing it. */
  emitQueryResult(serial: string, state: Record<string, unknown>): void {
    const d = this.get(serial);
    if (!d || Object.keys(state).length === 0) return;
    this.bus.publish('device#updateDeviceState', { endpoint: endpointOf(d), payload: state });
  }

  /** Every device, oldest first. */
  list(): DeviceRecord[] {
    return [...this.bySerial.values()].map((e) => e.record);
  }

  get size(): number {
    return this.bySerial.size;
  }

  /** Deletes every device (factory reset), emitting deleteDevice for each. */
  clear(): void {
    this.batch(() => {
      const all = this.list();
      clearDevices(this.db);
      this.bySerial.clear();
      this.byRef.clear();
      this.told(null, true);
      for (const d of all) {
        const ep = endpointOf(d);
        this.emit(() => this.bus.publish('device#deleteDevice', { endpoint: ep }));
      }
    });
  }
}
