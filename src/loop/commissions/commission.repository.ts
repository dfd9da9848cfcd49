import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { Commission, CommissionKind, CommissionStatus } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

export async function findCommission(db: Executor, id: string): Promise<Commission | undefined> {
  return db.selectFrom('commissions').selectAll().where('id', '=', id).executeTakeFirst();
}

/**
 * The sale commission of an order (at most one; clawbacks repeat the order_id and are not it). The kind
 * is written into the text here and below, as in findOrderWithSale's statement (ledger/refund-facts.repository.ts), so that SQLite does not
 * prepare the statement again on every run.
 */
export async function findCommissionByOrder(db: Executor, orderId: string): Promise<Commission | undefined> {
  return db.selectFrom('commissions').selectAll().where('order_id', '=', orderId).where('kind', '=', sql.lit('sale')).executeTakeFirst();
}

/** The clawbacks booked against an order, oldest first. */
export async function findClawbacksByOrder(db: Executor, orderId: string): Promise<Commission[]> {
  return db.selectFrom('commissions').selectAll().where('order_id', '=', orderId).where('kind', '=', sql.lit('clawback')).orderBy('created_at').orderBy('id').execute();
}

/** The commissions of these orders (at most one each), for a page of the order list. */
export async function findCommissionsByOrders(db: Executor, orderIds: readonly string[]): Promise<Commission[]> {
  if (orderIds.length === 0) return [];
  return db.selectFrom('commissions').selectAll().where('order_id', 'in', orderIds).where('kind', '=', sql.lit('sale')).execute();
}

export interface CommissionFilter {
  readonly status?: CommissionStatus;
  readonly refCode?: string;
  readonly kind?: CommissionKind;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listCommissions(db: Executor, f: CommissionFilter): Promise<Commission[]> {
  const q = db
    .selectFrom('commissions')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, ref_code: f.refCode, kind: f.kind })));
  return newestFirst(q, f, 'id').execute();
}

/**
 * Pending commissions created (their order paid) at `paidBy` or before, oldest first, through the index
 * on (status, created_at); the caller moves each conditionally. Only sale commissions are ever pending.
 */
export async function findDueCommissionIds(db: Executor, paidBy: number, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('commissions')
    .select('id')
    .where('status', '=', 'pending')
    .where('created_at', '<=', paidBy)
    // held by an open fraud case (docs/api.md#fraud-review): the holding period does not approve it
    .where('hold_case_id', 'is', null)
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
