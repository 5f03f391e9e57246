/**
 * The stored form of the console password: `scrypt$<N>$<r>$<p>$<salt>$<hash>` (salt and hash in
 * base64url), read in one place for the console's login and for a restore's check of a backup.
 * The cost it names is bounded: a hash is also what a crafted backup can bring, and an N of 2^30
 * would make every login try to allocate a terabyte.
 */

/** What a stored hash says. */
export interface ScryptHash {
  N: number;
  r: number;
  p: number;
  salt: Buffer;
  hash: Buffer;
}

/** Costs a stored hash may name (this release makes N = 2^15, r = 8, p = 1). */
const BOUNDS = { N: [2 ** 10, 2 ** 20], r: [1, 32], p: [1, 16] } as const;

/** Reads a stored hash; undefined for anything else, or a cost out of bounds. */
export function parseScryptHash(stored: unknown): ScryptHash | undefined {
  if (typeof stored !== 'string' || stored.length > 400) return undefined;
  const m = /^scrypt\$(\d{1,8})\$(\d{1,3})\$(\d{1,3})\$([\w-]{8,128})\$([\w-]{16,128})$/.exec(stored);
  if (!m) return undefined;
  const [N, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const inside = (v: number, [lo, hi]: readonly [number, number]) => v >= lo && v <= hi;
  if (!inside(N, BOUNDS.N) || (N & (N - 1)) !== 0 || !inside(r, BOUNDS.r) || !inside(p, BOUNDS.p)) return undefined;
  return { N, r, p, salt: Buffer.from(m[4] as string, 'base64url'), hash: Buffer.from(m[5] as string, 'base64url') };
}
