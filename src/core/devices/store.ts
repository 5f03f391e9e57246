/** The SQLite repository of devices. Each write is committed when the call returns. */

import { withoutUndefined } from '../../lib/object.ts';
import type { Db } from '../../store/db.ts';
import type { DeviceRecord } from './contract.ts';

/** A device as kept: the record plus the two names it may have. */
export interface StoredDevice {
  record: DeviceRecord;
  /** The name the driver announced. */
  announcedName: string;
  /** The name a user gave through D4; it outranks the announced one. */
  userName?: string;
}

/** A row of the `devices` table as SQLite gives it. */
export interface DeviceRow {
  serial_number: string;
  driver: string;
  driver_ref: string;
  third_serial_number: string | null;
  service_address: string | null;
  name: string;
  user_name: string | null;
  manufacturer: string;
  model: string;
  firmware_version: string;
  hostname: string | null;
  mac_address: string | null;
  app_name: string | null;
  display_category: string;
  capabilities: string;
  protocol: string | null;
  state: string;
  tags: string | null;
  online: number;
  extra: string;
}

function opt<T>(v: T | null): T | undefined {
  return v === null ? undefined : v;
}

/** Reads a row as the registry does at start (a restore reads a backup's rows with it first). Throws on a value that is not JSON. */
export function deviceFromRow(row: DeviceRow): StoredDevice {
  const record: DeviceRecord = withoutUndefined({
    serial_number: row.serial_number,
    driver: row.driver,
    driver_ref: row.driver_ref,
    third_serial_number: opt(row.third_serial_number),
    service_address: opt(row.service_address),
    name: row.user_name ?? row.name,
    manufacturer: row.manufacturer,
    model: row.model,
    firmware_version: row.firmware_version,
    hostname: opt(row.hostname),
    mac_address: opt(row.mac_address),
    app_name: opt(row.app_name),
    display_category: row.display_category,
    capabilities: JSON.parse(row.capabilities),
    protocol: opt(row.protocol),
    state: JSON.parse(row.state),
    tags: row.tags === null ? undefined : JSON.parse(row.tags),
    online: row.online === 1,
    extra: JSON.parse(row.extra),
  });
  return { record, announcedName: row.name, userName: opt(row.user_name) };
}

/** Deletes every device (factory reset); shared by the running gateway and the offline CLI path. */
export function clearDevices(db: Db): number {
  return db.prepare('DELETE FROM devices').run().changes;
}

export class DeviceStore {
  private readonly upsertStmt;
  private readonly stateStmt;
  private readonly onlineStmt;
  private readonly deleteStmt;

  /** `onWrite` is told how long each write took to commit (ms), for metrics. */
  constructor(
    private readonly db: Db,
    private readonly onWrite?: (ms: number) => void,
  ) {
    this.upsertStmt = db.prepare(`
      INSERT INTO devices (serial_number, driver, driver_ref, owner, third_serial_number, service_address, name,
        user_name, manufacturer, model, firmware_version, hostname, mac_address, app_name, display_category,
        capabilities, protocol, state, tags, online, extra, created_at, updated_at)
      VALUES (@serial_number, @driver, @driver_ref, @owner, @third_serial_number, @service_address, @name,
        @user_name, @manufacturer, @model, @firmware_version, @hostname, @mac_address, @app_name, @display_category,
        @capabilities, @protocol, @state, @tags, @online, @extra, @now, @now)
      ON CONFLICT (serial_number) DO UPDATE SET
        driver = excluded.driver, driver_ref = excluded.driver_ref, owner = excluded.owner,
        third_serial_number = excluded.third_serial_number, service_address = excluded.service_address,
        name = excluded.name, user_name = excluded.user_name, manufacturer = excluded.manufacturer,
        model = excluded.model, firmware_version = excluded.firmware_version, hostname = excluded.hostname,
        mac_address = excluded.mac_address, app_name = excluded.app_name,
        display_category = excluded.display_category, capabilities = excluded.capabilities,
        protocol = excluded.protocol, state = excluded.state, tags = excluded.tags, online = excluded.online,
        extra = excluded.extra, updated_at = excluded.updated_at`);
    this.stateStmt = db.prepare('UPDATE devices SET state = ?, updated_at = ? WHERE serial_number = ?');
    this.onlineStmt = db.prepare('UPDATE devices SET online = ?, updated_at = ? WHERE serial_number = ?');
    this.deleteStmt = db.prepare('DELETE FROM devices WHERE serial_number = ?');
  }

  /** Every stored device, oldest first. */
  loadAll(): StoredDevice[] {
    // Insertion order (rowid), as the registry lists them: created_at follows the clock, which can
    // be behind after a boot without a real-time clock.
    return this.db.prepare<[], DeviceRow>('SELECT * FROM devices ORDER BY rowid').all().map(deviceFromRow);
  }

  /** Runs a write, timing it when it commits by itself (inside a transaction, the commit is timed). */
  private timed<T>(fn: () => T): T {
    if (!this.onWrite || this.db.inTransaction) return fn();
    const start = performance.now();
    try {
      return fn();
    } finally {
      this.onWrite(performance.now() - start);
    }
  }

  save(d: StoredDevice): void {
    const r = d.record;
    this.timed(() => this.upsert(d, r));
  }

  private upsert(d: StoredDevice, r: DeviceRecord): void {
    this.upsertStmt.run({
      serial_number: r.serial_number,
      driver: r.driver,
      driver_ref: r.driver_ref,
      // The third-party driver_ref is `<token id>/<third_serial_number>`: keep the owner queryable.
      owner: r.driver === 'thirdparty' ? (r.driver_ref.split('/')[0] ?? null) : null,
      third_serial_number: r.third_serial_number ?? null,
      service_address: r.service_address ?? null,
      name: d.announcedName,
      user_name: d.userName ?? null,
      manufacturer: r.manufacturer,
      model: r.model,
      firmware_version: r.firmware_version,
      hostname: r.hostname ?? null,
      mac_address: r.mac_address ?? null,
      app_name: r.app_name ?? null,
      display_category: r.display_category,
      capabilities: JSON.stringify(r.capabilities),
      protocol: r.protocol ?? null,
      state: JSON.stringify(r.state),
      tags: r.tags === undefined ? null : JSON.stringify(r.tags),
      online: r.online ? 1 : 0,
      extra: JSON.stringify(r.extra),
      now: new Date().toISOString(),
    });
  }

  saveState(serial: string, state: Record<string, unknown>): void {
    this.timed(() => this.stateStmt.run(JSON.stringify(state), new Date().toISOString(), serial));
  }

  saveOnline(serial: string, online: boolean): void {
    this.timed(() => this.onlineStmt.run(online ? 1 : 0, new Date().toISOString(), serial));
  }

  delete(serial: string): void {
    this.timed(() => this.deleteStmt.run(serial));
  }

  /** Runs `fn` in one transaction (nested calls become savepoints). */
  transaction<T>(fn: () => T): T {
    return this.timed(() => this.db.transaction(fn)());
  }
}
