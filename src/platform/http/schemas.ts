import { z } from 'zod';

/** Money at the edge (docs/api.md#conventions, docs/api.md#payouts): see money-input.ts; handlers get integer minor units of the program currency. */
export { moneyField } from './money-input.js';

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
