import type { Compilable } from 'kysely';
import { utcDay } from '../../platform/clock.js';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from '../../platform/db/write-together.js';
import type { Commission, CommissionStatus, Order, Withdrawal } from '../../platform/db/schema.js';
import { lockBalance } from './balance.repository.js';
import { type DailyCounter, bumpDailyStats as bumpStripe, counterWrites, pickStripe } from './counters.repository.js';

/**
 * Money bumps of one day on a stripe of their own (one per call), with a change of the balance
 * (`balanceCents`), which lives in the same all-time rows.
 */
function bumpDailyStats(
  tx: Executor,
  refCode: string,
  day: string,
  deltas: Partial<Record<DailyCounter, number>>,
  balanceCents = 0,
  riders: readonly Compilable[] = [],
  stripe = pickStripe(),
): Promise<void> {
  return bumpStripe(tx, refCode, day, deltas, stripe, riders, balanceCents);
}

/**
 * Every money move, in one place: the balance and the summary counters (daily_stats + affiliate_stats,
 * CONTRACT §6/§7/§12; the balance is the sum of the affiliate's all-time rows' shares, see
 * balance.repository). Services call these inside the transaction that changed the commission,
 * withdrawal or order row, and always AFTER that row: the one lock order of the ledger is
 *
 *   entity row (order, commission, withdrawal)  ->  all-time counter row(s)  ->  day counter rows
 *
 * where a transaction touches one all-time row (its stripe), except a withdrawal request, which first
 * locks the affiliates row (withdrawals of one affiliate queue there, see lockBalance) and then all of
 * the affiliate's all-time rows in stripe order; so no two transactions ever wait on each other in
 * opposite orders. Counter rows are touched last, once per transaction: concurrent changes for one
 * affiliate queue on them, for as short a time as possible.
 */

/** The counter bucket holding a commission's amount while it is in a state. */
const BUCKET: Record<CommissionStatus, DailyCounter> = {
  pending: 'commission_pending_cents',
  approved: 'commission_approved_cents',
  paid: 'commission_paid_cents',
  void: 'commission_void_cents',
};

/** Which day a commission's amount counts on: its creation day (a status change moves it within that day). */
const commissionDay = (c: Commission) => utcDay(c.created_at);

/**
 * An attributed order was paid: one more order and its revenue for the affiliate, on the day it was paid,
 * and the pending amount of its sale commission when one was booked (a rule's limits may book none: the
 * order still counts, CONTRACT §7). The commission is created in the same transaction, so it counts on
 * the same day. `riders`: the payment's other writes that answer nothing (the commission and event
 * inserts), sent in the same round trip as the counters on PostgreSQL (see writeTogether); they take no
 * contended lock.
 */
export async function attributedOrderPaid(
  tx: Executor,
  refCode: string,
  order: Order,
  c: Commission | undefined,
  riders: readonly Compilable[] = [],
): Promise<void> {
  const deltas: Partial<Record<DailyCounter, number>> = { orders: 1, revenue_cents: order.amount_cents };
  if (c) deltas[BUCKET[c.status]] = c.commission_cents;
  await bumpDailyStats(tx, refCode, paidDay(order), deltas, 0, riders);
}

/** The day an order's revenue counts on: the day it was paid. */
const paidDay = (order: Order) => {
  if (order.paid_at === null) throw new Error(`order ${order.order_id} has no paid_at`);
  return utcDay(order.paid_at);
};

/** A commission moved from `before.status` to `to`: paid credits the balance; its amount changes bucket. */
export async function commissionMoved(tx: Executor, before: Commission, to: CommissionStatus): Promise<void> {
  const cents = before.commission_cents;
  await bumpDailyStats(tx, before.ref_code, commissionDay(before), { [BUCKET[before.status]]: -cents, [BUCKET[to]]: cents }, to === 'paid' ? cents : 0);
}

/**
 * The refund functions below give the refund's writes, to make with commitChain in one go: `chain` (the
 * refund's conditional writes, the order's first, then the commission's; see writeChain), then the
 * ledger's own, in the ledger's lock order.
 */

/**
 * A refund changed an attributed order: its revenue falls by the refund, and its still-open commission
 * `before` became `after` (reduced, or voided with the amount it had). Nothing else moves.
 */
export function orderRefunded(db: Executor, refundCents: number, before: Commission, after: Commission, chain: readonly ChainedWrite[]): ChainedWrite[] {
  const deltas: Partial<Record<DailyCounter, number>> = { revenue_cents: -refundCents };
  if (after.status === before.status) {
    deltas[BUCKET[before.status]] = after.commission_cents - before.commission_cents;
  } else {
    deltas[BUCKET[before.status]] = -before.commission_cents;
    deltas[BUCKET[after.status]] = after.commission_cents;
  }
  // the revenue counted on the day the order was paid, the commission on its creation day: the same day for a sale
  return [...chain, ...counterWrites(db, before.ref_code, [{ day: commissionDay(before), deltas }], pickStripe())];
}

/**
 * A clawback (a negative paid commission) was booked: the balance falls at once, possibly below zero,
 * and the paid bucket of the clawback's day with it; the refund also lowers the order's revenue on the
 * day the order was paid.
 */
export function clawbackBooked(db: Executor, clawback: Commission, refundCents: number, sale: Commission, chain: readonly ChainedWrite[]): ChainedWrite[] {
  return [
    ...chain,
    ...counterWrites(
      db,
      clawback.ref_code,
      [
        { day: commissionDay(sale), deltas: { revenue_cents: -refundCents } },
        { day: commissionDay(clawback), deltas: { commission_paid_cents: clawback.commission_cents } },
      ],
      pickStripe(),
      clawback.commission_cents,
    ),
  ];
}

/**
 * A refund of an attributed order whose commission is already void or paid-and-clawed, or that has none
 * (a rule's limits booked none): only revenue moves, on the day the order was paid.
 */
export function revenueRefunded(db: Executor, refCode: string, order: Order, refundCents: number, chain: readonly ChainedWrite[]): ChainedWrite[] {
  return [...chain, ...counterWrites(db, refCode, [{ day: paidDay(order), deltas: { revenue_cents: -refundCents } }], pickStripe())];
}

/**
 * Takes a withdrawal's amount off the balance only while the balance covers it: the balance is locked
 * (every stripe, see lockBalance) and summed, then the amount leaves a locked stripe in the same upsert
 * as the requested counter. `available`: the balance it saw; nothing is written when it does not fit.
 */
export async function withdrawalRequested(tx: Executor, refCode: string, cents: number, now: number): Promise<{ accepted: boolean; available: number }> {
  const balance = await lockBalance(tx, refCode);
  if (balance.stripe === undefined || balance.cents < cents) return { accepted: false, available: balance.cents };
  await bumpDailyStats(tx, refCode, utcDay(now), { withdrawals_requested_cents: cents }, -cents, [], balance.stripe);
  return { accepted: true, available: balance.cents };
}

/** requested -> paid moves the amount between counters; requested -> rejected returns it to the balance. */
export async function withdrawalSettled(tx: Executor, w: Withdrawal, to: 'paid' | 'rejected'): Promise<void> {
  const day = utcDay(w.created_at);
  if (to === 'paid') {
    await bumpDailyStats(tx, w.ref_code, day, { withdrawals_requested_cents: -w.amount_cents, withdrawals_paid_cents: w.amount_cents });
  } else {
    await bumpDailyStats(tx, w.ref_code, day, { withdrawals_requested_cents: -w.amount_cents }, w.amount_cents);
  }
}
