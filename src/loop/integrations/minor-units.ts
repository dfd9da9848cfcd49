/**
 * A provider's amount in its currency's minor unit, as svc's cents (hundredths of the major unit), or
 * undefined when not exact. Stripe's zero-decimal currencies count whole units (¥1000 is 1000) and its
 * three-decimal ones thousandths; the others hundredths (stripe.com/docs/currencies). Paddle and Lemon
 * Squeezy use the same lowest denominations.
 */
const ZERO_DECIMAL = new Set(['BIF', 'CLP', 'DJF', 'GNF', 'JPY', 'KMF', 'KRW', 'MGA', 'PYG', 'RWF', 'UGX', 'VND', 'VUV', 'XAF', 'XOF', 'XPF']);
const THREE_DECIMAL = new Set(['BHD', 'JOD', 'KWD', 'OMR', 'TND']);

export function minorToCents(minor: number, currency: string): number | undefined {
  if (!Number.isSafeInteger(minor) || minor < 0) return undefined;
  const code = currency.toUpperCase();
  if (ZERO_DECIMAL.has(code)) return Number.isSafeInteger(minor * 100) ? minor * 100 : undefined;
  if (THREE_DECIMAL.has(code)) return minor % 10 === 0 ? minor / 10 : undefined;
  return minor;
}

/** A minor-unit amount sent as a number or a string of digits (Paddle), else undefined. */
export function minorAmount(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
  if (typeof value === 'string' && /^\d{1,15}$/.test(value)) return Number(value);
  return undefined;
}
