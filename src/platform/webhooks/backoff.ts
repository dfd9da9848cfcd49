/** Waits after attempt 1, 2, …: about 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h; then the delivery fails. */
export const RETRY_DELAYS_MS: readonly number[] = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** A receiver's Retry-After is honoured only within these bounds, so it can neither spin us nor park an event forever. */
export const RETRY_AFTER_MIN_MS = 1_000;
export const RETRY_AFTER_MAX_MS = 36_000_000;

/**
 * Delay before the next attempt after `attempts` failed ones, or undefined when none is left.
 * ±10 % jitter spreads retries of many events failing together; a Retry-After replaces the schedule.
 */
export function nextDelayMs(attempts: number, retryAfterMs: number | undefined, random: () => number = Math.random): number | undefined {
  const base = RETRY_DELAYS_MS[attempts - 1];
  if (base === undefined) return undefined;
  if (retryAfterMs !== undefined) return Math.min(RETRY_AFTER_MAX_MS, Math.max(RETRY_AFTER_MIN_MS, retryAfterMs));
  return Math.round(base * (0.9 + 0.2 * random()));
}

/** Retry-After as delta-seconds or an HTTP date; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | undefined, nowMs: number): number | undefined {
  if (!value) return undefined;
  const v = value.trim();
  if (/^\d+$/.test(v)) return Number(v) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}
