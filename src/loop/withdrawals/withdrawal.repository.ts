import type { Executor } from '../../platform/db/database.js';
import type { Withdrawal, WithdrawalStatus } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

export async function findWithdrawal(db: Executor, id: string): Promise<Withdrawal | undefined> {
  return db.selectFrom('withdrawals').selectAll().where('id', '=', id).executeTakeFirst();
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
