import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { Withdrawal } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { moneyField } from '../../platform/http/schemas.js';
import { refCodeSchema as refCodeField } from '../affiliates/affiliate.schemas.js';
import { payoutDetailsBody, readPayoutDetails } from '../payouts/payout-details.js';
import { type Currency, fromMinor } from '../../platform/money.js';

// A withdrawal at the edge: the requests, the body every route and export answers with, its type and
// the mapper from a row (cents inside, decimals here).

export const requestWithdrawalSchema = z.object({ ref_code: refCodeField, amount: moneyField });

export const listWithdrawalsSchema = listQuerySchema.extend({
  status: z.enum(['requested', 'paid', 'rejected']).optional(),
  ref_code: refCodeField.optional(),
});

export const withdrawalBody = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  amount: money,
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency (docs/api.md#payouts)' }),
  status: z.enum(['requested', 'paid', 'rejected']),
  payout: payoutDetailsBody.nullable().meta({ description: 'Where it is paid to, as it was when requested (docs/api.md#payouts); null for withdrawals made before payouts' }),
  batch_id: z.string().nullable().meta({ description: 'The payout batch it is in, if any' }),
  created_at: isoTime,
});

/** A withdrawal as the API shows it; the type is the body's, so the two cannot drift. */
export type WithdrawalView = z.infer<typeof withdrawalBody>;

export function withdrawalView(w: Withdrawal, cur: Currency): WithdrawalView {
  return {
    id: w.id,
    ref_code: w.ref_code,
    amount: fromMinor(w.amount_cents, cur),
    currency: cur.code,
    status: w.status,
    payout: w.payout === null ? null : readPayoutDetails(w.payout),
    batch_id: w.batch_id,
    created_at: toIso(w.created_at),
  };
}
