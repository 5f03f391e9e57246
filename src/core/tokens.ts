import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Clock } from '../lib/clock.ts';
import { systemClock } from '../lib/clock.ts';
import type { Db } from '../store/db.ts';
import type { Actor } from './actor.ts';
import type { EventBus } from './event-bus.ts';

/** A stored token as the CLI and the console see it; the token itself is never stored. */
export interface TokenInfo {
  id: string;
  app_name: string | null;
  created_at: string;
  last_used_at: string | null;
}

/** The outcome of one access_token poll. */
export type Grant = { ok: true; token: string; app_name?: string } | { ok: false };

/** What a press of the link button did. */
export interface PressResult {
  window_until: string;
  /**
   * The apps this press approved: those that polled in the last minute; each gets its token on
   * its next poll. Empty: the press goes to the first app that polls in the window, and only to it.
   */
  waiting_apps: string[];
}

interface Row {
  id: string;
  hash: Buffer;
  app_name: string | null;
  created_at: string;
  last_used_at: string | null;
}

const LAST_USED_FLUSH_MS = 60_000;
const WAITING_MS = 60_000;
// Polls come from anyone on the LAN without a token: bound what they can make the gateway keep.
const MAX_WAITING = 64;
// A press approves at most this many waiting apps (the most recent), so one press cannot fill the store.
const MAX_APPS_PER_PRESS = 32;

function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** What the console decided for one app that polled (approve or deny). */
export type Decision = { ok: true; app_name: string; until: string };

/** An approval or a refusal of one app, for one window. */
interface PerApp {
  until: number;
  /** The token issued within the approval, so repeated polls get the same one. */
  token?: string;
}

/**
 * Tokens and the link-button window (spec 3 and 5). A press approves the apps that were waiting
 * at that moment (polled in the last minute; the presser sees their names), or, when none was,
 * the first app that polls within the window: most clients poll first and the user then presses,
 * some start polling after the press. An app name that first polls after the press is not
 * approved by it (it waits for the next press or the console), so a process racing the press
 * under made-up names gets nothing the presser did not see (docs/security.md). Repeated polls
 * of one app in the window get the same token. The console's pop-up approves (or denies) ONE
 * app: that app gets its token on its next poll within the window; a denied app keeps getting
 * the refusal for the window and stops showing as waiting. Tokens are kept hashed (SHA-256: they
 * are 256-bit random, so a slow hash adds nothing) and looked up through an in-memory index so
 * that authorising a request never touches the disk.
 */
export class TokenService {
  private readonly byHash = new Map<string, Row>();
  private windowUntil = 0;
  /** The apps the current press approved, with the token once issued (duplicate polls get the same one). */
  private pressed = new Map<string, string | undefined>();
  /** The current press found no app waiting: the first app to poll within the window takes it. */
  private claimable = false;
  private readonly waiting = new Map<string, number>();
  private readonly approved = new Map<string, PerApp>();
  private readonly denied = new Map<string, PerApp>();
  /** Refusals already told in this window (`token#denied`): a page polls every second. */
  private readonly toldRefusals = new Set<string>();
  private readonly dirtyLastUsed = new Set<string>();
  private lastFlush = 0;

  /** `bus` carries the link and token events (apps waiting, revocations) to the console and the streams. */
  constructor(
    private readonly db: Db,
    private readonly windowMs: number,
    private readonly clock: Clock = systemClock,
    private readonly bus?: EventBus,
  ) {
    for (const row of db.prepare<[], Row>('SELECT * FROM tokens').all()) this.byHash.set(row.hash.toString('hex'), row);
  }

  /** Opens the link window (the hardware button, or `by` the console's confirmation). */
  press(by?: Actor): PressResult {
    const now = this.clock.now();
    this.windowUntil = now + this.windowMs;
    this.toldRefusals.clear();
    const approved = this.waitingApps().slice(-MAX_APPS_PER_PRESS);
    this.pressed = new Map(approved.map((app) => [app, undefined]));
    this.claimable = approved.length === 0;
    for (const app of approved) this.waiting.delete(app);
    this.bus?.publish('link#window', { payload: this.windowState() }, by);
    if (approved.length > 0) this.bus?.publish('link#waiting', { payload: { apps: this.waitingApps() } });
    return { window_until: new Date(this.windowUntil).toISOString(), waiting_apps: approved };
  }

  /** Closes the link window now. */
  closeWindow(): void {
    const wasOpen = this.clock.now() < this.windowUntil;
    this.windowUntil = 0;
    this.pressed = new Map();
    this.claimable = false;
    if (wasOpen) this.bus?.publish('link#window', { payload: { open: false, until: null } });
  }

  /** Whether the link window is open, and until when. */
  windowState(): { open: boolean; until: string | null } {
    const open = this.clock.now() < this.windowUntil;
    return { open, until: open ? new Date(this.windowUntil).toISOString() : null };
  }

  /** Apps that polled for a token recently and are not yet served. */
  waitingApps(): string[] {
    const cutoff = this.clock.now() - WAITING_MS;
    const apps: string[] = [];
    for (const [app, at] of this.waiting) {
      if (at < cutoff) this.waiting.delete(app);
      else apps.push(app);
    }
    return apps;
  }

  /**
   * Approves one app (the console's pop-up): its next poll within the window gets a token. The
   * app leaves the waiting list, so the pop-up closes on every console. `''` is a client that
   * sends no app_name.
   */
  approve(appName: string): Decision {
    return this.decide(appName, this.approved, this.denied);
  }

  /** Denies one app for the window: its polls keep getting the refusal and it stops showing as waiting. */
  deny(appName: string, by?: Actor): Decision {
    const d = this.decide(appName, this.denied, this.approved);
    this.bus?.publish('token#denied', { payload: { app_name: appName, reason: 'in the console' } }, by);
    return d;
  }

  /**
   * Tells (`token#denied`, for the log) that a poll was refused before it reached the window
   * (a web page, a foreign Host), once per app and reason while the window is open: outside it,
   * nobody would have got a token anyway.
   */
  refusedPoll(appName: string | undefined, reason: string): void {
    if (this.clock.now() >= this.windowUntil) return;
    const key = `${appName ?? ''}\u0000${reason}`;
    if (this.toldRefusals.has(key) || this.toldRefusals.size >= MAX_WAITING) return;
    this.toldRefusals.add(key);
    this.bus?.publish('token#denied', { payload: { app_name: appName ?? null, reason } });
  }

  private decide(appName: string, into: Map<string, PerApp>, other: Map<string, PerApp>): Decision {
    const now = this.clock.now();
    prune(into, now);
    prune(other, now);
    other.delete(appName);
    // Bounded like the waiting list: decisions are keyed by names anyone on the LAN can choose.
    if (!into.has(appName) && into.size >= MAX_WAITING) into.delete(into.keys().next().value as string);
    const until = now + this.windowMs;
    into.set(appName, { until });
    this.waiting.delete(appName);
    this.bus?.publish('link#waiting', { payload: { apps: this.waitingApps() } });
    return { ok: true, app_name: appName, until: new Date(until).toISOString() };
  }

  /** Answers one G1 poll: a token inside the window (or the app's own approval), else a refusal. */
  poll(appName: string | undefined): Grant {
    const key = appName ?? '';
    const now = this.clock.now();
    const approval = this.approved.get(key);
    if (approval && now < approval.until) {
      approval.token ??= this.create(appName ?? null);
      return appName === undefined
        ? { ok: true, token: approval.token }
        : { ok: true, token: approval.token, app_name: appName };
    }
    const denial = this.denied.get(key);
    if (denial && now < denial.until) return { ok: false };
    if (now < this.windowUntil) {
      if (this.claimable && !this.pressed.has(key)) {
        this.claimable = false;
        this.pressed.set(key, undefined);
      }
      if (this.pressed.has(key)) {
        const token = this.pressed.get(key) ?? this.create(appName ?? null);
        this.pressed.set(key, token);
        this.waiting.delete(key);
        return appName === undefined ? { ok: true, token } : { ok: true, token, app_name: appName };
      }
    }
    // Not approved: the app waits (shown on the console, approved by the next press).
    const isNew = !this.waiting.has(key);
    if (isNew && this.waiting.size >= MAX_WAITING) {
      const oldest = this.waiting.keys().next().value as string;
      this.waiting.delete(oldest);
    }
    this.waiting.delete(key);
    this.waiting.set(key, now);
    if (isNew) this.bus?.publish('link#waiting', { payload: { apps: this.waitingApps() } });
    return { ok: false };
  }

  /** Creates and stores a token (committed before it is returned). */
  create(appName: string | null): string {
    const token = randomBytes(32).toString('base64url');
    const row: Row = {
      id: this.newId(),
      hash: hashToken(token),
      app_name: appName,
      created_at: new Date(this.clock.now()).toISOString(),
      last_used_at: null,
    };
    this.db
      .prepare('INSERT INTO tokens (id, hash, app_name, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)')
      .run(row.id, row.hash, row.app_name, row.created_at, row.last_used_at);
    this.byHash.set(row.hash.toString('hex'), row);
    this.bus?.publish('token#issued', { payload: { token_id: row.id, app_name: row.app_name } });
    return token;
  }

  /** A short id for the CLI (`tokens revoke ID`), unique among stored tokens. */
  private newId(): string {
    const taken = new Set([...this.byHash.values()].map((r) => r.id));
    let id = randomBytes(6).toString('hex');
    while (taken.has(id)) id = randomBytes(6).toString('hex');
    return id;
  }

  /** Checks a token; returns its info when valid. Compares the stored hash in constant time. */
  verify(token: string | undefined | null): TokenInfo | null {
    if (!token) return null;
    const hash = hashToken(token);
    const row = this.byHash.get(hash.toString('hex'));
    if (!row || !timingSafeEqual(row.hash, hash)) return null;
    row.last_used_at = new Date(this.clock.now()).toISOString();
    this.dirtyLastUsed.add(row.id);
    if (this.clock.now() - this.lastFlush > LAST_USED_FLUSH_MS) this.flush();
    return toInfo(row);
  }

  /** Writes pending last-used times (they are kept in memory between flushes). */
  flush(): void {
    this.lastFlush = this.clock.now();
    if (this.dirtyLastUsed.size === 0) return;
    const stmt = this.db.prepare('UPDATE tokens SET last_used_at = ? WHERE id = ?');
    const rows = [...this.byHash.values()].filter((r) => this.dirtyLastUsed.has(r.id));
    this.db.transaction(() => {
      for (const r of rows) stmt.run(r.last_used_at, r.id);
    })();
    this.dirtyLastUsed.clear();
  }

  /** Every stored token, oldest first. */
  list(): TokenInfo[] {
    // ISO instants sort as text; localeCompare would load ICU's collation data (docs/benchmarks.md).
    return [...this.byHash.values()]
      .map(toInfo)
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : 0));
  }

  /** Revokes one token by its id (`by` whom, for the activity log); false when there is none. */
  revoke(id: string, by?: Actor): boolean {
    const changes = this.db.prepare('DELETE FROM tokens WHERE id = ?').run(id).changes;
    for (const [key, row] of this.byHash) if (row.id === id) this.byHash.delete(key);
    // The app stays approved by the press: its next poll in the window gets a new token.
    for (const [app, token] of this.pressed) if (token && !this.verifyQuiet(token)) this.pressed.set(app, undefined);
    for (const [app, a] of this.approved) if (a.token && !this.verifyQuiet(a.token)) this.approved.delete(app);
    if (changes > 0) this.bus?.publish('token#revoked', { payload: { token_id: id } }, by);
    return changes > 0;
  }

  /**
   * Clears every token (factory reset). `announce` false leaves the `token#cleared` event (which
   * ends every stream) to the caller: a reset announces it after the other events of the reset.
   */
  clear(announce = true): void {
    this.db.prepare('DELETE FROM tokens').run();
    this.byHash.clear();
    this.approved.clear();
    this.denied.clear();
    this.closeWindow();
    if (announce) this.announceCleared();
  }

  /** Tells the streams that every token is gone. */
  announceCleared(): void {
    this.bus?.publish('token#cleared', { payload: {} });
  }

  private verifyQuiet(token: string): boolean {
    return this.byHash.has(hashToken(token).toString('hex'));
  }
}

function prune(decisions: Map<string, PerApp>, now: number): void {
  for (const [app, d] of decisions) if (d.until <= now) decisions.delete(app);
}

function toInfo(row: Row): TokenInfo {
  return { id: row.id, app_name: row.app_name, created_at: row.created_at, last_used_at: row.last_used_at };
}
