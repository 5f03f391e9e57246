/** Helpers of the property tests. */

/** Sets `value` at a random path of a JSON value (a mutation of a valid body or message). */
export function mutate(base: unknown, path: number[], value: unknown): unknown {
  if (path.length === 0 || base === null || typeof base !== 'object') return value;
  const copy: any = Array.isArray(base) ? [...base] : { ...(base as object) };
  const keys = Object.keys(copy);
  if (keys.length === 0) return value;
  const key = keys[(path[0] as number) % keys.length] as string;
  copy[key] = mutate(copy[key], path.slice(1), value);
  return copy;
}
