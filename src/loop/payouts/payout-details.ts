import { electronicFormatIBAN, isSEPACountry, isValidBIC, isValidIBAN } from 'ibantools';
import { z } from 'zod';
import { startsLikeFormula, stripInvisible } from '../../platform/plain-text.js';

/**
 * Where an affiliate's money goes (docs/api.md#payouts): structured, one method, checked at the edge. IBAN
 * checksums, country lengths and BICs are ibantools' (a maintained library with each country's IBAN
 * format), never a pattern of ours. Stored as JSON in affiliate_accounts.payout_details; free text saved
 * before this version reads as `{method: "other", note}`. Proved by test/integration/payout-details.test.ts.
 */

/**
 * Where PayPal or Wise sends the money: a plain address with a dotted domain (the payout providers need a real
 * one). Plain (docs/api.md#payouts): no invisible character, and no formula character first (`=`, `+`, `-`, `@` or a
 * full-width form), because the payout files write it as it is (payout-files.ts emailCell).
 */
const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(320, 'must be at most 320 characters')
  .regex(/^[^\s@"<>(),;:\\[\]]{1,64}@[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)+$/, 'must be a valid email address')
  .refine((v) => stripInvisible(v) === v, 'must not contain control or invisible characters')
  .refine((v) => !startsLikeFormula(v), 'must not start with =, +, - or @ (a spreadsheet would read the payout file\'s cell as a formula)');

/** Whether a stored email is one the payout files may write as it is (emailField's rule). */
export function isPlainEmail(email: string): boolean {
  return emailField.safeParse(email).success && email === email.trim().toLowerCase();
}

export const PAYOUT_METHODS = ['paypal', 'wise', 'sepa', 'other'] as const;
export type PayoutMethod = (typeof PAYOUT_METHODS)[number];

export interface PayoutDetails {
  readonly method: PayoutMethod;
  readonly email?: string;
  readonly iban?: string;
  readonly bic?: string;
  readonly account_holder?: string;
  readonly note?: string;
}

/** An IBAN as people write it (spaces, lower case) -> its electronic form, when ibantools finds it valid and of a SEPA country. */
export const ibanField = z
  .string()
  .max(64, 'must be at most 64 characters')
  .transform((v) => electronicFormatIBAN(v) ?? '')
  .refine((v) => isValidIBAN(v), 'must be a valid IBAN (its check digits or length are wrong)')
  .refine((v) => isSEPACountry(v.slice(0, 2)), 'must be an IBAN of a SEPA country');

export const bicField = z
  .string()
  .max(11, 'must be at most 11 characters')
  .trim()
  .toUpperCase()
  .refine((v) => isValidBIC(v), 'must be a valid BIC (8 or 11 characters)');

/** A name in a payout file other than SEPA's (Wise takes any script); control and invisible characters are stripped (docs/api.md#payouts). */
const nameField = (max: number) => z.string().overwrite(stripInvisible).trim().min(1, 'must not be empty').max(max, `must be at most ${max} characters`);

/**
 * Text that ends up in a payout file; converted to the SEPA character set when the file is made, so it must
 * keep a letter or digit there (a name in another script alone would reach the bank as NOTPROVIDED).
 */
export function sepaTextField(max: number) {
  return nameField(max).refine((v) => /[A-Za-z0-9]/.test(sepaPlain(v)), 'must have Latin letters or digits: SEPA files carry only those (accents are dropped)');
}

const note = z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters');

/** PATCH bodies' `payout_details`: one object per method, each with the fields that method needs (400 names the missing or wrong one). */
export const payoutDetailsField = z.discriminatedUnion('method', [
  z.strictObject({ method: z.literal('paypal'), email: emailField, note: note.optional() }),
  z.strictObject({ method: z.literal('wise'), email: emailField, account_holder: nameField(70).optional(), note: note.optional() }),
  z.strictObject({ method: z.literal('sepa'), iban: ibanField, bic: bicField.optional(), account_holder: sepaTextField(70), note: note.optional() }),
  z.strictObject({ method: z.literal('other'), note }),
]);

/** The API's shape of payout details (affiliate, portal, withdrawal snapshot). */
export const payoutDetailsBody = z
  .strictObject({
    method: z.enum(PAYOUT_METHODS),
    email: z.string().optional(),
    iban: z.string().optional(),
    bic: z.string().optional(),
    account_holder: z.string().optional(),
    note: z.string().optional(),
  })
  .meta({ description: 'paypal/wise: email; sepa: iban, account_holder (bic optional); other: note' });

/** Stored text -> details: JSON written by this version, else the free text of an older one as an `other` note. */
export function readPayoutDetails(stored: string | null | undefined): PayoutDetails | null {
  if (stored === null || stored === undefined || stored === '') return null;
  if (stored.startsWith('{')) {
    try {
      const parsed = JSON.parse(stored) as unknown;
      if (parsed && typeof parsed === 'object' && PAYOUT_METHODS.includes((parsed as PayoutDetails).method)) return parsed as PayoutDetails;
    } catch {
      // free text that happens to start with a brace
    }
  }
  return { method: 'other', note: stored };
}

export function writePayoutDetails(details: PayoutDetails | null): string | null {
  return details === null ? null : JSON.stringify(details);
}

/** Whether a payout can be sent with these details (docs/api.md#payouts: else 422 payout_details_missing). */
export function payableDetails(d: PayoutDetails | null): d is PayoutDetails {
  if (!d) return false;
  return payoutDetailsField.safeParse(d).success;
}

/** The last stored texts checked, with their verdict: every withdrawal checks its affiliate's, and they seldom change. */
const checked = new Map<string, Readonly<PayoutDetails> | null>();
const CHECKED_SIZE = 1000;

/** The stored details when a payout can be sent with them, else null (payableDetails of readPayoutDetails, kept by text). */
export function payableStoredDetails(stored: string | null | undefined): Readonly<PayoutDetails> | null {
  if (stored === null || stored === undefined) return null;
  const known = checked.get(stored);
  if (known !== undefined) return known;
  const d = readPayoutDetails(stored);
  const verdict = payableDetails(d) ? Object.freeze(d) : null;
  if (checked.size >= CHECKED_SIZE) checked.delete(checked.keys().next().value as string);
  checked.set(stored, verdict);
  return verdict;
}

/**
 * Text for a SEPA file: the SEPA character set only (EPC guidelines: a-z A-Z 0-9 / - ? : ( ) . , ' + and
 * space). Accents are dropped from their letters (é -> e, ß -> ss), anything else becomes a space, then
 * spaces are collapsed and the text cut to `max`. Proved by test/unit/currency.test.ts.
 */
export function sepaText(text: string, max: number): string {
  return sepaPlain(text).slice(0, max).trim() || 'NOTPROVIDED';
}

/** The text in the SEPA character set, whole. */
function sepaPlain(text: string): string {
  // invisible characters go before the conversion, which would turn each into a space inside a word
  return stripInvisible(text)
    .replaceAll('ß', 'ss')
    .replaceAll('Æ', 'AE')
    .replaceAll('æ', 'ae')
    .replaceAll('Ø', 'O')
    .replaceAll('ø', 'o')
    .replaceAll('Œ', 'OE')
    .replaceAll('œ', 'oe')
    .replaceAll('Ł', 'L')
    .replaceAll('ł', 'l')
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^A-Za-z0-9/\-?:().,'+ ]/g, ' ')
    .replace(/ {2,}/g, ' ')
    .trim();
}

/** One line for people (the admin's withdrawal list): "PayPal: a@b.c", "SEPA: DE89… (Jane Doe)". */
export function describePayoutDetails(d: PayoutDetails): string {
  switch (d.method) {
    case 'paypal':
      return `PayPal: ${d.email ?? ''}`;
    case 'wise':
      return `Wise: ${d.email ?? ''}`;
    case 'sepa':
      return `SEPA: ${d.iban ?? ''}${d.bic ? ` ${d.bic}` : ''} (${d.account_holder ?? ''})`;
    case 'other':
      return d.note ?? '';
  }
}
