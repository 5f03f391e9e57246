/**
 * How many console logins are checked, from whom, and how many at once (issue 24). A password
 * check is slow on purpose (scrypt: 32 MiB and tenths of a second), so a flood of logins is a
 * flood of guesses and of CPU and memory unless it is bounded before the check starts:
 *
 * - **An attempt is counted when it arrives, before it is checked.** Each caller has a budget of
 *   `maxFailures` attempts per window; an attempt sent while another from the same caller is
 *   being checked is counted and refused at once (429, try again in a moment). So logins sent in
 *   parallel get no more guesses than logins sent one after the other. A right password gives
 *   the caller's budget back.
 * - **A caller** is a browser that logged in before (its signed device cookie, device-cookie.ts),
 *   else the source address (an IPv6 address by its /64: one host holds a whole prefix).
 * - **Callers the gateway does not know share one budget** (`maxUnknownFailures` per window),
 *   so that many source addresses are not many budgets. Once it is spent, unknown callers are
 *   refused until the window ends; **known browsers are never counted in it** and have check slots
 *   of their own: a flood from any number of addresses cannot lock out a browser that logged in
 *   before. A new browser logs in from a known one, after the window, or after
 *   `opencube passwd`.
 * - **Checks in flight** are at most one per caller, `maxUnknownInFlight` for unknown callers in
 *   all and `maxKnownInFlight` for known ones: the CPU and memory of a flood are those of a few
 *   checks, whatever its size. Refusals cost no check.
 *
 * Budgets are kept in memory (a restart forgets them, as it would a lockout) for at most
 * MAX_TRACKED callers, the oldest forgotten first. Time is the injected clock.
 */
import { ipv6Groups } from '../../lib/address-reach.ts';
import type { Clock } from '../../lib/clock.ts';

/** Who is logging in: a known browser (its device id, verified) or an address. */
export interface Caller {
  address: string;
  /** The id of a device cookie this gateway signed, when the request carries one. */
  device?: string;
}

export type LimitRefusal = { retryAfterSeconds: number; message: string };

/** An attempt allowed to be checked: end it with its result. */
export interface Attempt {
  end(succeeded: boolean): void;
}

export interface LimiterOptions {
  clock: Clock;
  /** Attempts per caller per window. */
  maxFailures?: number;
  windowMs?: number;
  /** Attempts of every unknown caller together, per window. */
  maxUnknownFailures?: number;
  maxUnknownInFlight?: number;
  maxKnownInFlight?: number;
  /** Told once when a caller, or every unknown caller, is refused for the rest of a window. */
  onLockout?: (caller: Caller, scope: 'caller' | 'unknown', minutes: number) => void;
}

interface Budget {
  count: number;
  first: number;
  inFlight: number;
  /** The lockout of this window was told (onLockout), at its first refusal. */
  told?: boolean;
}

/** Callers whose budgets are remembered at once; the oldest are forgotten first. */
const MAX_TRACKED = 1000;

/** The key of an address: IPv4 as it is (also when mapped into IPv6), IPv6 by its /64. */
export function addressKey(address: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return mapped[1] as string;
  const groups = ipv6Groups(address);
  if (!groups) return address;
  return `${groups
    .slice(0, 4)
    .map((g) => g.toString(16))
    .join(':')}::/64`;
}

export class LoginLimiter {
  private readonly maxFailures: number;
  private readonly windowMs: number;
  private readonly maxUnknown: number;
  private readonly unknownSlots: number;
  private readonly knownSlots: number;
  private readonly budgets = new Map<string, Budget>();
  private unknown: Budget = { count: 0, first: 0, inFlight: 0 };
  private knownInFlight = 0;

  constructor(private readonly opts: LimiterOptions) {
    this.maxFailures = opts.maxFailures ?? 5;
    this.windowMs = opts.windowMs ?? 15 * 60 * 1000;
    this.maxUnknown = opts.maxUnknownFailures ?? 20;
    this.unknownSlots = opts.maxUnknownInFlight ?? 2;
    this.knownSlots = opts.maxKnownInFlight ?? 2;
  }

  /** Counts an attempt of `caller`; the attempt to check, or why it is refused unchecked. */
  begin(caller: Caller): { ok: true; attempt: Attempt } | { ok: false; refusal: LimitRefusal } {
    const now = this.opts.clock.now();
    const key = caller.device ? `device ${caller.device}` : `address ${addressKey(caller.address)}`;
    const who = caller.device ? 'this browser' : 'this address';
    const budget = this.fresh(key, now);
    if (budget.count >= this.maxFailures) {
      this.tell(budget, caller, 'caller');
      return this.refuse(budget, now, `too many failed attempts from ${who}`);
    }
    const known = caller.device !== undefined;
    if (!known) {
      if (now >= this.unknown.first + this.windowMs)
        this.unknown = { count: 0, first: now, inFlight: this.unknown.inFlight };
      if (this.unknown.count >= this.maxUnknown) {
        this.tell(this.unknown, caller, 'unknown');
        return this.refuse(
          this.unknown,
          now,
          'too many failed logins on this gateway from browsers it does not know',
          ', or log in from a browser that logged in before',
        );
      }
    }
    // Counted from here on, checked or not: parallel attempts are no cheaper than serial ones.
    budget.count++;
    if (!known) this.unknown.count++;
    if (budget.inFlight >= 1)
      return {
        ok: false,
        refusal: { retryAfterSeconds: 1, message: `another login from ${who} is being checked: try again in a moment` },
      };
    if (known ? this.knownInFlight >= this.knownSlots : this.unknown.inFlight >= this.unknownSlots)
      return {
        ok: false,
        refusal: { retryAfterSeconds: 1, message: 'the gateway is checking other logins: try again in a moment' },
      };
    budget.inFlight++;
    if (known) this.knownInFlight++;
    else this.unknown.inFlight++;
    const unknownWindow = this.unknown;
    let ended = false;
    return {
      ok: true,
      attempt: {
        end: (succeeded) => {
          if (ended) return;
          ended = true;
          budget.inFlight--;
          if (known) this.knownInFlight--;
          else this.unknown.inFlight--;
          if (!succeeded) return;
          // A right password: the caller's budget back, and its one attempt off the shared one.
          this.budgets.delete(key);
          if (!known && unknownWindow === this.unknown && this.unknown.count > 0) this.unknown.count--;
        },
      },
    };
  }

  /** Tells a lockout once per window, at its first refusal. */
  private tell(b: Budget, caller: Caller, scope: 'caller' | 'unknown'): void {
    if (b.told) return;
    b.told = true;
    this.opts.onLockout?.(caller, scope, Math.ceil(this.windowMs / 60_000));
  }

  /** The caller's budget in its current window (a new one when the last ended). */
  private fresh(key: string, now: number): Budget {
    const b = this.budgets.get(key);
    if (b && (now < b.first + this.windowMs || b.inFlight > 0)) return b;
    if (b) this.budgets.delete(key);
    if (this.budgets.size >= MAX_TRACKED) {
      // The oldest budget that no check holds.
      for (const [k, old] of this.budgets)
        if (old.inFlight === 0) {
          this.budgets.delete(k);
          break;
        }
    }
    const next: Budget = { count: 0, first: now, inFlight: 0 };
    this.budgets.set(key, next);
    return next;
  }

  private refuse(b: Budget, now: number, why: string, hint = ''): { ok: false; refusal: LimitRefusal } {
    const retryAfterSeconds = Math.max(1, Math.ceil((b.first + this.windowMs - now) / 1000));
    const minutes = Math.ceil(retryAfterSeconds / 60);
    return {
      ok: false,
      refusal: {
        retryAfterSeconds,
        message: `${why}: try again in ${minutes} minute${minutes > 1 ? 's' : ''}${hint}`,
      },
    };
  }
}
