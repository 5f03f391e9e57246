/**
 * The schema a store of a given version has: exactly what this release's migrations make, up to
 * that version. A restore compares a backup's schema with it (issue 24): a trigger, view, table or
 * index planted in a backup, or a column changed, would run inside the gateway's own store (a
 * trigger that puts back a console session whenever one is deleted outlives a password change),
 * and SQLite's integrity check and the backup's digest cannot tell (the digest is recomputed by
 * whoever crafted the file).
 */
import Database from 'better-sqlite3';
import type { Db } from '../../store/db.ts';
import { migrations } from '../../store/migrations.ts';

interface SchemaObject {
  type: string;
  name: string;
  tbl_name: string;
  sql: string | null;
}

/** One line per schema object, as SQLite keeps it (its CREATE statement as written, or none). */
function objects(db: Db, skip: ReadonlySet<string>): Map<string, string> {
  const rows = db
    .prepare<[], SchemaObject>('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name')
    .all();
  const out = new Map<string, string>();
  for (const r of rows) if (!skip.has(r.tbl_name)) out.set(`${r.type} ${r.name}`, `${r.tbl_name}\u0000${r.sql ?? ''}`);
  return out;
}

/** The schema objects of a store of `version`: made by the migrations up to it, in a scratch database. */
function expected(version: number): Map<string, string> {
  const db = new Database(':memory:');
  try {
    for (const m of migrations) {
      if (m.version > version) break;
      db.exec(m.sql);
    }
    return objects(db, new Set());
  } finally {
    db.close();
  }
}

/** A name from a file as it may be shown: its letters, digits and `_.-`, cut short. */
function shown(name: string): string {
  return name.replace(/[^\w.-]/g, '?').slice(0, 60);
}

/**
 * What is wrong with the schema of `db`, a store of `version`, against this release's migrations
 * (the tables in `skip`, the backup's own, left out): objects it should not have and objects it
 * lacks. Empty when it is exactly as a store of that version is.
 */
export function schemaProblems(
  db: Db,
  version: number,
  skip: readonly string[],
): { extra: string[]; missing: string[] } {
  const want = expected(version);
  const have = objects(db, new Set(skip));
  const extra: string[] = [];
  const missing: string[] = [];
  // Keys are `<type> <name>`: the type is SQLite's word, the name whatever the file says.
  const named = (key: string) => `${key.slice(0, key.indexOf(' '))} ${shown(key.slice(key.indexOf(' ') + 1))}`;
  for (const [key, def] of have) if (want.get(key) !== def) extra.push(named(key));
  for (const key of want.keys()) if (!have.has(key)) missing.push(named(key));
  // A table's automatic indexes go with it: named only when nothing else is.
  const brief = (list: string[]) => {
    const own = list.filter((k) => !k.includes(' sqlite_autoindex_'));
    return own.length > 0 ? own : list;
  };
  return { extra: brief(extra), missing: brief(missing) };
}
