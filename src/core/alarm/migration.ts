/**
 * The alarm's schema change (migration 3 of src/store/migrations.ts). Kept here, beside the code
 * that reads it; the store lists it as its next numbered entry.
 *
 * - `alarm_config`: one row per security mode whose alarm settings a client has changed (PUT
 *   security/{sid}/config). A mode without a row has the defaults of config.ts, so the defaults
 *   live in one place and a later release can change them for modes nobody configured.
 *   `devices` is a JSON array of serial numbers, or NULL for "every sensor".
 * - The alarm state moves from the speaker's stored value to the alarm's own (`kv` key
 *   `alarm`): a G7 "cancelled" given before the upgrade is still "cancelled" after it.
 */
export const ALARM_MIGRATION_SQL = `
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
`;
