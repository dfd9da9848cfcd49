import { CLICK_BURST_WINDOW_MS } from './signals.js';

/**
 * `click_burst` (docs/api.md#fraud-review): the counted clicks of each (affiliate, IPv4 /24 or IPv6 /48)
 * over the last 10 minutes, kept by this instance in memory. `count` says whether a click is still
 * counted (at most `limit` per window) and whether it is the first one past the limit in this burst, the
 * moment the signal fires. Entries older than the window are swept as new ones arrive, and at most
 * MAX_KEYS networks are tracked (the oldest dropped first), so a flood of addresses cannot grow it.
 */
export const MAX_KEYS = 100_000;

interface Window {
  /** Times of the counted clicks in the window, oldest first (at most `limit`). */
  times: number[];
  /** The burst was reported; cleared once the window has emptied. */
  reported: boolean;
}

export type BurstVerdict = 'counted' | 'first_past' | 'past';

export class ClickBurst {
  private readonly windows = new Map<string, Window>();
  private sweptAt = 0;

  count(refCode: string, wide: string, now: number, limit: number): BurstVerdict {
    this.sweep(now);
    const key = `${refCode}\u0000${wide}`;
    let w = this.windows.get(key);
    if (!w) {
      if (this.windows.size >= MAX_KEYS) {
        const oldest = this.windows.keys().next().value;
        if (oldest !== undefined) this.windows.delete(oldest);
      }
      w = { times: [], reported: false };
      this.windows.set(key, w);
    }
    const from = now - CLICK_BURST_WINDOW_MS;
    while (w.times.length > 0 && (w.times[0] as number) <= from) w.times.shift();
    if (w.times.length === 0) w.reported = false;
    if (w.times.length < limit) {
      w.times.push(now);
      return 'counted';
    }
    if (w.reported) return 'past';
    w.reported = true;
    return 'first_past';
  }

  /** Drops every window whose last counted click is older than the window (once a minute at most). */
  private sweep(now: number): void {
    if (now - this.sweptAt < 60_000) return;
    this.sweptAt = now;
    const from = now - CLICK_BURST_WINDOW_MS;
    for (const [key, w] of this.windows) {
      const last = w.times[w.times.length - 1];
      if (last === undefined || last <= from) this.windows.delete(key);
    }
  }
}
