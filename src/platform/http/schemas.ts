import { z } from 'zod';
import { refCodeSchema } from '../../loop/affiliates/affiliate.schemas.js';
import { MAX_AMOUNT_CENTS, toCents } from '../money.js';

/**
 * A money amount at the edge (docs/api.md#conventions): a JSON number, at most 2 decimals, 0 < amount <= 1e9.
 * Parses to integer cents so nothing after the edge sees a float.
 */
export const moneyCentsField = z
  .custom<number>((v) => {
    const cents = toCents(v);
    return cents !== undefined && cents > 0 && cents <= MAX_AMOUNT_CENTS;
  }, 'must be a number greater than 0 and at most 1000000000 with at most 2 decimal places')
  .meta({ type: 'number', exclusiveMinimum: 0, maximum: 1_000_000_000, multipleOf: 0.01, description: 'At most 2 decimal places' })
  .transform((v) => toCents(v) as number);

/** docs/api.md#conventions: 1–64 characters of A–Z a–z 0–9 _ -, case-sensitive (declared once, with the affiliates). */
export const refCodeField = refCodeSchema;

// Deliberately looser than z.email(): mail domains may be single labels (SVC_MAIL_DOMAINS=localhost) or
// have numeric TLDs, and an order for such a mailbox must still be accepted and attributed.
const EMAIL_RE = /^[^\s@"<>(),;:\\[\]]{1,64}@[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/;

/** Trimmed and lower-cased, since emails are compared case-insensitively (docs/api.md#conventions). */
export const emailField = z
  .string()
  .trim()
  .max(320, 'must be at most 320 characters')
  .toLowerCase()
  .refine((v) => EMAIL_RE.test(v), 'must be a valid email address');
