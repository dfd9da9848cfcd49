import type { Clock } from '../clock.js';
import { type Db, type Executor, inTransaction } from '../db/database.js';
import { RateLimitedError } from '../errors.js';
import { clientKey } from '../http/client-address.js';
import {
  attemptsSince,
  deleteAttempts,
  deleteExpiredAttempts,
  insertAttempt,
  lockThrottleKey,
  purgeLoginThrottle,
} from './login-throttle.repository.js';

/** CONTRACT §11: at most 5 failed attempts per client IP and per user name in 15 minutes. */
export const LOGIN_THROTTLE = Object.freeze({ maxFailures: 5, windowMs: 15 * 60 * 1000 });

export interface LoginThrottleLimits {
  readonly maxFailures: number;
  readonly windowMs: number;
}

/** An attempt that has been counted; a failure needs nothing more, a success calls succeeded(). */
export interface LoginAttempt {
  succeeded(): Promise<void>;
}

/**
 * Throttles password logins of one scope (`admin`; the affiliate portal's logins get their own) per
 * client IP (an IPv6 /64 counts as one client) and per user name, in a sliding window.
 *
 * Every attempt is counted BEFORE its password is hashed, atomically: the keys' lock rows are taken in
 * one order, the attempts in the window counted, and the attempt inserted only when both keys are
 * under the limit, in one transaction. So N parallel guesses get at most `maxFailures` password checks
 * between them, on one instance or many sharing the database; the rest are refused at once (429,
 * Retry-After: when the oldest counted attempt leaves the window). A refused attempt is not counted,
 * so hammering does not extend a lockout.
 *
 * A success forgives, and is not counted itself: the user name's attempts are cleared (its owner has
 * proved the password), and so are the address's attempts at that user name (the owner's typos). The
 * address's attempts at other user names stay until they age out, so logging in to one account buys
 * no guesses at others (password spraying from one address stays limited).
 */
export class LoginThrottle {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    readonly scope: string,
    private readonly limits: LoginThrottleLimits = LOGIN_THROTTLE,
  ) {}

  /** Counts one attempt of `username` from `ip`; throws RateLimitedError (429) when either is at the limit. */
  async begin(ip: string, username: string): Promise<LoginAttempt> {
    const now = this.clock.now();
    const since = now - this.limits.windowMs;
    const userKey = `user:${username.trim().toLowerCase()}`;
    const ipKey = `ip:${clientKey(ip)}`;
    // Always the same order, so two attempts never wait on each other's second lock (deadlock).
    const keys = [ipKey, userKey].sort();
    /** When the fullest key has room again, or 0 when both have room now. */
    const fullUntil = async (db: Executor): Promise<number> => {
      let freeAt = 0;
      for (const key of keys) {
        const { count, oldest } = await attemptsSince(db, this.scope, key, since);
        if (count >= this.limits.maxFailures) freeAt = Math.max(freeAt, (oldest ?? now) + this.limits.windowMs);
      }
      return freeAt;
    };
    // A key already full is refused on a plain read: a flood of refused logins writes nothing and takes
    // no lock (on SQLite every write transaction would queue behind the others, /go's clicks included).
    // Counts only fall by time or a success, so a full key seen here was full.
    const seenFull = await fullUntil(this.db);
    if (seenFull > 0) throw new RateLimitedError(Math.max(1, Math.ceil((seenFull - now) / 1000)));
    const refusedUntil = await inTransaction(this.db, async (tx): Promise<number> => {
      for (const key of keys) await lockThrottleKey(tx, this.scope, key, now);
      for (const key of keys) await deleteExpiredAttempts(tx, this.scope, key, since);
      const freeAt = await fullUntil(tx);
      if (freeAt > 0) return freeAt;
      await insertAttempt(tx, { scope: this.scope, key: ipKey, pair_key: userKey, at: now });
      await insertAttempt(tx, { scope: this.scope, key: userKey, pair_key: ipKey, at: now });
      return 0;
    });
    if (refusedUntil > 0) throw new RateLimitedError(Math.max(1, Math.ceil((refusedUntil - now) / 1000)));
    return {
      succeeded: async () => {
        await deleteAttempts(this.db, this.scope, userKey);
        await deleteAttempts(this.db, this.scope, ipKey, userKey);
      },
    };
  }
}

/** Deletes throttle rows that have left every window (the per-minute retention job). */
export function purgeLoginAttempts(db: Db, clock: Clock, limits: LoginThrottleLimits = LOGIN_THROTTLE): Promise<number> {
  return purgeLoginThrottle(db, clock.now() - limits.windowMs);
}
