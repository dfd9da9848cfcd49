import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { ChainedWrite } from '../db/write-together.js';

/**
 * The ledger's view of an affiliate: its rate and its available balance. The affiliates feature owns
 * the rest of the row; the ledger only moves balance_cents, always with a single conditional UPDATE so
 * concurrent writers (other requests, other processes) can never overdraw it.
 */
export interface AffiliateLedgerRow {
  ref_code: string;
  status: string;
  commission_rate_bp: number | null;
  balance_cents: number;
}

export async function findAffiliateLedger(db: Executor, refCode: string): Promise<AffiliateLedgerRow | undefined> {
  return db
    .selectFrom('affiliates')
    .select(['ref_code', 'status', 'commission_rate_bp', 'balance_cents'])
    .where('ref_code', '=', refCode)
    .executeTakeFirst();
}

export async function creditBalance(db: Executor, refCode: string, cents: number, now: number): Promise<void> {
  await db.executeQuery(balanceCredit(db, refCode, cents, now)(undefined).compile());
}

/** The balance credit as a write of a chain (see writeChain): it changes the row when the affiliate exists. */
export function balanceCredit(db: Executor, refCode: string, cents: number, now: number): ChainedWrite {
  return (after) => {
    let q = db
      .updateTable('affiliates')
      .set({ balance_cents: sql<number>`balance_cents + ${cents}`, updated_at: now })
      .where('ref_code', '=', refCode);
    if (after) q = q.where(after);
    return q.returning('ref_code');
  };
}

/** Takes cents off the balance only if it covers them; false when it does not (or no such affiliate). */
export async function debitBalanceIfCovered(db: Executor, refCode: string, cents: number, now: number): Promise<boolean> {
  const res = await db
    .updateTable('affiliates')
    .set({ balance_cents: sql<number>`balance_cents - ${cents}`, updated_at: now })
    .where('ref_code', '=', refCode)
    .where('balance_cents', '>=', cents)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}
