import { toIso } from '../clock.js';
import type { Commission, Order, Withdrawal } from '../db/schema.js';
import { fromCents } from '../money.js';
import type { EventData } from './catalogue.js';

/**
 * The `data` of each event, built from database rows. Deliberately not the API's views: a webhook's
 * shape changes only here and in the catalogue, never as a side effect of an API change.
 */

type CommissionData = EventData<'commission.approved'>['commission'];
type WithdrawalData = EventData<'withdrawal.requested'>['withdrawal'];

function commissionData(c: Commission): CommissionData {
  return {
    id: c.id,
    order_id: c.order_id,
    ref_code: c.ref_code,
    amount: fromCents(c.amount_cents),
    rate: c.rate_bp / 100,
    commission: fromCents(c.commission_cents),
    status: c.status,
    created_at: toIso(c.created_at),
  };
}

function withdrawalData(w: Withdrawal): WithdrawalData {
  return { id: w.id, ref_code: w.ref_code, amount: fromCents(w.amount_cents), status: w.status, created_at: toIso(w.created_at) };
}

/** `order.paid` as in the seed and CONTRACT §9: the order appears with `id`, not `order_id`. */
export function orderPaidPayload(order: Order, commission: Commission | undefined): EventData<'order.paid'> {
  return {
    order: { id: order.order_id, email: order.email, amount: fromCents(order.amount_cents), product: order.product, status: 'paid' },
    commission: commission ? commissionData(commission) : null,
    ref_code: commission?.ref_code ?? null,
  };
}

/** `commission.approved`, `commission.paid`, `commission.voided`: the commission after the change. */
export function commissionChangedPayload(c: Commission): EventData<'commission.approved' | 'commission.paid' | 'commission.voided'> {
  return { commission: commissionData(c), ref_code: c.ref_code };
}

/** `withdrawal.requested`, `withdrawal.paid`, `withdrawal.rejected`: the withdrawal after the change. */
export function withdrawalChangedPayload(w: Withdrawal): EventData<'withdrawal.requested' | 'withdrawal.paid' | 'withdrawal.rejected'> {
  return { withdrawal: withdrawalData(w), ref_code: w.ref_code };
}

export function testEventPayload(): EventData<'webhook.test'> {
  return { message: 'This is a test event from svc.' };
}
