import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { PayoutBatch } from '../../platform/db/schema.js';

/** The statements that write payout batches and the schedule, as parts of a ledger plan: run only by the executor. */

export function batchInsert(db: Executor, batch: PayoutBatch) {
  return db.insertInto('payout_batches').values(batch);
}

/** open -> paid, conditionally: a guard (no row when the batch was not open). */
export function batchPaid(db: Executor, id: string, now: number): ChainedWrite {
  return (after) => {
    let q = db.updateTable('payout_batches').set({ status: 'paid', paid_at: now }).where('id', '=', id).where('status', '=', 'open');
    if (after) q = q.where(after);
    return q.returning('id');
  };
}

/** The schedule's claim of an affiliate's month, a guard: one transaction inserts it (the primary key refuses every other). */
export function scheduleMonthClaim(db: Executor, refCode: string, month: string, now: number): ChainedWrite {
  return (after) => {
    if (after) throw new Error('the schedule claim is the first guard of its plan');
    return db
      .insertInto('payout_schedule_runs')
      .values({ ref_code: refCode, month, withdrawal_id: null, created_at: now })
      .onConflict((oc) => oc.columns(['ref_code', 'month']).doNothing())
      .returning('ref_code');
  };
}

export function scheduleWithdrawal(db: Executor, refCode: string, month: string, withdrawalId: string) {
  return db.updateTable('payout_schedule_runs').set({ withdrawal_id: withdrawalId }).where('ref_code', '=', refCode).where('month', '=', month);
}

/** Records that the month gets no (further) scheduled run; a second instance's or switch's record of it changes nothing. */
export function scheduleMonthDone(db: Executor, month: string, now: number) {
  return db
    .insertInto('payout_schedule_months')
    .values({ month, done_at: now })
    .onConflict((oc) => oc.column('month').doNothing());
}
