/**
 * Reads every row of a store as the gateway reads it at its start, before a restore puts the
 * store in place (issue 24): a value it cannot read (a device's capabilities of `{`) made the
 * gateway exit at every start until someone opened a shell. Its schema is already known to be this
 * release's (store-schema.ts). Each value must have its column's type (SQLite keeps any type in
 * any column), each JSON column must parse to the shape its reader expects, and the readers the
 * gateway starts with run over the rows. The messages name the table and the row, never a value
 * (it may be anything).
 */

import { isObject } from '../../lib/object.ts';
import { parseScryptHash } from '../../lib/password-hash.ts';
import type { Db } from '../../store/db.ts';
import { type DeviceRow, deviceFromRow } from '../devices/store.ts';

/** Rows read before the first problems are reported (a store with thousands of bad rows says so). */
const MAX_PROBLEMS = 5;

/** A key from the file as it may be shown: its letters, digits and `_.:-`, cut short. */
function shown(v: unknown): string {
  return String(v)
    .replace(/[^\w.:-]/g, '?')
    .slice(0, 40);
}

type Shape = 'object' | 'array' | 'any';

/** `not JSON`, `expected an object`..., or undefined when `text` parses to `shape`. */
function jsonProblem(text: unknown, shape: Shape): string | undefined {
  let v: unknown;
  try {
    v = JSON.parse(String(text));
  } catch {
    return 'not JSON';
  }
  if (shape === 'object' && !isObject(v)) return 'expected an object';
  if (shape === 'array' && !Array.isArray(v)) return 'expected an array';
  return undefined;
}

/**
 * The storage classes a column may hold as the gateway writes it, by the affinity SQLite gives its
 * declared type (integer columns also hold a number with a fraction; a column without a type,
 * anything), and NULL unless NOT NULL (or the rowid) says otherwise.
 */
function allowedTypes(declared: string, notNull: boolean, primaryKey: boolean): Set<string> {
  const t = declared.toUpperCase();
  let types: string[];
  if (t.includes('INT')) types = ['integer', 'real'];
  else if (/CHAR|CLOB|TEXT/.test(t)) types = ['text'];
  else if (t.includes('BLOB')) types = ['blob'];
  else if (t === '') types = ['integer', 'real', 'text', 'blob'];
  else types = ['integer', 'real'];
  if (!notNull && !(primaryKey && t === 'INTEGER')) types.push('null');
  return new Set(types);
}

/** JSON columns and the shape each reader expects. */
const JSON_COLUMNS: Record<string, Record<string, Shape>> = {
  devices: { capabilities: 'array', state: 'object', tags: 'object', extra: 'object' },
  kv: { value: 'any' },
  ui_cards: { web_settings: 'object', cast_settings: 'object' },
  matter_storage: { value: 'any' },
  automation_traces: { trace: 'any' },
  // A state's value in the logbook: a chart of changes parses it.
  history_events: { value: 'any' },
};

/** How a row is named in a message, by table. */
function rowName(table: string, row: Record<string, unknown>, n: number): string {
  switch (table) {
    case 'devices':
      return `row ${n} (serial number ${shown(row.serial_number)})`;
    case 'kv':
      return `row ${shown(row.key)}`;
    case 'matter_storage':
      return `row ${shown(row.context)} ${shown(row.key)}`;
    case 'console_password':
      return '';
    default:
      return row.id !== undefined ? `row ${shown(row.id)}` : `row ${n}`;
  }
}

/** Everything of `db` the gateway could not read at its start; empty when it can read it all. */
export function rowProblems(db: Db): string[] {
  const problems: string[] = [];
  const tables = db
    .prepare<[], { name: string }>(
      "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
    )
    .all()
    .map((t) => t.name);
  for (const table of tables) {
    const columns = db
      .prepare<[], { name: string; type: string; notnull: number; pk: number }>(`PRAGMA table_info("${table}")`)
      .all();
    const types = new Map(columns.map((c) => [c.name, allowedTypes(c.type, c.notnull === 1, c.pk > 0)]));
    const json = JSON_COLUMNS[table] ?? {};
    const select = columns.map((c) => `"${c.name}", typeof("${c.name}") AS "${c.name}:type"`).join(', ');
    let n = 0;
    for (const row of db.prepare(`SELECT ${select} FROM "${table}" ORDER BY rowid`).iterate() as Iterable<
      Record<string, unknown>
    >) {
      n++;
      const bad: string[] = [];
      for (const c of columns) {
        const type = String(row[`${c.name}:type`]);
        if (!types.get(c.name)?.has(type))
          bad.push(`${c.name}: expected ${[...(types.get(c.name) ?? [])].join(' or ')}`);
        else if (json[c.name] && row[c.name] !== null) {
          const p = jsonProblem(row[c.name], json[c.name] as Shape);
          if (p) bad.push(`${c.name}: ${p}`);
        }
      }
      if (bad.length === 0) bad.push(...readerProblems(table, row));
      const name = rowName(table, row, n);
      if (bad.length > 0) problems.push(`${table}${name ? `, ${name}` : ''}: ${bad.join('; ')}`);
      if (problems.length >= MAX_PROBLEMS) return problems;
    }
  }
  return problems;
}

/** What the readers of the gateway's start would refuse in one row whose columns are all of their types. */
function readerProblems(table: string, row: Record<string, unknown>): string[] {
  switch (table) {
    case 'devices': {
      try {
        const d = deviceFromRow(row as unknown as DeviceRow).record;
        const unreadable = d.capabilities.findIndex(
          (c) => !isObject(c) || typeof c.capability !== 'string' || typeof c.permission !== 'string',
        );
        return unreadable === -1 ? [] : [`capabilities.${unreadable}: not a capability object`];
      } catch {
        return ['the row cannot be read'];
      }
    }
    case 'tokens':
      return (row.hash as Buffer).length === 32 ? [] : ['hash: not a token hash'];
    case 'console_password':
      return parseScryptHash(row.hash) ? [] : ['not a password hash this release reads'];
    case 'console_sessions':
      return ['created_at', 'last_seen_at', 'expires_at'].some((k) => Number.isNaN(Date.parse(String(row[k]))))
        ? ['a time that is not a date']
        : [];
    case 'kv':
      // The start reads the event ids' base as a number: anything else would number events NaN.
      return row.key === 'event_id_base' && !Number.isFinite(JSON.parse(String(row.value))) ? ['not a number'] : [];
    default:
      return [];
  }
}
