import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { dialectOf } from '../../platform/db/database.js';
import type { Commission, FraudAction, FraudCase, FraudCaseStatus, FraudSignal } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';
import { REFUND_RATE_WINDOW_MS } from './signals.js';

// The fraud cases' SQL (docs/api.md#fraud-review) and the facts the signals read. The commissions a case
// holds are written by the ledger (commission-writes.ts); this file only reads them.

/** The open case of an affiliate and signal, locked for the rest of the transaction on PostgreSQL. */
export async function findOpenCase(db: Executor, refCode: string, signal: FraudSignal): Promise<FraudCase | undefined> {
  let q = db.selectFrom('fraud_cases').selectAll().where('ref_code', '=', refCode).where('signal', '=', signal).where('status', '=', 'open');
  if (dialectOf(db) === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Inserts a case; false when another writer opened the affiliate's case of that signal first (the one-open index). */
export async function insertCase(db: Executor, row: FraudCase): Promise<boolean> {
  const res = await db
    .insertInto('fraud_cases')
    .values(row)
    .onConflict((oc) => oc.columns(['ref_code', 'signal']).where('status', '=', sql.lit('open')).doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function updateEvidence(db: Executor, id: string, evidence: string, action: FraudAction, now: number): Promise<void> {
  await db.updateTable('fraud_cases').set({ evidence, action, updated_at: now }).where('id', '=', id).where('status', '=', 'open').execute();
}

/** An open case resolved, with what it held; false when it was not open (resolved by someone else first). */
export async function resolveCase(
  db: Executor,
  id: string,
  to: Exclude<FraudCaseStatus, 'open'>,
  held: { readonly count: number; readonly cents: number },
  note: string | null,
  now: number,
): Promise<boolean> {
  const res = await db
    .updateTable('fraud_cases')
    .set({ status: to, held_count: held.count, held_cents: held.cents, note, resolved_at: now, updated_at: now })
    .where('id', '=', id)
    .where('status', '=', 'open')
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function findCase(db: Executor, id: string): Promise<FraudCase | undefined> {
  let q = db.selectFrom('fraud_cases').selectAll().where('id', '=', id);
  if (db.isTransaction && dialectOf(db) === 'postgres') q = q.forUpdate();
  return q.executeTakeFirst();
}

/** Another open case of the affiliate that holds (the oldest), to take over a released case's commissions. */
export async function findOtherHoldingCase(db: Executor, refCode: string, exceptId: string): Promise<{ id: string; signal: FraudSignal } | undefined> {
  return db
    .selectFrom('fraud_cases')
    .select(['id', 'signal'])
    .where('ref_code', '=', refCode)
    .where('status', '=', 'open')
    .where('action', '=', 'hold')
    .where('id', '!=', exceptId)
    .orderBy('created_at')
    .orderBy('id')
    .executeTakeFirst();
}

/** Whether the affiliate has an open case that holds (a withdrawal is then refused). */
export async function hasHoldingCase(db: Executor, refCode: string): Promise<boolean> {
  const row = await db.selectFrom('fraud_cases').select('id').where('ref_code', '=', refCode).where('status', '=', 'open').where('action', '=', 'hold').executeTakeFirst();
  return row !== undefined;
}

export interface CaseFilter {
  readonly status?: FraudCaseStatus;
  readonly signal?: FraudSignal;
  readonly refCode?: string;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; limit + 1 rows. */
export async function listCases(db: Executor, f: CaseFilter): Promise<FraudCase[]> {
  const q = db
    .selectFrom('fraud_cases')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, signal: f.signal, ref_code: f.refCode })));
  return newestFirst(q, f, 'id').execute();
}

export async function countOpenCases(db: Executor): Promise<number> {
  const row = await db.selectFrom('fraud_cases').select((eb) => eb.fn.countAll<number | string>().as('n')).where('status', '=', 'open').executeTakeFirstOrThrow();
  return Number(row.n);
}

/** What the open cases among `ids` hold now: count and sum of their pending commissions. */
export async function heldByCases(db: Executor, ids: readonly string[]): Promise<Map<string, { count: number; cents: number }>> {
  if (ids.length === 0) return new Map();
  const rows = await db
    .selectFrom('commissions')
    .select((eb) => ['hold_case_id', eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>('commission_cents').as('cents')])
    .where('hold_case_id', 'in', ids)
    .where('status', '=', 'pending')
    .groupBy('hold_case_id')
    .execute();
  return new Map(rows.map((r) => [r.hold_case_id as string, { count: Number(r.n), cents: Number(r.cents ?? 0) }]));
}

/** The pending commissions a case holds, in the order the ledger moves them (locked on PostgreSQL). */
export async function findHeldCommissions(db: Executor, caseId: string): Promise<Commission[]> {
  let q = db.selectFrom('commissions').selectAll().where('hold_case_id', '=', caseId).where('status', '=', 'pending').orderBy('id');
  if (dialectOf(db) === 'postgres') q = q.forUpdate();
  return q.execute();
}

/** A portal sign-in from a network (salted hash), kept as first and last time per affiliate and network. */
export async function recordSignIn(db: Executor, refCode: string, ipHash: string, now: number): Promise<void> {
  await db
    .insertInto('portal_sign_ins')
    .values({ ref_code: refCode, ip_hash: ipHash, first_at: now, last_at: now })
    .onConflict((oc) => oc.columns(['ref_code', 'ip_hash']).doUpdateSet({ last_at: now }))
    .execute();
}

/** The payout details of every other affiliate, and those requested withdrawals keep, for duplicate_payout to compare. */
export async function findOtherPayoutDetails(db: Executor, refCode: string): Promise<{ ref_code: string; payout_details: string }[]> {
  // payout_details is JSON text; the comparison is made on its fields here, in code, over the accounts with
  // details (an affiliate's details change rarely; the accounts are thousands, not millions)
  const rows = await db.selectFrom('affiliate_accounts').select(['ref_code', 'payout_details']).where('payout_details', 'is not', null).where('ref_code', '!=', refCode).execute();
  // and the copies kept by requested withdrawals: details changed after a request still pay out as requested
  const requested = await db.selectFrom('withdrawals').select(['ref_code', 'payout as payout_details']).where('status', '=', 'requested').where('payout', 'is not', null).where('ref_code', '!=', refCode).execute();
  return [...rows, ...requested].filter((r): r is { ref_code: string; payout_details: string } => r.payout_details !== null);
}

/** An affiliate's orders paid since `now` − 30 days: how many, their amount and what was refunded of it. */
export async function recentOrderFacts(db: Executor, refCode: string, now: number): Promise<{ orders: number; amountCents: number; refundedCents: number }> {
  const row = await db
    .selectFrom('orders')
    .select((eb) => [eb.fn.countAll<number | string>().as('n'), eb.fn.sum<number | string>('amount_cents').as('amount'), eb.fn.sum<number | string>('refunded_cents').as('refunded')])
    .where('ref_code', '=', refCode)
    .where('paid_at', '>=', now - REFUND_RATE_WINDOW_MS)
    .executeTakeFirstOrThrow();
  return { orders: Number(row.n), amountCents: Number(row.amount ?? 0), refundedCents: Number(row.refunded ?? 0) };
}

/** The affiliate an order was attributed to, and that affiliate's email (an order whose email came later). */
export async function findOrderAffiliate(db: Executor, orderId: string): Promise<{ ref_code: string; email: string | null } | undefined> {
  return db
    .selectFrom('orders')
    .innerJoin('affiliates', 'affiliates.ref_code', 'orders.ref_code')
    .select(['affiliates.ref_code', 'affiliates.email'])
    .where('orders.order_id', '=', orderId)
    .executeTakeFirst();
}
