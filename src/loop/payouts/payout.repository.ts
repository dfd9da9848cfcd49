import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { PayoutBatch, Withdrawal } from '../../platform/db/schema.js';

/** The stored payout details text of an affiliate (null: none, or no portal account yet). */
export async function findPayoutDetailsText(db: Executor, refCode: string): Promise<string | null> {
  const row = await db.selectFrom('affiliate_accounts').select('payout_details').where('ref_code', '=', refCode).executeTakeFirst();
  return row?.payout_details ?? null;
}

export async function storePayoutDetailsText(db: Executor, refCode: string, text: string | null, now: number): Promise<void> {
  await db
    .insertInto('affiliate_accounts')
    .values({ ref_code: refCode, password_hash: null, payout_details: text, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('ref_code').doUpdateSet({ payout_details: text, updated_at: now }))
    .execute();
}

/**
 * Puts every requested withdrawal of `method` that is in no batch into batch `batchId`, in ONE conditional
 * UPDATE: a row another batch took first no longer matches `batch_id IS NULL` (PostgreSQL re-checks it
 * after waiting for that batch's lock; SQLite runs one writer at a time), so no withdrawal is ever in two
 * batches, and one requested meanwhile is either in this batch or left for the next. Then the batch's
 * count and total, as the rows it took.
 */
export async function gatherIntoBatch(tx: Executor, batchId: string, method: string): Promise<{ count: number; total: number }> {
  await tx
    .updateTable('withdrawals')
    .set({ batch_id: batchId })
    .where('status', '=', 'requested')
    .where('payout_method', '=', method)
    .where('batch_id', 'is', null)
    .execute();
  const row = await tx
    .selectFrom('withdrawals')
    .select([sql<number>`count(*)`.as('count'), sql<number>`coalesce(sum(amount_cents), 0)`.as('total')])
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), total: Number(row.total) };
}

export async function insertBatch(tx: Executor, batch: PayoutBatch): Promise<void> {
  await tx.insertInto('payout_batches').values(batch).execute();
}

export async function findBatch(db: Executor, id: string): Promise<PayoutBatch | undefined> {
  return db.selectFrom('payout_batches').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Newest first, `limit + 1` rows after the id `after` (batch ids sort by time). */
export async function listBatches(db: Executor, after: string | undefined, limit: number): Promise<PayoutBatch[]> {
  let q = db.selectFrom('payout_batches').selectAll();
  if (after) q = q.where('id', '<', after);
  return q.orderBy('id', 'desc').limit(limit + 1).execute();
}

/** open -> paid, conditionally; false when it was not open. */
export async function markBatchPaid(tx: Executor, id: string, now: number): Promise<boolean> {
  const res = await tx.updateTable('payout_batches').set({ status: 'paid', paid_at: now }).where('id', '=', id).where('status', '=', 'open').executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** A page of a batch's withdrawals in id order (keyset): the file and the mark-paid read them this way. */
export async function batchWithdrawalsPage(db: Executor, batchId: string, afterId: string | undefined, limit: number): Promise<Withdrawal[]> {
  let q = db.selectFrom('withdrawals').selectAll().where('batch_id', '=', batchId);
  if (afterId !== undefined) q = q.where('id', '>', afterId);
  return q.orderBy('id').limit(limit).execute();
}

/** The id of the batch's withdrawal at `offset` (0-based) in id order: where a part of its file starts after. */
export async function batchWithdrawalIdAt(db: Executor, batchId: string, offset: number): Promise<string | undefined> {
  const row = await db.selectFrom('withdrawals').select('id').where('batch_id', '=', batchId).orderBy('id').limit(1).offset(offset).executeTakeFirst();
  return row?.id;
}

/** The ids of a batch's withdrawals, in id order. */
export async function batchWithdrawalIds(db: Executor, batchId: string): Promise<string[]> {
  const rows = await db.selectFrom('withdrawals').select('id').where('batch_id', '=', batchId).orderBy('id').execute();
  return rows.map((r) => r.id);
}

/** What is owed: requested withdrawals in no batch, per payout method. */
export async function owedPerMethod(db: Executor): Promise<{ method: string; count: number; total: number }[]> {
  const rows = await db
    .selectFrom('withdrawals')
    .select(['payout_method', sql<number>`count(*)`.as('count'), sql<number>`coalesce(sum(amount_cents), 0)`.as('total')])
    .where('status', '=', 'requested')
    .where('batch_id', 'is', null)
    .groupBy('payout_method')
    .execute();
  return rows.map((r) => ({ method: r.payout_method ?? 'other', count: Number(r.count), total: Number(r.total) }));
}

/** The schedule's claim of an affiliate's month: true for the one transaction that inserts it (the primary key refuses every other). */
export async function claimScheduleMonth(tx: Executor, refCode: string, month: string, now: number): Promise<boolean> {
  const res = await tx
    .insertInto('payout_schedule_runs')
    .values({ ref_code: refCode, month, withdrawal_id: null, created_at: now })
    .onConflict((oc) => oc.columns(['ref_code', 'month']).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function setScheduleWithdrawal(tx: Executor, refCode: string, month: string, withdrawalId: string): Promise<void> {
  await tx.updateTable('payout_schedule_runs').set({ withdrawal_id: withdrawalId }).where('ref_code', '=', refCode).where('month', '=', month).execute();
}

/** Active affiliates with payout details whose month has not been claimed yet, a page at a time in ref_code order. */
export async function scheduleCandidates(db: Executor, month: string, after: string | undefined, limit: number): Promise<string[]> {
  let q = db
    .selectFrom('affiliates')
    .innerJoin('affiliate_accounts', 'affiliate_accounts.ref_code', 'affiliates.ref_code')
    .select('affiliates.ref_code')
    .where('affiliates.status', '=', 'active')
    .where('affiliate_accounts.payout_details', 'is not', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('payout_schedule_runs').select('ref_code').whereRef('payout_schedule_runs.ref_code', '=', 'affiliates.ref_code').where('payout_schedule_runs.month', '=', month))),
    );
  if (after !== undefined) q = q.where('affiliates.ref_code', '>', after);
  const rows = await q.orderBy('affiliates.ref_code').limit(limit).execute();
  return rows.map((r) => r.ref_code);
}

/** Whether the month's scheduled run is over (payout_schedule_months, migration 0091). */
export async function scheduleMonthDone(db: Executor, month: string): Promise<boolean> {
  const row = await db.selectFrom('payout_schedule_months').select('month').where('month', '=', month).executeTakeFirst();
  return row !== undefined;
}

/** Records that the month gets no (further) scheduled run; a second instance's or switch's record of it changes nothing. */
export async function markScheduleMonthDone(db: Executor, month: string, now: number): Promise<void> {
  await db
    .insertInto('payout_schedule_months')
    .values({ month, done_at: now })
    .onConflict((oc) => oc.column('month').doNothing())
    .execute();
}
