import { z } from 'zod';
import { MAX_AMOUNT_CENTS, toCents } from '../money.js';

/**
 * A money amount at the edge (CONTRACT §1): a JSON number, at most 2 decimals, 0 < amount <= 1e9.
 * Parses to integer cents so nothing after the edge sees a float.
 */
export const moneyCentsField = z
  .custom<number>((v) => {
    const cents = toCents(v);
    return cents !== undefined && cents > 0 && cents <= MAX_AMOUNT_CENTS;
  }, 'must be a number greater than 0 and at most 1000000000 with at most 2 decimal places')
  .transform((v) => toCents(v) as number);

/** CONTRACT §1: 1–64 characters of A–Z a–z 0–9 _ -, case-sensitive. */
export const refCodeField = z.string().regex(/^[A-Za-z0-9_-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ -');

/** Trimmed and lower-cased, since emails are compared case-insensitively (CONTRACT §1). */
export const emailField = z
  .string()
  .trim()
  .max(320)
  .toLowerCase()
  .pipe(z.email({ message: 'must be a valid email address' }));
