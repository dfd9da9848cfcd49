import { dialectOf, type Executor } from '../../platform/db/database.js';

/**
 * The affiliate's available balance (docs/ledger.md#balance-and-withdrawals) is spread over its all-time counter rows, one
 * share per stripe (migration 0043-balance-stripes), so that credits for one affiliate do not queue on
 * one row: a mark-paid, a clawback or a rejected withdrawal adds to its transaction's stripe in the
 * same upsert as its counters (counterWrites' `balanceCents`). Only a withdrawal takes from it, and
 * only after locking every stripe (lockBalance), so no interleaving of requests or instances can
 * overdraw it.
 */

export interface LockedBalance {
  /** The balance while the lock is held. */
  readonly cents: number;
  /** The lowest stripe that has a row (now locked): where a withdrawal takes its amount; none without rows. */
  readonly stripe: number | undefined;
}

/**
 * Locks the affiliate's balance for a withdrawal, inside its transaction. On PostgreSQL: the affiliate's
 * row (withdrawals of one affiliate go one at a time), then every stripe row, in stripe order (the
 * order every withdrawal takes them in; other writers hold one stripe at a time, then day rows, so
 * nobody waits in the opposite order). A credit that inserts a stripe row meanwhile is not seen, which
 * only understates the balance; a withdrawal must therefore take its amount from a row it locked
 * (`stripe`), never insert one. On SQLite the transaction's write lock serialises it (a concurrent
 * writer makes it retry).
 */
export async function lockBalance(tx: Executor, refCode: string): Promise<LockedBalance> {
  const postgres = dialectOf(tx) === 'postgres';
  if (postgres) {
    // Withdrawals of one affiliate first queue on its row, so that each sums the stripes in a statement
    // that starts after the previous withdrawal committed. Without it, a withdrawal whose statement began
    // before a credit inserted a stripe row waits on the rows it knows for a later withdrawal that saw
    // that row and took its amount from it, then sums without that debit and overdraws. NO KEY UPDATE:
    // the foreign keys' KEY SHARE (a commission's or mailbox's insert) never waits for it.
    await tx.selectFrom('affiliates').select('ref_code').where('ref_code', '=', refCode).forNoKeyUpdate().execute();
  }
  let q = tx.selectFrom('affiliate_stats').select(['stripe', 'balance_cents']).where('ref_code', '=', refCode).orderBy('stripe');
  if (postgres) q = q.forUpdate();
  const rows = await q.execute();
  return { cents: rows.reduce((n, r) => n + Number(r.balance_cents), 0), stripe: rows[0]?.stripe };
}

/** Whether the affiliate exists (a withdrawal's 404). */
export async function affiliateExists(db: Executor, refCode: string): Promise<boolean> {
  return (await db.selectFrom('affiliates').select('ref_code').where('ref_code', '=', refCode).executeTakeFirst()) !== undefined;
}
