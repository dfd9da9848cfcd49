import { utcDay } from '../../platform/clock.js';
import type { Executor } from '../../platform/db/database.js';
import type { Commission, CommissionStatus, Order, Withdrawal } from '../../platform/db/schema.js';
import { lockBalance } from './balance.repository.js';
import type { DailyCounter } from './daily-counters.js';
import { applyPlan } from './executor.js';
import type { CounterMove, LedgerPlan } from './plan.js';

/**
 * Every money move's counters, as pure functions: the summary counters (daily_stats + affiliate_stats)
 * and the balance (the sum of the affiliate's all-time rows' shares, see balance.repository). Services
 * put the result in a plan's `counters` (plan.ts); the executor writes it after the entity rows.
 * Rules: docs/ledger.md; proven by ledger-model.test.ts and ledger-summary.test.ts.
 */

/** The counter bucket holding a commission's amount while it is in a state. */
const BUCKET: Record<CommissionStatus, DailyCounter> = {
  pending: 'commission_pending_cents',
  approved: 'commission_approved_cents',
  paid: 'commission_paid_cents',
  void: 'commission_void_cents',
};

/** A commission's amount counts on its creation day (a status change moves it within that day). */
const commissionDay = (c: Commission) => utcDay(c.created_at);

/** An order's revenue counts on the day it was paid. */
const paidDay = (order: Order) => {
  if (order.paid_at === null) throw new Error(`order ${order.order_id} has no paid_at`);
  return utcDay(order.paid_at);
};

/** An attributed order was paid: one order, its revenue, and its commission's pending amount if one was booked. */
export function attributedOrderPaid(refCode: string, order: Order, c: Commission | undefined): CounterMove {
  const deltas: Partial<Record<DailyCounter, number>> = { orders: 1, revenue_cents: order.amount_cents };
  if (c) deltas[BUCKET[c.status]] = c.commission_cents;
  return { refCode, bumps: [{ day: paidDay(order), deltas }] };
}

/** A commission moved from `before.status` to `to`: its amount changes bucket; paid credits the balance. */
export function commissionMoved(before: Commission, to: CommissionStatus): CounterMove {
  const cents = before.commission_cents;
  return {
    refCode: before.ref_code,
    bumps: [{ day: commissionDay(before), deltas: { [BUCKET[before.status]]: -cents, [BUCKET[to]]: cents } }],
    balanceCents: to === 'paid' ? cents : 0,
  };
}

/** A refund of an attributed order: revenue falls, its open commission `before` became `after` (reduced or voided). */
export function orderRefunded(refundCents: number, before: Commission, after: Commission): CounterMove {
  const deltas: Partial<Record<DailyCounter, number>> = { revenue_cents: -refundCents };
  if (after.status === before.status) {
    deltas[BUCKET[before.status]] = after.commission_cents - before.commission_cents;
  } else {
    deltas[BUCKET[before.status]] = -before.commission_cents;
    deltas[BUCKET[after.status]] = after.commission_cents;
  }
  // a sale commission is created on the day its order is paid: one day for both
  return { refCode: before.ref_code, bumps: [{ day: commissionDay(before), deltas }] };
}

/** A clawback (a negative paid commission) was booked: the balance falls at once, possibly below zero. */
export function clawbackBooked(clawback: Commission, refundCents: number, sale: Commission): CounterMove {
  return {
    refCode: clawback.ref_code,
    bumps: [
      { day: commissionDay(sale), deltas: { revenue_cents: -refundCents } },
      { day: commissionDay(clawback), deltas: { commission_paid_cents: clawback.commission_cents } },
    ],
    balanceCents: clawback.commission_cents,
  };
}

/** A refund that moves only revenue (the commission is void, fully clawed back, or was never booked). */
export function revenueRefunded(refCode: string, order: Order, refundCents: number): CounterMove {
  return { refCode, bumps: [{ day: paidDay(order), deltas: { revenue_cents: -refundCents } }] };
}

/**
 * A withdrawal request, decided on the balance locked by lockBalance: its amount leaves a locked stripe
 * (never a new row), or nothing moves when the balance does not cover it (ledger-withdrawal-phantom.test.ts).
 */
export function withdrawalDebit(refCode: string, cents: number, now: number, balance: { cents: number; stripe: number | undefined }): CounterMove | undefined {
  if (balance.stripe === undefined || balance.cents < cents) return undefined;
  return { refCode, bumps: [{ day: utcDay(now), deltas: { withdrawals_requested_cents: cents } }], balanceCents: -cents, stripe: balance.stripe };
}

/**
 * Locks the balance and, when it covers `cents`, makes the debit with `rest` (the withdrawal's row and
 * event) in the caller's transaction; `available`: the balance it saw.
 */
export async function withdrawalRequested(
  tx: Executor,
  refCode: string,
  cents: number,
  now: number,
  rest: Omit<LedgerPlan, 'counters'> = {},
): Promise<{ accepted: boolean; available: number }> {
  const balance = await lockBalance(tx, refCode);
  const counters = withdrawalDebit(refCode, cents, now, balance);
  if (counters) await applyPlan(tx, { now: () => now }, { ...rest, counters });
  return { accepted: counters !== undefined, available: balance.cents };
}

/** requested -> paid moves the amount between counters; requested -> rejected returns it to the balance. */
export function withdrawalSettled(w: Withdrawal, to: 'paid' | 'rejected'): CounterMove {
  const day = utcDay(w.created_at);
  if (to === 'paid') return { refCode: w.ref_code, bumps: [{ day, deltas: { withdrawals_requested_cents: -w.amount_cents, withdrawals_paid_cents: w.amount_cents } }] };
  return { refCode: w.ref_code, bumps: [{ day, deltas: { withdrawals_requested_cents: -w.amount_cents } }], balanceCents: w.amount_cents };
}
