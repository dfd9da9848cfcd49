import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { Commission } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { refCodeSchema as refCodeField } from '../affiliates/affiliate.schemas.js';
import { type Currency, fromMinor, fromRateBp } from '../../platform/money.js';
import { FRAUD_SIGNALS } from '../fraud/signals.js';

// A commission at the edge: the list's query, the body every route and export answers with, its type
// and the one mapper from a row (cents inside, decimals here).

export const listCommissionsSchema = listQuerySchema.extend({
  status: z.enum(['pending', 'approved', 'paid', 'void']).optional(),
  ref_code: refCodeField.optional(),
  kind: z.enum(['sale', 'clawback']).optional(),
});

export const commissionBody = z.strictObject({
  id: z.string(),
  order_id: z.string(),
  ref_code: z.string(),
  amount: money.meta({ description: 'The order amount (for a clawback: the refunded amount it claws back on)' }),
  rate: z.number().meta({ description: 'Percent applied (0 when a flat rule decided it)' }),
  commission: money.meta({ description: 'Negative for a clawback' }),
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency (docs/api.md#payouts)' }),
  status: z.enum(['pending', 'approved', 'paid', 'void']),
  kind: z.enum(['sale', 'clawback']).meta({ description: 'clawback: booked by a refund of an order whose commission was paid' }),
  rule_id: z.string().nullable().meta({ description: 'The commission rule used; null for the plain rates' }),
  void_reason: z.enum(['refunded', 'disputed', 'fraud']).nullable().meta({ description: '"refunded" when a full refund voided it, "disputed" when a dispute did, "fraud" when its fraud case was rejected' }),
  hold: z
    .strictObject({ case_id: z.string(), signal: z.enum(FRAUD_SIGNALS) })
    .nullable()
    .meta({ description: 'The open fraud case holding it (docs/api.md#fraud-review): it stays pending, is not approved by the holding period, and approving or paying it is 409 on_hold; null when not held' }),
  created_at: isoTime,
});

/** A commission as the API shows it; the type is the body's, so the two cannot drift. */
export type CommissionView = z.infer<typeof commissionBody>;

export function commissionView(c: Commission, cur: Currency): CommissionView {
  return {
    id: c.id,
    order_id: c.order_id,
    ref_code: c.ref_code,
    amount: fromMinor(c.amount_cents, cur),
    rate: fromRateBp(c.rate_bp),
    commission: fromMinor(c.commission_cents, cur),
    currency: cur.code,
    status: c.status,
    kind: c.kind,
    rule_id: c.rule_id,
    void_reason: c.void_reason,
    hold: c.hold_case_id !== null && c.hold_signal !== null && c.status === 'pending' ? { case_id: c.hold_case_id, signal: c.hold_signal } : null,
    created_at: toIso(c.created_at),
  };
}

/**
 * A commission as its affiliate sees it in the portal (docs/api.md#fraud-review): a held one is only
 * `under_review`, never which signal or case holds it.
 */
export const portalCommissionBody = commissionBody.omit({ hold: true }).extend({
  under_review: z.boolean().meta({ description: 'true while it is held for review; it is then neither approved nor paid' }),
});

export function portalCommissionView(c: Commission, cur: Currency): z.infer<typeof portalCommissionBody> {
  const { hold, ...rest } = commissionView(c, cur);
  return { ...rest, under_review: hold !== null };
}
