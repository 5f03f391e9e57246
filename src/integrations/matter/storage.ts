/**
 * matter.js's key/value storage in the gateway's own SQLite store (table `matter_storage`,
 * migration 6): the fabrics, operational keys, endpoint numbers and counters of the bridge live in
 * the one file the backups copy, and a restore brings the bridge's identity back with everything
 * else. Values are matter.js's own JSON (it encodes bigints and bytes), never logged.
 */
import { fromJson, StorageDriver, type SupportedStorageTypes, toJson } from '@matter/main';
import type { Db } from '../../store/db.ts';

/** The driver id matter.js resolves the storage by. */
export const SQLITE_DRIVER_ID = 'opencube-sqlite';

/** Contexts are stored as one path of escaped segments (a segment's own dots never split it). */
const SEP = '.';
const escapeSegment = (segment: string) => segment.replace(/%/g, '%25').replace(/\./g, '%2E');
const unescapeSegment = (segment: string) => segment.replace(/%2E/g, '.').replace(/%25/g, '%');

export class SqliteMatterStorage extends StorageDriver {
  private open = false;
  private readonly getStmt;
  private readonly setStmt;
  private readonly delStmt;
  private readonly keysStmt;
  private readonly valuesStmt;
  private readonly contextsStmt;
  private readonly clearStmt;

  /** `namespace` keeps two matter.js nodes of one store apart (the bridge is `bridge`). */
  constructor(
    private readonly db: Db,
    private readonly namespace: string,
  ) {
    super();
    this.getStmt = db.prepare('SELECT value FROM matter_storage WHERE context = ? AND key = ?');
    this.setStmt = db.prepare(
      'INSERT INTO matter_storage (context, key, value) VALUES (?, ?, ?) ON CONFLICT (context, key) DO UPDATE SET value = excluded.value',
    );
    this.delStmt = db.prepare('DELETE FROM matter_storage WHERE context = ? AND key = ?');
    this.keysStmt = db.prepare('SELECT key FROM matter_storage WHERE context = ? ORDER BY key');
    this.valuesStmt = db.prepare('SELECT key, value FROM matter_storage WHERE context = ?');
    // Sub-contexts: every context under the prefix; the next path segment is cut out in JS.
    this.contextsStmt = db.prepare('SELECT DISTINCT context FROM matter_storage WHERE substr(context, 1, ?) = ?');
    this.clearStmt = db.prepare('DELETE FROM matter_storage WHERE context = ? OR substr(context, 1, ?) = ?');
  }

  private path(contexts: readonly string[]): string {
    return [this.namespace, ...contexts].map(escapeSegment).join(SEP);
  }

  get initialized(): boolean {
    return this.open;
  }

  initialize(): void {
    this.open = true;
  }

  close(): void {
    this.open = false;
  }

  get(contexts: string[], key: string): SupportedStorageTypes | undefined {
    const row = this.getStmt.get(this.path(contexts), key) as { value: string } | undefined;
    return row ? fromJson(row.value) : undefined;
  }

  set(contexts: string[], values: Record<string, SupportedStorageTypes>): void;
  set(contexts: string[], key: string, value: SupportedStorageTypes): void;
  set(contexts: string[], keyOrValues: string | Record<string, SupportedStorageTypes>, value?: SupportedStorageTypes) {
    const context = this.path(contexts);
    const entries: [string, SupportedStorageTypes | undefined][] =
      typeof keyOrValues === 'string' ? [[keyOrValues, value]] : Object.entries(keyOrValues);
    // One transaction: a fabric's several values are written together or not at all.
    this.db.transaction(() => {
      for (const [k, v] of entries) {
        if (v === undefined) this.delStmt.run(context, k);
        else this.setStmt.run(context, k, toJson(v));
      }
    })();
  }

  delete(contexts: readonly string[], key: string): void {
    this.delStmt.run(this.path(contexts), key);
  }

  override has(contexts: readonly string[], key: string): boolean {
    return this.getStmt.get(this.path(contexts), key) !== undefined;
  }

  keys(contexts: readonly string[]): string[] {
    return (this.keysStmt.all(this.path(contexts)) as { key: string }[]).map((r) => r.key);
  }

  values(contexts: readonly string[]): Record<string, SupportedStorageTypes> {
    const out: Record<string, SupportedStorageTypes> = {};
    for (const r of this.valuesStmt.all(this.path(contexts)) as { key: string; value: string }[])
      out[r.key] = fromJson(r.value);
    return out;
  }

  contexts(contexts: readonly string[]): string[] {
    const prefix = `${this.path(contexts)}${SEP}`;
    const found = new Set<string>();
    for (const r of this.contextsStmt.all(prefix.length, prefix) as { context: string }[])
      found.add(unescapeSegment(r.context.slice(prefix.length).split(SEP)[0] as string));
    return [...found];
  }

  clearAll(contexts: readonly string[]): void {
    const context = this.path(contexts);
    const prefix = `${context}${SEP}`;
    this.clearStmt.run(context, prefix.length, prefix);
  }
}
