/**
 * Who may use the console: one password (password.ts), sessions that survive a restart and can
 * be revoked one by one, a login rate limit per client address, and the one-time setup code with
 * which the first visitor sets the password when none is set. Sessions are kept as the SHA-256 of
 * their cookie (256 random bits: a slow hash adds nothing), looked up in the store on each request
 * so that `opencube passwd` run beside a running gateway takes effect at once. Time is the
 * injected clock.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import type { EventBus } from '../../core/event-bus.ts';
import type { Clock } from '../../lib/clock.ts';
import type { Db } from '../../store/db.ts';
import { passwordProblem, setPassword, storedPasswordHash, verifyPassword } from './password.ts';

/** A session as the console lists it (never its cookie). */
export interface SessionInfo {
  id: string;
  created_at: string;
  last_seen_at: string;
  expires_at: string;
  address: string;
  user_agent: string;
}

interface Row extends SessionInfo {
  hash: Buffer;
}

export type LoginOutcome =
  | { ok: true; cookie: string; session: SessionInfo }
  | { ok: false; reason: 'wrong' | 'no_password' | 'setup_done' | 'invalid'; message: string }
  | { ok: false; reason: 'limited'; retryAfterSeconds: number; message: string };

export interface AccessOptions {
  db: Db;
  clock: Clock;
  bus: EventBus;
  /** A session unused this long ends. */
  idleMs?: number;
  /** Failed logins from one address, within `limitWindowMs`, after which it must wait. */
  maxFailures?: number;
  limitWindowMs?: number;
}

const DAY = 24 * 60 * 60 * 1000;
/** Last-seen times are written at most this often (each request would otherwise be a write). */
const TOUCH_MS = 60 * 60 * 1000;
/** Addresses the limiter remembers at once: the oldest are forgotten first. */
const MAX_TRACKED = 1000;
const USER_AGENT_LENGTH = 200;

function sha256(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Ten characters without look-alikes (no 0/O, 1/l/I), grouped for reading aloud. */
function newSetupCode(): string {
  const alphabet = 'ABCDEFGHJKMNPQRSTUVWXYZ23456789';
  let code = '';
  for (let i = 0; i < 10; i++) code += alphabet[randomInt(alphabet.length)];
  return `${code.slice(0, 5)}-${code.slice(5)}`;
}

export class ConsoleAccess {
  private readonly idleMs: number;
  private readonly maxFailures: number;
  private readonly limitWindowMs: number;
  private readonly failures = new Map<string, { count: number; first: number }>();
  private setupCode: string | undefined;

  constructor(private readonly opts: AccessOptions) {
    this.idleMs = opts.idleMs ?? 30 * DAY;
    this.maxFailures = opts.maxFailures ?? 5;
    this.limitWindowMs = opts.limitWindowMs ?? 15 * 60 * 1000;
  }

  /** Whether a password is set (else the console asks for the setup code). */
  hasPassword(): boolean {
    return storedPasswordHash(this.opts.db) !== undefined;
  }

  /** The setup code of this run when no password is set (made on first call, printed in the log by the caller). */
  pendingSetupCode(): string | undefined {
    if (this.hasPassword()) return undefined;
    this.setupCode ??= newSetupCode();
    return this.setupCode;
  }

  /** Logs in with the password: a new session, or why not (a wrong password counts against the address). */
  async login(password: unknown, address: string, userAgent: string): Promise<LoginOutcome> {
    const limited = this.limited(address);
    if (limited) return limited;
    const stored = storedPasswordHash(this.opts.db);
    if (!stored) return { ok: false, reason: 'no_password', message: 'no password is set yet: use the setup code' };
    if (typeof password !== 'string' || password.length === 0 || password.length > 1024) {
      this.fail(address);
      return { ok: false, reason: 'wrong', message: 'wrong password' };
    }
    if (!(await verifyPassword(password, stored))) {
      this.fail(address);
      return { ok: false, reason: 'wrong', message: 'wrong password' };
    }
    this.failures.delete(address);
    return this.open(address, userAgent);
  }

  /** First run: the setup code printed in the log sets the password and logs in. The code works once. */
  async setup(code: unknown, password: unknown, address: string, userAgent: string): Promise<LoginOutcome> {
    const limited = this.limited(address);
    if (limited) return limited;
    if (this.hasPassword())
      return { ok: false, reason: 'setup_done', message: 'a password is already set: log in with it' };
    const want = this.pendingSetupCode() as string;
    const given = typeof code === 'string' ? code.trim().toUpperCase().replace(/\s+/g, '') : '';
    const a = sha256(given);
    const b = sha256(want);
    if (!timingSafeEqual(a, b)) {
      this.fail(address);
      return { ok: false, reason: 'wrong', message: 'wrong setup code (it is in the gateway log)' };
    }
    const problem = passwordProblem(password);
    if (problem) return { ok: false, reason: 'invalid', message: problem };
    await setPassword(this.opts.db, password as string, this.opts.clock.now());
    this.setupCode = undefined;
    this.failures.delete(address);
    return this.open(address, userAgent);
  }

  /**
   * Changes the password (the current one is checked, and a wrong one counts against the
   * address); every session ends, and a new one is opened for the caller.
   */
  async changePassword(current: unknown, next: unknown, address: string, userAgent: string): Promise<LoginOutcome> {
    const limited = this.limited(address);
    if (limited) return limited;
    const stored = storedPasswordHash(this.opts.db);
    if (!stored || typeof current !== 'string' || !(await verifyPassword(current, stored))) {
      this.fail(address);
      return { ok: false, reason: 'wrong', message: 'current password: wrong password' };
    }
    const problem = passwordProblem(next);
    if (problem) return { ok: false, reason: 'invalid', message: problem };
    await this.replacePassword(next as string);
    return this.open(address, userAgent);
  }

  /** Sets the password (`opencube passwd` through the control socket): every session ends. */
  async replacePassword(password: string): Promise<void> {
    await setPassword(this.opts.db, password, this.opts.clock.now());
    this.setupCode = undefined;
    this.opts.bus.publish('session#revoked', { payload: { session_id: '*' } });
  }

  /** The session a cookie value stands for, or undefined (unknown, revoked or expired). */
  verify(cookie: string | undefined): SessionInfo | undefined {
    if (!cookie || cookie.length > 200) return undefined;
    const hash = sha256(cookie);
    const row = this.opts.db.prepare<[Buffer], Row>('SELECT * FROM console_sessions WHERE hash = ?').get(hash);
    if (!row) return undefined;
    const now = this.opts.clock.now();
    if (Date.parse(row.expires_at) <= now) {
      this.remove(row.id);
      return undefined;
    }
    if (now - Date.parse(row.last_seen_at) >= TOUCH_MS) {
      row.last_seen_at = new Date(now).toISOString();
      row.expires_at = new Date(now + this.idleMs).toISOString();
      this.opts.db
        .prepare('UPDATE console_sessions SET last_seen_at = ?, expires_at = ? WHERE id = ?')
        .run(row.last_seen_at, row.expires_at, row.id);
    }
    return info(row);
  }

  /** Every live session, newest first. */
  list(): SessionInfo[] {
    const now = new Date(this.opts.clock.now()).toISOString();
    return this.opts.db
      .prepare<[string], Row>('SELECT * FROM console_sessions WHERE expires_at > ? ORDER BY created_at DESC')
      .all(now)
      .map(info);
  }

  /** Ends one session (logout, or revoked from another console); false when there is none. Its streams end. */
  revoke(id: string): boolean {
    const removed = this.remove(id);
    if (removed) this.opts.bus.publish('session#revoked', { payload: { session_id: id } });
    return removed;
  }

  private remove(id: string): boolean {
    return this.opts.db.prepare('DELETE FROM console_sessions WHERE id = ?').run(id).changes > 0;
  }

  private open(address: string, userAgent: string): LoginOutcome {
    const now = this.opts.clock.now();
    const cookie = randomBytes(32).toString('base64url');
    const session: SessionInfo = {
      id: randomBytes(8).toString('hex'),
      created_at: new Date(now).toISOString(),
      last_seen_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.idleMs).toISOString(),
      address,
      user_agent: userAgent.slice(0, USER_AGENT_LENGTH),
    };
    this.opts.db
      .prepare(
        'INSERT INTO console_sessions (id, hash, created_at, last_seen_at, expires_at, address, user_agent) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run(
        session.id,
        sha256(cookie),
        session.created_at,
        session.last_seen_at,
        session.expires_at,
        session.address,
        session.user_agent,
      );
    // Expired sessions are dropped here rather than on a timer.
    this.opts.db.prepare('DELETE FROM console_sessions WHERE expires_at <= ?').run(session.created_at);
    return { ok: true, cookie, session };
  }

  /** The refusal for an address that failed too often in the window, or undefined. */
  private limited(address: string): LoginOutcome | undefined {
    const f = this.failures.get(address);
    if (!f) return undefined;
    const now = this.opts.clock.now();
    const ends = f.first + this.limitWindowMs;
    if (now >= ends) {
      this.failures.delete(address);
      return undefined;
    }
    if (f.count < this.maxFailures) return undefined;
    const retryAfterSeconds = Math.ceil((ends - now) / 1000);
    return {
      ok: false,
      reason: 'limited',
      retryAfterSeconds,
      message: `too many failed attempts from this address: try again in ${Math.ceil(retryAfterSeconds / 60)} minute${retryAfterSeconds > 60 ? 's' : ''}`,
    };
  }

  private fail(address: string): void {
    const now = this.opts.clock.now();
    const f = this.failures.get(address);
    if (f && now < f.first + this.limitWindowMs) {
      f.count++;
      return;
    }
    this.failures.delete(address);
    if (this.failures.size >= MAX_TRACKED) this.failures.delete(this.failures.keys().next().value as string);
    this.failures.set(address, { count: 1, first: now });
  }
}

function info(r: Row): SessionInfo {
  return {
    id: r.id,
    created_at: r.created_at,
    last_seen_at: r.last_seen_at,
    expires_at: r.expires_at,
    address: r.address,
    user_agent: r.user_agent,
  };
}
