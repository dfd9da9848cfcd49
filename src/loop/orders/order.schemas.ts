import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { Commission, Order } from '../../platform/db/schema.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { isoTime, money } from '../../platform/http/openapi.js';
import { emailField, moneyField } from '../../platform/http/schemas.js';
import { type Currency, fromMinor } from '../../platform/money.js';

// An order at the edge: the requests, the bodies every route and export answers with, their types and
// the mappers from rows (cents inside, decimals here).

export const orderIdField = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');

export const createOrderSchema = z.object({
  order_id: orderIdField,
  email: emailField,
  amount: moneyField,
  product: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
  ref_code: z
    .string()
    .trim()
    .max(64, 'must be at most 64 characters')
    .optional()
    .meta({ description: 'An affiliate to attribute the order to when its email names no attributed mailbox; one that is not an active affiliate is ignored' }),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .max(3, 'must be an ISO 4217 code')
    .optional()
    .meta({ description: 'ISO 4217 code of the amount; another than the program currency is 422 currency_mismatch' }),
});

export const payOrderSchema = z.object({ order_id: orderIdField });

export const refundOrderSchema = z.object({
  order_id: orderIdField,
  amount: moneyField.optional().meta({ description: 'Defaults to what is left of the order amount' }),
});

const orderStatus = z.enum(['created', 'paid', 'partially_refunded', 'refunded']);

export const listOrdersSchema = listQuerySchema.extend({
  status: orderStatus.optional(),
  email: z.string().trim().toLowerCase().max(320).optional(),
  q: z.string().trim().max(320).optional(),
});

export const orderBody = z.strictObject({
  order_id: z.string(),
  email: z.string(),
  amount: money,
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency (docs/api.md#payouts)' }),
  product: z.string(),
  status: orderStatus,
  created_at: isoTime,
  paid_at: isoTime.optional(),
  refunded_amount: money.optional().meta({ description: 'Sum of the refunds; present once one was booked' }),
});

/** A row of GET /api/orders: the order plus (beyond the order resource, docs/api.md#orders-commissions-withdrawals) its affiliate and commission. */
export const orderListItem = orderBody.extend({
  ref_code: z.string().nullable().meta({ description: 'The affiliate the paid order was attributed to; null when none (or not paid yet)' }),
  commission: z
    .strictObject({
      id: z.string(),
      commission: money,
      status: z.enum(['pending', 'approved', 'paid', 'void']),
      void_reason: z.enum(['refunded', 'disputed', 'fraud']).nullable(),
    })
    .nullable()
    .meta({ description: 'Its commission, when one was booked' }),
});

/** An order as the API shows it; the type is the body's, so the two cannot drift. */
export type OrderView = z.infer<typeof orderBody>;
export type OrderListItem = z.infer<typeof orderListItem>;

export function orderView(o: Order, cur: Currency): OrderView {
  const view: OrderView = {
    order_id: o.order_id,
    email: o.email,
    amount: fromMinor(o.amount_cents, cur),
    currency: cur.code,
    product: o.product,
    status: o.status,
    created_at: toIso(o.created_at),
  };
  if (o.paid_at !== null) view.paid_at = toIso(o.paid_at);
  if (o.refunded_cents > 0) view.refunded_amount = fromMinor(o.refunded_cents, cur);
  return view;
}

/** A row of the order list: the order, the affiliate it was attributed to and its commission, if any. */
export function orderListItemView({ order: o, commission: c }: { order: Order; commission: Commission | undefined }, cur: Currency): OrderListItem {
  return {
    ...orderView(o, cur),
    ref_code: o.ref_code,
    commission: c ? { id: c.id, commission: fromMinor(c.commission_cents, cur), status: c.status, void_reason: c.void_reason } : null,
  };
}
