/**
 * The device cookie: after a successful login, the browser gets a random id signed with a key
 * only this gateway holds (HMAC-SHA256, key kept in the store). It opens nothing by itself (a
 * session does that); it only tells the login limiter (login-limiter.ts) that this browser has
 * logged in before, so that it keeps a budget of its own while strangers flood the login. It is
 * HttpOnly and SameSite=Strict like the session cookie, sent only to the login routes, and
 * outlives sessions and password changes (a new password does not make a browser a stranger).
 */
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../../store/db.ts';

/** The name of the cookie. */
export const DEVICE_COOKIE = 'opencube_device';
/** Where the browser sends it: the login routes only. */
const PATH = '/console/api/auth';
/** Browsers keep a cookie at most 400 days. */
const MAX_AGE_SECONDS = 400 * 24 * 60 * 60;
const KV_KEY = 'console_device_key';

export class DeviceCookies {
  private key: Buffer | undefined;

  constructor(private readonly db: Db) {}

  /** The signing key, made on first use and kept in the store (a restart keeps browsers known). */
  private signingKey(): Buffer {
    if (this.key) return this.key;
    const row = this.db.prepare<[string], { value: string }>('SELECT value FROM kv WHERE key = ?').get(KV_KEY);
    const stored = row ? (JSON.parse(row.value) as unknown) : undefined;
    if (typeof stored === 'string' && /^[0-9a-f]{64}$/.test(stored)) this.key = Buffer.from(stored, 'hex');
    else {
      this.key = randomBytes(32);
      this.db
        .prepare('INSERT INTO kv (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value')
        .run(KV_KEY, JSON.stringify(this.key.toString('hex')));
    }
    return this.key;
  }

  private mac(id: string): Buffer {
    return createHmac('sha256', this.signingKey()).update(id).digest();
  }

  /** The device id of a cookie value this gateway signed, else undefined. */
  verify(value: string | undefined): string | undefined {
    if (!value || value.length > 100) return undefined;
    const m = /^([\w-]{22})\.([\w-]{43})$/.exec(value);
    if (!m) return undefined;
    const given = Buffer.from(m[2] as string, 'base64url');
    const want = this.mac(m[1] as string);
    return given.length === want.length && timingSafeEqual(given, want) ? (m[1] as string) : undefined;
  }

  /** The Set-Cookie header for `id` (a new device when absent). */
  header(id = randomBytes(16).toString('base64url')): string {
    const value = `${id}.${this.mac(id).toString('base64url')}`;
    return `${DEVICE_COOKIE}=${value}; Path=${PATH}; HttpOnly; SameSite=Strict; Max-Age=${MAX_AGE_SECONDS}`;
  }
}
