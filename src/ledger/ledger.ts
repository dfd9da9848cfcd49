import type { Compilable } from 'kysely';
import { utcDay } from '../clock.js';
import type { Executor } from '../db/database.js';
import type { Commission, CommissionStatus, Order, Withdrawal } from '../db/schema.js';
import { creditBalance, debitBalanceIfCovered } from './balance.repository.js';
import { type DailyCounter, bumpDailyStats as bumpStripe, pickStripe } from './counters.repository.js';

/** Money bumps spread over the stripes (one per call; a call bumping two days uses one stripe). */
function bumpDailyStats(
  tx: Executor,
  refCode: string,
  day: string,
  deltas: Partial<Record<DailyCounter, number>>,
  stripe = pickStripe(),
  riders: readonly Compilable[] = [],
): Promise<void> {
  return bumpStripe(tx, refCode, day, deltas, stripe, riders);
}

/**
 * Every money move, in one place: the balance (affiliates.balance_cents, CONTRACT §6/§12) and the
 * summary counters (daily_stats + affiliate_stats, CONTRACT §7). Services call these inside the
 * transaction that changed the commission, withdrawal or order row, and always AFTER that row: the one
 * lock order of the ledger is
 *
 *   entity row (order, commission, withdrawal)  ->  affiliates row (balance)  ->  counter rows
 *
 * so no two transactions ever wait on each other in opposite orders. Counter rows are touched last,
 * once per transaction: concurrent changes for one affiliate queue on them, for as short a time as possible.
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
 * A sale commission was booked for a freshly paid order: one more order, its revenue, the pending amount.
 * `riders`: the payment's other writes that answer nothing (the commission and event inserts), sent in
 * the same round trip as the counters on PostgreSQL (see writeTogether); they take no contended lock.
 */
export async function commissionBooked(tx: Executor, order: Order, c: Commission, riders: readonly Compilable[] = []): Promise<void> {
  await bumpDailyStats(
    tx,
    c.ref_code,
    commissionDay(c),
    { orders: 1, revenue_cents: order.amount_cents, [BUCKET[c.status]]: c.commission_cents },
    pickStripe(),
    riders,
  );
}

/** A commission moved from `before.status` to `to`: paid credits the balance; its amount changes bucket. */
export async function commissionMoved(tx: Executor, before: Commission, to: CommissionStatus, now: number): Promise<void> {
  const cents = before.commission_cents;
  if (to === 'paid') await creditBalance(tx, before.ref_code, cents, now);
  await bumpDailyStats(tx, before.ref_code, commissionDay(before), { [BUCKET[before.status]]: -cents, [BUCKET[to]]: cents });
}

/**
 * A refund changed an attributed order: its revenue falls by the refund, and its still-open commission
 * `before` became `after` (reduced, or voided with the amount it had). Nothing else moves.
 */
export async function orderRefunded(
  tx: Executor,
  refundCents: number,
  before: Commission,
  after: Commission,
  riders: readonly Compilable[] = [],
): Promise<void> {
  const deltas: Partial<Record<DailyCounter, number>> = { revenue_cents: -refundCents };
  if (after.status === before.status) {
    deltas[BUCKET[before.status]] = after.commission_cents - before.commission_cents;
  } else {
    deltas[BUCKET[before.status]] = -before.commission_cents;
    deltas[BUCKET[after.status]] = after.commission_cents;
  }
  // the revenue counted on the day the order was paid, the commission on its creation day: the same day for a sale
  await bumpDailyStats(tx, before.ref_code, commissionDay(before), deltas, pickStripe(), riders);
}

/**
 * A clawback (a negative paid commission) was booked: the balance falls at once, possibly below zero,
 * and the paid bucket of the clawback's day with it; the refund also lowers the order's revenue.
 */
export async function clawbackBooked(
  tx: Executor,
  clawback: Commission,
  refundCents: number,
  sale: Commission,
  now: number,
  riders: readonly Compilable[] = [],
): Promise<void> {
  await creditBalance(tx, clawback.ref_code, clawback.commission_cents, now);
  const clawDay = commissionDay(clawback);
  const saleDay = commissionDay(sale);
  const stripe = pickStripe();
  if (clawDay === saleDay) {
    await bumpDailyStats(tx, clawback.ref_code, clawDay, { commission_paid_cents: clawback.commission_cents, revenue_cents: -refundCents }, stripe, riders);
  } else {
    // days in ascending order and one stripe, like every other writer of two days of one affiliate
    await bumpDailyStats(tx, sale.ref_code, saleDay, { revenue_cents: -refundCents }, stripe, riders);
    await bumpDailyStats(tx, clawback.ref_code, clawDay, { commission_paid_cents: clawback.commission_cents }, stripe);
  }
}

/** A refund of an attributed order whose commission is already void or paid-and-clawed: only revenue moves. */
export async function revenueRefunded(tx: Executor, sale: Commission, refundCents: number, riders: readonly Compilable[] = []): Promise<void> {
  await bumpDailyStats(tx, sale.ref_code, commissionDay(sale), { revenue_cents: -refundCents }, pickStripe(), riders);
}

/**
 * Takes a withdrawal's amount off the balance only while the balance covers it (one conditional
 * UPDATE, never read-then-write, so no interleaving of requests or instances can overdraw it).
 * False when it does not fit (or there is no such affiliate).
 */
export async function withdrawalRequested(tx: Executor, refCode: string, cents: number, now: number): Promise<boolean> {
  if (!(await debitBalanceIfCovered(tx, refCode, cents, now))) return false;
  await bumpDailyStats(tx, refCode, utcDay(now), { withdrawals_requested_cents: cents });
  return true;
}

/** requested -> paid moves the amount between counters; requested -> rejected returns it to the balance. */
export async function withdrawalSettled(tx: Executor, w: Withdrawal, to: 'paid' | 'rejected', now: number): Promise<void> {
  const day = utcDay(w.created_at);
  if (to === 'paid') {
    await bumpDailyStats(tx, w.ref_code, day, { withdrawals_requested_cents: -w.amount_cents, withdrawals_paid_cents: w.amount_cents });
  } else {
    await creditBalance(tx, w.ref_code, w.amount_cents, now);
    await bumpDailyStats(tx, w.ref_code, day, { withdrawals_requested_cents: -w.amount_cents });
  }
}
