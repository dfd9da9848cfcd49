import { toIso } from '../../platform/clock.js';
import type { Commission, Order } from '../../platform/db/schema.js';
import type { EventData } from '../../platform/events/catalogue.js';
import { type Currency, fromMinor } from '../../platform/money.js';
import { commissionView } from '../commissions/commission.schemas.js';

/** `order.paid` as in the seed and README.md#webhooks: the order appears with `id`, not `order_id`. */
export function orderPaidPayload(order: Order, commission: Commission | undefined, cur: Currency): EventData<'order.paid'> {
  return {
    order: { id: order.order_id, email: order.email, amount: fromMinor(order.amount_cents, cur), currency: cur.code, product: order.product, status: 'paid' },
    commission: commission ? commissionView(commission, cur) : null,
    ref_code: commission?.ref_code ?? null,
  };
}

/** `order.refunded`: the order after the refund, the refund, and what it did to the commissions. */
export function orderRefundedPayload(
  order: Order,
  refund: { readonly cents: number; readonly at: number },
  commission: Commission | undefined,
  clawback: Commission | undefined,
  cur: Currency,
): EventData<'order.refunded'> {
  return {
    order: {
      id: order.order_id,
      email: order.email,
      amount: fromMinor(order.amount_cents, cur),
      currency: cur.code,
      product: order.product,
      status: order.status === 'refunded' ? 'refunded' : 'partially_refunded',
      refunded_amount: fromMinor(order.refunded_cents, cur),
    },
    refund: { amount: fromMinor(refund.cents, cur), created_at: toIso(refund.at) },
    commission: commission ? commissionView(commission, cur) : null,
    clawback: clawback ? commissionView(clawback, cur) : null,
    ref_code: commission?.ref_code ?? null,
  };
}
