import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { countInWindow, purgeWindows, windowEnd } from './limits.repository.js';

export interface RateLimit {
  /** Requests allowed in one window. */
  readonly max: number;
  readonly windowMs: number;
}

export interface WindowCount {
  /** Requests counted in the window, this one included; over the limit's max means refused (at most max + 1). */
  readonly count: number;
  /** When the window ends and counting starts again. */
  readonly resetsAt: number;
}

/**
 * Fixed-window request counters in the database, so that a limit holds for the sum of the requests on
 * every instance sharing it (CONTRACT §16): the window of a (scope, client) starts with its first request
 * and lasts `windowMs`, like @fastify/rate-limit's own store. One statement per request, atomic on both
 * databases; a request over the limit writes nothing. Proved by test/integration/shared-limits.test.ts.
 */
export class RateWindows {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  /** Counts one request of `key` within `scope`. */
  async hit(scope: string, key: string, limit: RateLimit): Promise<WindowCount> {
    const now = this.clock.now();
    const counted = await countInWindow(this.db, { scope, key, now, resetsAt: now + limit.windowMs, max: limit.max });
    if (counted) return { count: counted.n, resetsAt: counted.resets_at };
    // Refused without a write; the window cannot have ended since (it was live at `now`), only been purged.
    return { count: limit.max + 1, resetsAt: (await windowEnd(this.db, scope, key)) ?? now + limit.windowMs };
  }

  /** Deletes the windows that have ended (the per-minute retention job). */
  purgeEnded(): Promise<number> {
    return purgeWindows(this.db, this.clock.now());
  }
}
