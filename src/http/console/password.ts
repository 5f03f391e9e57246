/**
 * The console password: kept as an scrypt hash (node:crypto) in the store, never the password.
 * The stored form names its parameters, so a later release can raise the cost and still read
 * hashes made before: `scrypt$<N>$<r>$<p>$<salt>$<hash>` (src/lib/password-hash.ts reads it).
 */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { parseScryptHash } from '../../lib/password-hash.ts';
import type { Db } from '../../store/db.ts';

/** Cost of new hashes: 2^15 needs 32 MiB and about 0.1 s on a laptop, under a second on a Pi. */
const COST = { N: 2 ** 15, r: 8, p: 1 };
const KEY_LENGTH = 32;
export const MIN_PASSWORD_LENGTH = 8;
export const MAX_PASSWORD_LENGTH = 1024;

function derive(password: string, salt: Buffer, c: typeof COST): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password, salt, KEY_LENGTH, { ...c, maxmem: 256 * c.N * c.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );
}

/** Why a new password is refused, or undefined when it is fine. */
export function passwordProblem(password: unknown): string | undefined {
  if (typeof password !== 'string') return 'password: expected a string';
  if (password.length < MIN_PASSWORD_LENGTH) return `password: at least ${MIN_PASSWORD_LENGTH} characters`;
  if (password.length > MAX_PASSWORD_LENGTH) return `password: at most ${MAX_PASSWORD_LENGTH} characters`;
  return undefined;
}

/** The stored form of a password. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, COST);
  return ['scrypt', COST.N, COST.r, COST.p, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** Whether `password` matches a stored hash (false for a hash it cannot read, or of a cost out of bounds). */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const h = parseScryptHash(stored);
  if (!h) return false;
  const got = await derive(password, h.salt, { N: h.N, r: h.r, p: h.p });
  return got.length === h.hash.length && timingSafeEqual(got, h.hash);
}

/** The stored hash, or undefined when no password was set. */
export function storedPasswordHash(db: Db): string | undefined {
  return db.prepare<[], { hash: string }>('SELECT hash FROM console_password WHERE id = 1').get()?.hash;
}

/**
 * Sets the password and ends every console session, in one transaction (a changed password
 * locks out whoever knew the old one). Used by the gateway and by `opencube passwd` when no
 * gateway runs.
 */
export async function setPassword(db: Db, password: string, now: number): Promise<void> {
  const problem = passwordProblem(password);
  if (problem) throw new Error(problem);
  storePasswordHash(db, await hashPassword(password), now);
}

/** Stores a hash made by hashPassword and ends every console session, in one transaction. */
export function storePasswordHash(db: Db, hash: string, now: number): void {
  db.transaction(() => {
    db.prepare(
      'INSERT INTO console_password (id, hash, changed_at) VALUES (1, ?, ?) ON CONFLICT(id) DO UPDATE SET hash = excluded.hash, changed_at = excluded.changed_at',
    ).run(hash, new Date(now).toISOString());
    db.prepare('DELETE FROM console_sessions').run();
  })();
}
