import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { Withdrawal } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { moneyCentsField, refCodeField } from '../../platform/http/schemas.js';
import { fromCents } from '../../platform/money.js';

// A withdrawal at the edge: the requests, the body every route and export answers with, its type and
// the mapper from a row (cents inside, decimals here).

export const requestWithdrawalSchema = z.object({ ref_code: refCodeField, amount: moneyCentsField });

export const listWithdrawalsSchema = listQuerySchema.extend({
  status: z.enum(['requested', 'paid', 'rejected']).optional(),
  ref_code: refCodeField.optional(),
});

export const withdrawalBody = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  amount: money,
  status: z.enum(['requested', 'paid', 'rejected']),
  created_at: isoTime,
});

/** A withdrawal as the API shows it; the type is the body's, so the two cannot drift. */
export type WithdrawalView = z.infer<typeof withdrawalBody>;

export function withdrawalView(w: Withdrawal): WithdrawalView {
  return { id: w.id, ref_code: w.ref_code, amount: fromCents(w.amount_cents), status: w.status, created_at: toIso(w.created_at) };
}
