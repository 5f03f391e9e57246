// Directly from the file that holds only the SQL: the alarm's code imports the store.

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
    // The alarm (src/core/alarm): `alarm_config` holds one row per security mode whose alarm
    // settings a client changed (PUT security/{sid}/config); a mode without a row has the defaults
    // of src/core/alarm/config.ts, so a later release can change them for modes nobody configured.
    // `devices` is a JSON array of serial numbers, or NULL for "every sensor". The alarm state
    // moves from the speaker's stored value to the alarm's own (kv key `alarm`). A "cancelled" carried
    // over here now reads as "normal" (G7 ends an alarm back to normal: src/core/alarm/saved.ts).
    version: 3,
    sql: `
  CREATE TABLE alarm_config (
    sid INTEGER PRIMARY KEY REFERENCES security_modes (sid) ON DELETE CASCADE,
    exit_delay INTEGER NOT NULL,
    entry_delay INTEGER NOT NULL,
    alarm_sound TEXT NOT NULL,
    alarm_duration INTEGER NOT NULL,
    devices TEXT
  );
  INSERT INTO kv (key, value)
    SELECT 'alarm', json_object('alarm_state', json_extract(value, '$.alarm_state'))
    FROM kv WHERE key = 'speaker' AND json_extract(value, '$.alarm_state') = 'cancelled';
  UPDATE kv SET value = json_remove(value, '$.alarm_state', '$.alarm_sound') WHERE key = 'speaker';
    `,
  },
  {
    // The web console (src/http/console): its password (one row: an scrypt hash, never the
    // password) and its sessions (the SHA-256 of each session's cookie, never the cookie), so
    // that a login survives a restart and each session can be revoked on its own.
    version: 4,
    sql: `
  CREATE TABLE console_password (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    hash TEXT NOT NULL,
    changed_at TEXT NOT NULL
  );
  CREATE TABLE console_sessions (
    id TEXT PRIMARY KEY,
    hash BLOB NOT NULL UNIQUE,
    created_at TEXT NOT NULL,
    last_seen_at TEXT NOT NULL,
    expires_at TEXT NOT NULL,
    address TEXT NOT NULL DEFAULT '',
    user_agent TEXT NOT NULL DEFAULT ''
  );
    `,
  },
  {
    // Dashboard cards that add-ons register (`POST ui/cards`, src/core/ui-cards.ts). The settings
    // are kept as the add-on sent them (JSON), sizes written with U+00D7.
    version: 5,
    sql: `
  CREATE TABLE ui_cards (
    id TEXT PRIMARY KEY,
    label TEXT,
    web_settings TEXT NOT NULL,
    cast_settings TEXT,
    app_name TEXT,
    token_id TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
    `,
  },
  {
    // The Matter bridge's own storage (src/integrations/matter/storage.ts): matter.js keeps its
    // fabrics, operational keys, endpoint numbers and counters here as JSON values under a context
    // path, so that they live in the one store the backups copy. Rows are written by matter.js only.
    // A rowid table like every other: the backup's content digest reads rows in rowid order.
    version: 6,
    sql: `
  CREATE TABLE matter_storage (
    context TEXT NOT NULL,
    key TEXT NOT NULL,
    value TEXT NOT NULL,
    PRIMARY KEY (context, key)
  );
    `,
  },
  {
    // Scenes and automations (src/automations): the definitions (one row each, `version` rising at
    // every save, the checked definition as JSON; `broken` says why one naming a removed device is
    // skipped), the runs journal (a run's step and the absolute deadline of its delay or wait, in
    // the store before the wait starts, so a restart resumes it), the `for` holds of triggers
    // (their deadlines), the cursor of each scheduled trigger (the last instant it fired or was
    // passed over: no occurrence runs twice) and the traces (a bounded ring per automation and
    // bucket: runs, failures, triggers evaluated but not run).
    version: 7,
    sql: `
  CREATE TABLE automations (
    id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    name TEXT NOT NULL,
    enabled INTEGER NOT NULL,
    version INTEGER NOT NULL,
    definition TEXT NOT NULL,
    broken TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE automation_runs (
    id TEXT PRIMARY KEY,
    automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    status TEXT NOT NULL,
    step INTEGER NOT NULL,
    deadline INTEGER,
    context TEXT NOT NULL,
    trace TEXT NOT NULL,
    queued_at INTEGER NOT NULL
  );
  CREATE INDEX automation_runs_by_automation ON automation_runs (automation_id, queued_at);
  CREATE TABLE automation_holds (
    automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    trigger_index INTEGER NOT NULL,
    version INTEGER NOT NULL,
    deadline INTEGER NOT NULL,
    context TEXT NOT NULL,
    PRIMARY KEY (automation_id, trigger_index)
  );
  CREATE TABLE automation_cursors (
    automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    trigger_index INTEGER NOT NULL,
    instant INTEGER NOT NULL,
    PRIMARY KEY (automation_id, trigger_index)
  );
  CREATE TABLE automation_traces (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    automation_id TEXT NOT NULL REFERENCES automations (id) ON DELETE CASCADE,
    run_id TEXT NOT NULL,
    bucket TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    trace TEXT NOT NULL
  );
  CREATE INDEX automation_traces_by_bucket ON automation_traces (automation_id, bucket, id);
    `,
  },
  {
    // The history (src/history, docs/history.md). Shaped for an SD card: rows that are written
    // together sit together, and values are packed (src/history/codec.ts). Every table of packed
    // values keys its rows by `period * 2^20 + series` in the rowid (the hour, or the day, since
    // the epoch): what one roll-up writes is appended at the end of its table, and pruning deletes
    // from the start. `history_batches` holds each batch of values as written (one row a batch,
    // so one transaction per batch) until the hour they belong to is rolled up. A logbook entry's
    // rowid is its time in ms * 1024 plus a sequence: the logbook is read by time without an index
    // on time. Devices and their series are numbered once; a removed device's history stays until
    // the user deletes it (its row keeps the last name). `history_last` holds each series' last
    // value of the hours rolled up (NULL: a gap): a value stands until the next one.
    version: 8,
    sql: `
  CREATE TABLE history_devices (
    id INTEGER PRIMARY KEY,
    serial_number TEXT NOT NULL UNIQUE,
    name TEXT NOT NULL,
    removed_at INTEGER
  );
  CREATE TABLE history_series (
    id INTEGER PRIMARY KEY,
    device INTEGER NOT NULL REFERENCES history_devices (id) ON DELETE CASCADE,
    capability TEXT NOT NULL,
    name TEXT NOT NULL,
    field TEXT NOT NULL,
    kind TEXT NOT NULL,
    unit TEXT,
    UNIQUE (device, capability, name, field)
  );
  CREATE TABLE history_exclusions (
    serial_number TEXT NOT NULL,
    capability TEXT NOT NULL,
    PRIMARY KEY (serial_number, capability)
  );
  CREATE TABLE history_meta (
    key TEXT PRIMARY KEY,
    value INTEGER NOT NULL
  );
  CREATE TABLE history_last (
    series INTEGER PRIMARY KEY,
    t INTEGER NOT NULL,
    v REAL
  );
  CREATE TABLE history_batches (
    id INTEGER PRIMARY KEY,
    first INTEGER NOT NULL,
    last INTEGER NOT NULL,
    data BLOB NOT NULL
  );
  CREATE TABLE history_raw (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
  CREATE TABLE history_5min (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
  CREATE TABLE history_hourly (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
  CREATE TABLE history_energy (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
  CREATE TABLE history_events (
    id INTEGER PRIMARY KEY,
    kind TEXT NOT NULL,
    device INTEGER,
    series INTEGER,
    value TEXT
  );
  CREATE INDEX history_events_device ON history_events (device, id) WHERE device IS NOT NULL;
  CREATE INDEX history_events_kind ON history_events (kind, id);
    `,
  },
];
