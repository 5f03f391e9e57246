/**
 * Who may use the console: one password (password.ts), sessions that survive a restart and can
 * be revoked one by one, a limit on login attempts that holds under a flood (login-limiter.ts,
 * with the device cookie of browsers that logged in before: device-cookie.ts), and the one-time
 * setup code with which the first visitor sets the password when none is set. Sessions are kept
 * as the SHA-256 of their cookie (256 random bits: a slow hash adds nothing), looked up in the
 * store on each request so that `opencube passwd` run beside a running gateway takes effect at
 * once. Logins, failures, lockouts and password changes are logged at info with the address.
 * Time is the injected clock.
 */
import { createHash, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { ErrorCode } from '../../catalog/errors.ts';
import type { EventBus } from '../../core/event-bus.ts';
import { type Refusal, refused } from '../../core/route.ts';
import type { Clock } from '../../lib/clock.ts';
import { type Log, silentLog } from '../../lib/log.ts';
import type { Db } from '../../store/db.ts';
import { DeviceCookies } from './device-cookie.ts';
import { type Caller, LoginLimiter } from './login-limiter.ts';
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

/** Who sends a login: the source address, the User-Agent, the device cookie's value if any. */
export interface LoginClient {
  address: string;
  userAgent: string;
  deviceCookie?: string;
}

/**
 * Why a login, setup or password change was refused, in the one failure shape (`Failed`): a wrong
 * secret is 401, a password not acceptable 400, a step that does not fit the state (no password
 * yet, or one already set) 409, a caller over its budget 429 with when it may try again.
 */
export type LoginRefusal = Refusal & { retryAfterSeconds?: number };

export type LoginOutcome =
  /** `deviceCookie`: the Set-Cookie header that keeps this browser known (device-cookie.ts). */
  { ok: true; cookie: string; deviceCookie: string; session: SessionInfo } | LoginRefusal;

const wrong = (message: string): LoginRefusal => refused(ErrorCode.AUTH_FAILED, message);
const invalid = (message: string): LoginRefusal => refused(ErrorCode.INVALID_PARAMETERS, message);
/** The step does not fit the state the console is in (not the secret's fault): 409. */
const notNow = (message: string): LoginRefusal => refused(ErrorCode.AUTH_FAILED, message, 409);

export interface AccessOptions {
  db: Db;
  clock: Clock;
  bus: EventBus;
  log?: Log;
  /** A session unused this long ends. */
  idleMs?: number;
  /** Attempts from one caller (address or known browser), within `limitWindowMs`, after which it must wait. */
  maxFailures?: number;
  limitWindowMs?: number;
  /** Attempts from every unknown caller together, within the window. */
  maxUnknownFailures?: number;
}

const DAY = 24 * 60 * 60 * 1000;
/** Last-seen times are written at most this often (each request would otherwise be a write). */
const TOUCH_MS = 60 * 60 * 1000;
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
  private readonly limiter: LoginLimiter;
  private readonly devices: DeviceCookies;
  private readonly log: Log;
  private setupCode: string | undefined;

  constructor(private readonly opts: AccessOptions) {
    this.idleMs = opts.idleMs ?? 30 * DAY;
    this.log = opts.log ?? silentLog;
    this.devices = new DeviceCookies(opts.db);
    this.limiter = new LoginLimiter({
      clock: opts.clock,
      ...(opts.maxFailures !== undefined ? { maxFailures: opts.maxFailures } : {}),
      ...(opts.limitWindowMs !== undefined ? { windowMs: opts.limitWindowMs } : {}),
      ...(opts.maxUnknownFailures !== undefined ? { maxUnknownFailures: opts.maxUnknownFailures } : {}),
      onLockout: (caller, scope, minutes) =>
        scope === 'caller'
          ? this.log.info(
              { address: caller.address },
              `console logins refused for ${minutes} minutes: too many failed attempts from this ${caller.device ? 'browser' : 'address'}`,
            )
          : this.log.info(
              { address: caller.address },
              `console logins from browsers the gateway does not know refused for ${minutes} minutes: too many failed logins`,
            ),
    });
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

  /**
   * Runs `check` as one counted attempt of `client` (login-limiter.ts): refused unchecked when
   * over a budget or a cap. `check` says whether the secret was right: a right one gives the
   * caller its budget back, whatever the outcome (a new password too short, say).
   */
  private async attempt(
    client: LoginClient,
    check: () => Promise<{ right: boolean; outcome: LoginOutcome }>,
  ): Promise<LoginOutcome> {
    const caller: Caller = { address: client.address };
    const device = this.devices.verify(client.deviceCookie);
    if (device) caller.device = device;
    const begun = this.limiter.begin(caller);
    if (!begun.ok)
      return {
        ...refused(ErrorCode.AUTH_FAILED, begun.refusal.message, 429),
        retryAfterSeconds: begun.refusal.retryAfterSeconds,
      };
    let right = false;
    try {
      const r = await check();
      right = r.right;
      return r.outcome;
    } finally {
      begun.attempt.end(right);
    }
  }

  /** Logs in with the password: a new session, or why not (every attempt counts against its caller). */
  login(password: unknown, client: LoginClient): Promise<LoginOutcome> {
    if (!this.hasPassword()) return Promise.resolve(notNow('no password is set yet: use the setup code'));
    return this.attempt(client, async () => {
      const stored = storedPasswordHash(this.opts.db);
      const right =
        stored !== undefined &&
        typeof password === 'string' &&
        password.length > 0 &&
        password.length <= 1024 &&
        (await verifyPassword(password, stored));
      if (!right) {
        this.log.info({ address: client.address }, 'console login failed: wrong password');
        return { right, outcome: wrong('wrong password') };
      }
      const outcome = this.open(client);
      this.log.info({ address: client.address, session_id: outcome.session.id }, 'console login');
      return { right, outcome };
    });
  }

  /** First run: the setup code printed in the log sets the password and logs in. The code works once. */
  setup(code: unknown, password: unknown, client: LoginClient): Promise<LoginOutcome> {
    const done = notNow('a password is already set: log in with it');
    if (this.hasPassword()) return Promise.resolve(done);
    return this.attempt(client, async () => {
      const want = this.pendingSetupCode();
      if (want === undefined) return { right: false, outcome: done };
      const given = typeof code === 'string' ? code.trim().toUpperCase().replace(/\s+/g, '') : '';
      if (!timingSafeEqual(sha256(given), sha256(want))) {
        this.log.info({ address: client.address }, 'console setup failed: wrong setup code');
        return { right: false, outcome: wrong('wrong setup code (it is in the gateway log)') };
      }
      const problem = passwordProblem(password);
      if (problem) return { right: true, outcome: invalid(problem) };
      await setPassword(this.opts.db, password as string, this.opts.clock.now());
      this.setupCode = undefined;
      const outcome = this.open(client);
      this.log.info({ address: client.address }, 'console password set with the setup code');
      return { right: true, outcome };
    });
  }

  /**
   * Changes the password (the current one is checked, and every attempt counts against the
   * caller); every session ends, and a new one is opened for the caller.
   */
  changePassword(current: unknown, next: unknown, client: LoginClient): Promise<LoginOutcome> {
    return this.attempt(client, async () => {
      const stored = storedPasswordHash(this.opts.db);
      if (!stored || typeof current !== 'string' || !(await verifyPassword(current, stored))) {
        this.log.info({ address: client.address }, 'console password change failed: wrong current password');
        return { right: false, outcome: wrong('current password: wrong password') };
      }
      const problem = passwordProblem(next);
      if (problem) return { right: true, outcome: invalid(problem) };
      await this.setAndEndSessions(next as string);
      this.log.info({ address: client.address }, 'console password changed');
      return { right: true, outcome: this.open(client) };
    });
  }

  /** Sets the password (`opencube passwd` through the control socket): every session ends. */
  async replacePassword(password: string): Promise<void> {
    await this.setAndEndSessions(password);
    this.log.info({}, 'console password set by opencube passwd');
  }

  private async setAndEndSessions(password: string): Promise<void> {
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

  /** A new session for `client`, and the device cookie that keeps its browser known. */
  private open(client: LoginClient): Extract<LoginOutcome, { ok: true }> {
    const now = this.opts.clock.now();
    const cookie = randomBytes(32).toString('base64url');
    const session: SessionInfo = {
      id: randomBytes(8).toString('hex'),
      created_at: new Date(now).toISOString(),
      last_seen_at: new Date(now).toISOString(),
      expires_at: new Date(now + this.idleMs).toISOString(),
      address: client.address,
      user_agent: client.userAgent.slice(0, USER_AGENT_LENGTH),
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
    const deviceCookie = this.devices.header(this.devices.verify(client.deviceCookie));
    return { ok: true, cookie, deviceCookie, session };
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
