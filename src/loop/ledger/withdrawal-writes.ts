import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { Withdrawal, WithdrawalsTable } from '../../platform/db/schema.js';

/** The statements that write withdrawals, as parts of a ledger plan: built here, run only by the executor. */

/** The INSERT of a withdrawal, not yet run: for a ledger plan's inserts. */
export function withdrawalInsert(db: Executor, row: WithdrawalsTable) {
  return db.insertInto('withdrawals').values(row);
}

/** requested -> paid | rejected: the row it leaves, and the conditional UPDATE as the plan's guard. */
export function withdrawalSettlement(db: Executor, before: Withdrawal, to: 'paid' | 'rejected', now: number): { readonly after: Withdrawal; readonly write: ChainedWrite } {
  const set = { status: to, updated_at: now, ...(to === 'paid' ? { paid_at: now } : { rejected_at: now }) };
  return {
    after: { ...before, ...set },
    write: (after) => {
      let q = db.updateTable('withdrawals').set(set).where('id', '=', before.id).where('status', '=', 'requested');
      if (after) q = q.where(after);
      return q.returning('id');
    },
  };
}

/**
 * Puts every requested withdrawal of `method` that is in no batch into batch `batchId`, in ONE conditional
 * UPDATE: a row another batch took first no longer matches `batch_id IS NULL` (PostgreSQL re-checks it
 * after waiting for that batch's lock; SQLite runs one writer at a time), so no withdrawal is ever in two
 * batches, and one requested meanwhile is either in this batch or left for the next. A rider: it may
 * take no row at all.
 */
export function gatherIntoBatch(db: Executor, batchId: string, method: string) {
  return db.updateTable('withdrawals').set({ batch_id: batchId }).where('status', '=', 'requested').where('payout_method', '=', method).where('batch_id', 'is', null);
}
