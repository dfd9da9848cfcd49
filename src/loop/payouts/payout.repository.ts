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

/** A batch's count and total, as the rows gatherIntoBatch (ledger/withdrawal-writes.ts) put in it. */
export async function batchTotals(tx: Executor, batchId: string): Promise<{ count: number; total: number }> {
  const row = await tx
    .selectFrom('withdrawals')
    .select([sql<number>`count(*)`.as('count'), sql<number>`coalesce(sum(amount_cents), 0)`.as('total')])
    .where('batch_id', '=', batchId)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), total: Number(row.total) };
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
