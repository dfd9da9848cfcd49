import type { Executor } from '../db/database.js';
import type { Commission, CommissionStatus, CommissionsTable } from '../db/schema.js';
import { olderThan, type PageCursor } from '../db/keyset.js';

export async function insertCommission(db: Executor, row: CommissionsTable): Promise<void> {
  await db.insertInto('commissions').values(row).execute();
}

export async function findCommission(db: Executor, id: string): Promise<Commission | undefined> {
  return db.selectFrom('commissions').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function findCommissionByOrder(db: Executor, orderId: string): Promise<Commission | undefined> {
  return db.selectFrom('commissions').selectAll().where('order_id', '=', orderId).executeTakeFirst();
}

/** The commissions of these orders (at most one each), for a page of the order list. */
export async function findCommissionsByOrders(db: Executor, orderIds: readonly string[]): Promise<Commission[]> {
  if (orderIds.length === 0) return [];
  return db.selectFrom('commissions').selectAll().where('order_id', 'in', orderIds).execute();
}

/**
 * Moves a commission from exactly `from` to `to`; false when another writer changed it first, so the
 * caller re-reads instead of acting on a stale state.
 */
export async function transitionCommission(
  db: Executor,
  id: string,
  from: CommissionStatus,
  to: CommissionStatus,
  now: number,
): Promise<Commission | undefined> {
  const stamps =
    to === 'approved'
      ? { approved_at: now }
      : to === 'paid'
        ? { paid_at: now, ...(from === 'pending' ? { approved_at: now } : {}) }
        : to === 'void'
          ? { voided_at: now }
          : {};
  return db
    .updateTable('commissions')
    .set({ status: to, updated_at: now, ...stamps })
    .where('id', '=', id)
    .where('status', '=', from)
    .returningAll()
    .executeTakeFirst();
}

export interface CommissionFilter {
  readonly status?: CommissionStatus;
  readonly refCode?: string;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listCommissions(db: Executor, f: CommissionFilter): Promise<Commission[]> {
  let q = db.selectFrom('commissions').selectAll();
  if (f.status) q = q.where('status', '=', f.status);
  if (f.refCode) q = q.where('ref_code', '=', f.refCode);
  const after = f.after;
  if (after) q = q.where(olderThan(after, 'id'));
  return q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit + 1).execute();
}
