/** How many decimals a currency has (docs/api.md#payouts), from the browser's ISO 4217 data: JPY 0, USD 2, KWD 3. */
export function currencyDigits(currency: string | undefined): number {
  if (!currency) return 2;
  try {
    return new Intl.NumberFormat('en-US', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** An amount with its currency's decimals ("1,234" JPY, "10.50" USD, "1.125" KWD); the code is shown beside it where it matters. */
export function money(n: number | null | undefined, currency?: string): string {
  if (n === null || n === undefined) return '—';
  const digits = currencyDigits(currency);
  return n.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** An amount with its currency code: "10.50 USD". */
export function moneyWith(n: number | null | undefined, currency: string | undefined): string {
  return currency ? `${money(n, currency)} ${currency}` : money(n);
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

/** Payout details as the API answers them (docs/api.md#payouts). */
export interface PayoutDetailsLike {
  readonly method: 'paypal' | 'wise' | 'sepa' | 'other';
  readonly email?: string;
  readonly iban?: string;
  readonly bic?: string;
  readonly account_holder?: string;
  readonly note?: string;
}

/** One line: "PayPal: a@b.c", "SEPA: DE89… COBADEFFXXX (Jane Doe)", or the note. */
export function describePayout(d: PayoutDetailsLike): string {
  if (d.method === 'paypal') return `PayPal: ${d.email ?? ''}`;
  if (d.method === 'wise') return `Wise: ${d.email ?? ''}`;
  if (d.method === 'sepa') return `SEPA: ${d.iban ?? ''}${d.bic ? ` ${d.bic}` : ''} (${d.account_holder ?? ''})`;
  return d.note ?? '';
}

/** A write-only secret as the settings answers show it (docs/api.md#settings): never its value. */
export interface SecretState {
  readonly set: boolean;
  readonly last4: string | null;
}

/** "set, ends in …abcd" or "not set". */
export function secretStatus(s: SecretState | undefined): string {
  return s?.set ? `set, ends in …${s.last4 ?? ''}` : 'not set';
}

/** The empty field's placeholder: what is kept when nothing is typed. */
export function secretPlaceholder(s: SecretState | undefined): string {
  return s?.set ? `Unchanged (…${s.last4 ?? ''}); type a new one to replace it` : 'Not set';
}
