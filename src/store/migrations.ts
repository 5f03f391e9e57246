// Directly from the file that holds only the SQL: the alarm's code imports the store.
import { ALARM_MIGRATION_SQL } from '../core/alarm/migration.ts';

/**
 * Numbered migrations of the SQLite store. Append only: a migration that has shipped is never
 * edited; a change to the schema is a new entry with the next number.
 */
export const migrations: readonly { version: number; sql: string }[] = [
  {
    version: 1,
    sql: `
      CREATE TABLE kv (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE tokens (
        id TEXT PRIMARY KEY,
        hash BLOB NOT NULL UNIQUE,
        app_name TEXT,
        created_at TEXT NOT NULL,
        last_used_at TEXT
      );
      CREATE TABLE security_modes (
        sid INTEGER PRIMARY KEY,
        name TEXT NOT NULL,
        enable INTEGER NOT NULL DEFAULT 0,
        is_default INTEGER NOT NULL DEFAULT 0
      );
      INSERT INTO security_modes (sid, name, enable, is_default) VALUES
        (1, 'home_mode', 0, 0), (2, 'away_mode', 0, 1), (3, 'sleep_mode', 0, 0);
      CREATE TABLE devices (
        serial_number TEXT PRIMARY KEY,
        driver TEXT NOT NULL,
        driver_ref TEXT NOT NULL,
        owner TEXT,
        third_serial_number TEXT,
        service_address TEXT,
        name TEXT NOT NULL,
        manufacturer TEXT NOT NULL,
        model TEXT NOT NULL,
        firmware_version TEXT NOT NULL DEFAULT '',
        hostname TEXT,
        mac_address TEXT,
        app_name TEXT,
        display_category TEXT NOT NULL,
        capabilities TEXT NOT NULL,
        protocol TEXT,
        state TEXT NOT NULL DEFAULT '{}',
        tags TEXT,
        online INTEGER NOT NULL DEFAULT 1,
        extra TEXT NOT NULL DEFAULT '{}',
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (driver, driver_ref)
      );
      CREATE TABLE tts_engines (
        id TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        service_address TEXT NOT NULL,
        token_id TEXT,
        created_at TEXT NOT NULL
      );
    `,
  },
  {
    // A name given by a user (D4) outranks the name a driver announces, so that a re-sync or a
    // Zigbee2MQTT reconcile never undoes a rename.
    version: 2,
    sql: `
      ALTER TABLE devices ADD COLUMN user_name TEXT;
      CREATE INDEX devices_third_serial ON devices (driver, third_serial_number);
    `,
  },
  {
    // The alarm's per-mode settings; the alarm state moves from the speaker to the alarm.
    version: 3,
    sql: ALARM_MIGRATION_SQL,
  },
];
