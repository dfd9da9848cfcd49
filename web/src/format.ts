export function money(n: number | null | undefined): string {
  if (n === null || n === undefined) return '—';
  return n.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
}

export function percent(ratio: number): string {
  return `${(ratio * 100).toFixed(1)}%`;
}

/**
 * Mailboxes per click (the summary's conversion_rate): a share, "64.3%", while it is one; above one (a
 * visitor's cookie may bring several mailboxes from one click) "4.00 per click", since "400.0%" reads like a bug.
 */
export function conversion(ratio: number): string {
  return ratio <= 1 ? percent(ratio) : `${ratio.toFixed(2)} per click`;
}

/**
 * A count per mailbox (the summary's order_rate, orders ÷ mailboxes): "1.50", not "150.0 %", since a
 * mailbox may order more than once and a share above 100 % reads like a bug.
 */
export function perMailbox(ratio: number): string {
  return ratio.toFixed(2);
}

export function dateTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : d.toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'short' });
}

/** "in 3 h", "in 12 min", "5 min ago". */
export function relative(ms: number, now = Date.now()): string {
  const diff = ms - now;
  const abs = Math.abs(diff);
  const text = abs < 60_000 ? 'less than a minute' : abs < 3_600_000 ? `${Math.round(abs / 60_000)} min` : abs < 172_800_000 ? `${Math.round(abs / 3_600_000)} h` : `${Math.round(abs / 86_400_000)} days`;
  return diff >= 0 ? `in ${text}` : `${text} ago`;
}

export function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  return `${(n / 1024 / 1024).toFixed(1)} MB`;
}

export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10);
}

/** The start of a `YYYY-MM-DD` day (UTC), in ms. */
export function dayMs(day: string): number {
  return Date.parse(`${day}T00:00:00Z`);
}

/** "Jan 5" (UTC: the report's days are UTC days). */
export function shortDay(day: string): string {
  return new Date(dayMs(day)).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
}
