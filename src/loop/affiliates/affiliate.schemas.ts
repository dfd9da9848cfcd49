import { z } from 'zod';
import { stripInvisible } from '../../platform/plain-text.js';
import { toIso } from '../../platform/clock.js';
import type { Affiliate } from '../../platform/db/schema.js';
import { isoTime } from '../../platform/http/openapi.js';
import { fromRateBp } from '../../platform/money.js';
import { rateBpField } from '../ledger/rate.js';
import { payoutDetailsBody } from '../payouts/payout-details.js';

// An affiliate at the edge: the requests, the body every route answers with, its type and the mapper
// from a row.

/** docs/api.md#conventions: 1–64 characters of A–Z a–z 0–9 _ -, case-sensitive. */
export const REF_CODE_RE = /^[A-Za-z0-9_-]{1,64}$/;

export function isValidRefCode(value: unknown): value is string {
  return typeof value === 'string' && REF_CODE_RE.test(value);
}

export const refCodeSchema = z.string().max(64, 'must be 1-64 characters of A-Z a-z 0-9 _ -').regex(REF_CODE_RE, 'must be 1-64 characters of A-Z a-z 0-9 _ -');

const nameSchema = z
  .string()
  // docs/api.md#payouts: names reach CSV files and mail; control and invisible characters never do
  .overwrite(stripInvisible)
  .trim()
  .max(200)
  .nullable()
  .transform((v) => (v ? v : null));

const emailSchema = z
  .string()
  .trim()
  .toLowerCase()
  .max(320)
  .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address')
  .nullable()
  .or(z.literal('').transform(() => null));

const rateSchema = rateBpField.nullable();

export const createAffiliateSchema = z
  .object({
    ref_code: refCodeSchema,
    name: nameSchema.optional(),
    email: emailSchema.optional(),
    commission_rate: rateSchema.optional(),
  })
  .strict();

export const updateAffiliateSchema = z
  .object({
    status: z.enum(['active', 'disabled']),
    name: nameSchema,
    email: emailSchema,
    commission_rate: rateSchema,
  })
  .partial()
  .strict();

export type CreateAffiliateInput = z.infer<typeof createAffiliateSchema>;
export type UpdateAffiliateInput = z.infer<typeof updateAffiliateSchema>;

export const affiliateBody = z.strictObject({
  ref_code: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(['active', 'disabled', 'pending']).meta({ description: 'pending: signed up on the portal, awaiting approval (PATCH status active)' }),
  commission_rate: z.number().nullable().meta({ description: 'Percent; null means the commission_rate setting applies' }),
  created_at: isoTime,
  payout_details: payoutDetailsBody.nullable().optional().meta({ description: 'Where its money goes (docs/api.md#payouts); in the answers about one affiliate, not in lists' }),
});

/** The affiliate as the API shows it; the type is the body's, so the two cannot drift. */
export type AffiliateJson = z.infer<typeof affiliateBody>;

export function affiliateJson(a: Affiliate): AffiliateJson {
  return {
    ref_code: a.ref_code,
    name: a.name,
    email: a.email,
    status: a.status,
    commission_rate: a.commission_rate_bp === null ? null : fromRateBp(a.commission_rate_bp),
    created_at: toIso(a.created_at),
  };
}
