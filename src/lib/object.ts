/** Plain-object helpers used wherever untrusted JSON is read. */

/** True for a JSON object (not null, not an array). */
export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** `table[key]` for the table's own keys only: input named `constructor` or `__proto__` is not in it. */
export function own<T>(table: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(table, key) ? table[key] : undefined;
}

/** Freezes plain objects and arrays all the way down (data tables that must never change after they are built). */
export function deepFreeze<T>(value: T): T {
  if (
    Array.isArray(value) ||
    (value !== null && typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype)
  ) {
    for (const v of Object.values(value as object)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * A copy of `o` without its undefined fields. Built field by field instead of deleting from `o`:
 * V8 turns an object it deletes from into a hash table, several times larger (a device record
 * kept in memory is one; issue 29). For objects of known fields (no `__proto__` key).
 */
export function withoutUndefined<T extends object>(o: T): T {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) if (v !== undefined) out[k] = v;
  return out as T;
}
