import { toIso } from '../clock.js';
import type { Affiliate, Commission, Order, Withdrawal } from '../db/schema.js';
import { type Currency, fromMinor } from '../money.js';
import { readPayoutDetails } from '../../loop/payouts/payout-details.js';
import type { EventData } from './catalogue.js';

/**
 * The `data` of each event, built from database rows. Deliberately not the API's views: a webhook's
 * shape changes only here and in the catalogue, never as a side effect of an API change.
 */

type CommissionData = EventData<'commission.approved'>['commission'];
type WithdrawalData = EventData<'withdrawal.requested'>['withdrawal'];

function commissionData(c: Commission, cur: Currency): CommissionData {
  return {
    id: c.id,
    order_id: c.order_id,
    ref_code: c.ref_code,
    amount: fromMinor(c.amount_cents, cur),
    rate: c.rate_bp / 100,
    commission: fromMinor(c.commission_cents, cur),
    currency: cur.code,
    status: c.status,
    kind: c.kind,
    rule_id: c.rule_id,
    void_reason: c.void_reason,
    created_at: toIso(c.created_at),
  };
}

function withdrawalData(w: Withdrawal, cur: Currency): WithdrawalData {
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

/** `order.paid` as in the seed and README.md#webhooks: the order appears with `id`, not `order_id`. */
export function orderPaidPayload(order: Order, commission: Commission | undefined, cur: Currency): EventData<'order.paid'> {
  return {
    order: { id: order.order_id, email: order.email, amount: fromMinor(order.amount_cents, cur), currency: cur.code, product: order.product, status: 'paid' },
    commission: commission ? commissionData(commission, cur) : null,
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
    commission: commission ? commissionData(commission, cur) : null,
    clawback: clawback ? commissionData(clawback, cur) : null,
    ref_code: commission?.ref_code ?? null,
  };
}

/** `affiliate.created`: the new affiliate. */
export function affiliateCreatedPayload(a: Affiliate): EventData<'affiliate.created'> {
  return {
    affiliate: {
      ref_code: a.ref_code,
      name: a.name,
      email: a.email,
      status: a.status,
      commission_rate: a.commission_rate_bp === null ? null : a.commission_rate_bp / 100,
      created_at: toIso(a.created_at),
    },
    ref_code: a.ref_code,
  };
}

/** `commission.created`, `.approved`, `.paid`, `.voided`: the commission after the change. */
export function commissionChangedPayload(c: Commission, cur: Currency): EventData<'commission.created' | 'commission.approved' | 'commission.paid' | 'commission.voided'> {
  return { commission: commissionData(c, cur), ref_code: c.ref_code };
}

/** `withdrawal.requested`, `withdrawal.paid`, `withdrawal.rejected`: the withdrawal after the change. */
export function withdrawalChangedPayload(w: Withdrawal, cur: Currency): EventData<'withdrawal.requested' | 'withdrawal.paid' | 'withdrawal.rejected'> {
  return { withdrawal: withdrawalData(w, cur), ref_code: w.ref_code };
}

/** One stored copy of a message, as `message.received` reports it. */
export interface ReceivedCopy {
  readonly id: string;
  readonly mailbox: string;
  readonly from: string | null;
  readonly subject: string | null;
  readonly code: string | null;
  /** The verification link found at intake, when the intake finds one; absent: null. */
  readonly verification_link?: string | null;
  readonly received_at: number;
}

/** `message.received`: one mailbox's copy, and the mailbox's affiliate. */
export function messageReceivedPayload(copy: ReceivedCopy, refCode: string | null): EventData<'message.received'> {
  return {
    message: {
      id: copy.id,
      mailbox: copy.mailbox,
      from: copy.from,
      subject: copy.subject,
      code: copy.code,
      verification_link: copy.verification_link ?? null,
      received_at: toIso(copy.received_at),
    },
    ref_code: refCode,
  };
}

export function testEventPayload(): EventData<'webhook.test'> {
  return { message: 'This is a test event from svc.' };
}
