import type { Executor } from '../../platform/db/database.js';
import type { Withdrawal, WithdrawalStatus, WithdrawalsTable } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

/** The INSERT of a withdrawal, not yet run: for a ledger plan's inserts. */
export function withdrawalInsert(db: Executor, row: WithdrawalsTable) {
  return db.insertInto('withdrawals').values(row);
}

export async function findWithdrawal(db: Executor, id: string): Promise<Withdrawal | undefined> {
  return db.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirst();
}

/** requested -> paid | rejected as one conditional UPDATE; false when another writer got there first. */
export async function settleWithdrawal(db: Executor, id: string, to: Exclude<WithdrawalStatus, 'requested'>, now: number): Promise<boolean> {
  const res = await db
    .updateTable('withdrawals')
    .set({ status: to, updated_at: now, ...(to === 'paid' ? { paid_at: now } : { rejected_at: now }) })
    .where('id', '=', id)
    .where('status', '=', 'requested')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export interface WithdrawalFilter {
  readonly status?: WithdrawalStatus;
  readonly refCode?: string;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listWithdrawals(db: Executor, f: WithdrawalFilter): Promise<Withdrawal[]> {
  const q = db
    .selectFrom('withdrawals')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, ref_code: f.refCode })));
  return newestFirst(q, f, 'id').execute();
}
