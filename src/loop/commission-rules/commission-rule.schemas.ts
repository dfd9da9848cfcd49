import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { CommissionRule } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { moneyField } from '../../platform/http/schemas.js';
import { rateBpField } from '../ledger/rate.js';
import { type Currency, fromMinor, fromRateBp } from '../../platform/money.js';
import { refCodeSchema } from '../affiliates/affiliate.schemas.js';

// A commission rule at the edge: the requests, the body the routes answer with, its type and the
// mapper from a row (rate in basis points and flat in cents inside).

/** The fields of a rule at the edge (docs/ledger.md#commission-rules); rate in basis points and flat in cents once parsed. */
const ruleFields = {
  ref_code: refCodeSchema.nullable().meta({ description: 'The affiliate it applies to; null: any affiliate' }),
  product: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters').nullable().meta({ description: 'The product it applies to; null: any product' }),
  rate: rateBpField.nullable(),
  flat: moneyField.nullable().meta({ description: 'A flat amount per order, capped at the order amount' }),
  duration_days: z.number().int().min(1).max(3650).nullable().meta({ description: 'No commission for an order paid more than this many days after the customer mailbox was attributed' }),
  max_orders: z.number().int().min(1).max(1_000_000).nullable().meta({ description: 'No commission after this many commissioned orders of the same customer mailbox' }),
};

export const createRuleSchema = z.strictObject({
  ref_code: ruleFields.ref_code.optional(),
  product: ruleFields.product.optional(),
  rate: ruleFields.rate.optional(),
  flat: ruleFields.flat.optional(),
  duration_days: ruleFields.duration_days.optional(),
  max_orders: ruleFields.max_orders.optional(),
});

export const updateRuleSchema = createRuleSchema;

export type RuleInput = z.infer<typeof createRuleSchema>;

export const ruleBody = z.strictObject({
  id: z.string(),
  ref_code: z.string().nullable(),
  product: z.string().nullable(),
  rate: z.number().nullable().meta({ description: 'Percent; exactly one of rate and flat is set' }),
  flat: money.nullable().meta({ description: 'Money per order, capped at the order amount' }),
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency, the currency of flat (docs/api.md#payouts)' }),
  duration_days: z.number().int().nullable(),
  max_orders: z.number().int().nullable(),
  created_at: isoTime,
});

export const listRulesSchema = listQuerySchema.extend({ ref_code: refCodeSchema.optional() });

/** A rule as the API shows it; the type is the body's, so the two cannot drift. */
export type CommissionRuleView = z.infer<typeof ruleBody>;

export function ruleView(r: CommissionRule, cur: Currency): CommissionRuleView {
  return {
    id: r.id,
    ref_code: r.ref_code,
    product: r.product,
    rate: r.rate_bp === null ? null : fromRateBp(r.rate_bp),
    flat: r.flat_cents === null ? null : fromMinor(r.flat_cents, cur),
    currency: cur.code,
    duration_days: r.duration_days,
    max_orders: r.max_orders,
    created_at: toIso(r.created_at),
  };
}
