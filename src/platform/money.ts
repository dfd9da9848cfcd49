/** Money is integer cents inside; decimal numbers only at the edge (docs/ledger.md#money-and-rates). */

export const MAX_AMOUNT_CENTS = 1_000_000_000 * 100;

/** Decimal JSON number with at most 2 decimals -> integer cents, or undefined when it is not one. */
export function toCents(value: unknown): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const cents = Math.round(value * 100);
  if (!Number.isSafeInteger(cents)) return undefined;
  // At most two decimal places, exactly: a JSON number d with two places parses to the double nearest
  // d, and cents / 100 (correctly rounded) is that same double, so anything else had more places.
  // A tolerance here let 123456789.123 through as .12 once amounts reached 1e7.
  if (cents / 100 !== value) return undefined;
  return cents;
}

export function fromCents(cents: number): number {
  return cents / 100;
}

/** Rate in percent with up to 2 decimals -> basis points of a percent (hundredths of a percent). */
export function toRateBp(value: unknown): number | undefined {
  const bp = toCents(value);
  if (bp === undefined || bp < 0 || bp > 10000) return undefined;
  return bp;
}

/** commission = amount × rate / 100, rounded half-up to the cent, exactly in integers. rateBp is percent×100. */
export function commissionCents(amountCents: number, rateBp: number): number {
  // amount × (rateBp / 100) / 100 = amount × rateBp / 10000
  const num = BigInt(amountCents) * BigInt(rateBp);
  const q = num / 10000n;
  const r = num % 10000n;
  return Number(r * 2n >= 10000n ? q + 1n : q);
}

/**
 * The program's currency (docs/api.md#payouts): an ISO 4217 code and its minor unit, from the platform's ISO 4217
 * data (Intl), never a table of our own. Amounts are integer minor units inside (cents for USD, yen for
 * JPY, fils for KWD); `digits` is where the decimal point goes at the edge.
 */
export interface Currency {
  readonly code: string;
  readonly digits: number;
}

const ISO_CODES = new Set(Intl.supportedValuesOf('currency'));

/** Each currency asked for, once: building an Intl.NumberFormat costs about 30 µs, and money requests ask several times. */
const KNOWN = new Map<string, Currency>();

/** The currency with that ISO 4217 code, or undefined when the platform does not know it as one. */
export function currencyOf(code: string): Currency | undefined {
  const known = KNOWN.get(code);
  if (known) return known;
  if (!/^[A-Z]{3}$/.test(code) || !ISO_CODES.has(code)) return undefined;
  const digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
  const currency = { code, digits };
  KNOWN.set(code, currency);
  return currency;
}

export const USD: Currency = { code: 'USD', digits: 2 };

/** The largest amount anywhere (docs/api.md#conventions: 1000000000 of the major unit), in minor units. */
export function maxMinor(cur: Currency): number {
  return 1_000_000_000 * 10 ** cur.digits;
}

/** A decimal JSON number with at most `cur.digits` decimals -> integer minor units, else undefined (same exactness argument as toCents). */
export function toMinor(value: unknown, cur: Currency): number | undefined {
  if (typeof value !== 'number' || !Number.isFinite(value)) return undefined;
  const scale = 10 ** cur.digits;
  const minor = Math.round(value * scale);
  if (!Number.isSafeInteger(minor) || minor / scale !== value) return undefined;
  return minor;
}

/** Integer minor units -> the JSON number (correctly rounded division: 1125 fils is 1.125, never 1.1249999). */
export function fromMinor(minor: number, cur: Currency): number {
  return minor / 10 ** cur.digits;
}

/** Minor units as text with exactly the currency's decimals ("1234" for JPY, "1.125" for KWD, "-12.50" for USD). */
export function minorText(minor: number, cur: Currency): string {
  const abs = Math.abs(minor);
  const sign = minor < 0 ? '-' : '';
  if (cur.digits === 0) return `${sign}${abs}`;
  const scale = 10 ** cur.digits;
  return `${sign}${Math.trunc(abs / scale)}.${String(abs % scale).padStart(cur.digits, '0')}`;
}

/** A stored amount moved to a currency with other decimals, keeping its value; undefined when not exact (KWD 1.125 -> JPY). */
export function rescaleMinor(minor: number, from: Currency, to: Currency): number | undefined {
  if (to.digits >= from.digits) return minor * 10 ** (to.digits - from.digits);
  const div = 10 ** (from.digits - to.digits);
  return minor % div === 0 ? minor / div : undefined;
}

/** Basis points of a percent back to the percent the API shows. */
export function fromRateBp(bp: number): number {
  return bp / 100;
}
