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
