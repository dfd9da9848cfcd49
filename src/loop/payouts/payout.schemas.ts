import { z } from 'zod';
import { isoTime, money } from '../../platform/http/openapi.js';
import { PAYOUT_METHODS } from './payout-details.js';

/** docs/api.md#payouts: a payout batch and what is owed, as the API answers them (PayoutService builds them). */
export const batchBody = z.strictObject({
  id: z.string(),
  method: z.enum(PAYOUT_METHODS),
  status: z.enum(['open', 'paid']),
  currency: z.string(),
  total: money,
  count: z.number().int(),
  withdrawal_ids: z.array(z.string()),
  file_parts: z
    .number()
    .int()
    .meta({
      description:
        'How many files the provider takes this batch in (`GET …/file?part=N`): PayPal uploads at most 5,000 rows per file, Wise 1,000; SEPA is one file; `other` has none (0)',
    }),
  created_at: isoTime,
  paid_at: isoTime.nullable(),
});

export const owedBody = z.strictObject({
  success: z.literal(true),
  owed: z.array(z.strictObject({ method: z.string(), currency: z.string(), count: z.number().int(), total: money })),
});

/** A batch as the API shows it. */
export type BatchView = z.infer<typeof batchBody>;
