import { CompiledQuery, type Insertable, sql } from 'kysely';
import { type Dialect, dialectOf, type Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from '../../platform/db/write-together.js';
import type { Commission, CommissionKind, CommissionStatus, CommissionsTable, Order, VoidReason } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';
import { ORDER_COLUMNS } from '../orders/order.repository.js';

/** The INSERT of a commission, not yet run: for a ledger plan's inserts. */
export function commissionInsert(db: Executor, row: Insertable<CommissionsTable>) {
  return db.insertInto('commissions').values(row);
}

export async function findCommission(db: Executor, id: string): Promise<Commission | undefined> {
  return db.selectFrom('commissions').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Every column of a commission row (the type check below keeps the list whole). */
const COMMISSION_COLUMNS = [
  'id',
  'order_id',
  'ref_code',
  'amount_cents',
  'rate_bp',
  'commission_cents',
  'status',
  'created_at',
  'updated_at',
  'approved_at',
  'paid_at',
  'voided_at',
  'kind',
  'rule_id',
  'void_reason',
  'flat_cents',
] as const satisfies readonly (keyof CommissionsTable)[];
const allCommissionColumns: Exclude<keyof CommissionsTable, (typeof COMMISSION_COLUMNS)[number]> extends never ? true : never = true;
void allCommissionColumns;

/**
 * An order and its sale commission (if any) in one read, for a refund: the caller then updates both
 * conditionally on what it read here, so a concurrent writer makes it decide again rather than act on a
 * stale row.
 */
export async function findOrderWithSale(db: Executor, orderId: string): Promise<{ order: Order; sale: Commission | undefined } | undefined> {
  const { rows } = await db.executeQuery<Record<string, unknown>>(orderWithSaleQuery(db, orderId));
  const row = rows[0];
  if (!row) return undefined;
  const order: Record<string, unknown> = {};
  const sale: Record<string, unknown> = {};
  for (const c of ORDER_COLUMNS) order[c] = row[c];
  for (const [c, alias] of SALE_ALIASES) sale[c] = row[alias];
  return { order: order as unknown as Order, sale: sale.id == null ? undefined : (sale as unknown as Commission) };
}

/** Each commission column and the name findOrderWithSale's statement gives it. */
const SALE_ALIASES = COMMISSION_COLUMNS.map((c) => [c, `sale_${c}`] as const);

/**
 * findOrderWithSale's statement: its text depends only on the dialect, so it is built and compiled
 * through Kysely once per dialect (a join of every column of both tables is a refund's costliest compile)
 * and then only takes the order id, its one value. 'sale' is written in the text, not bound: SQLite picks
 * the partial index commissions_sale_order by the bound value and so prepares a statement with `kind = ?`
 * again on every run (four times the cost of the read itself).
 */
const ORDER_WITH_SALE = new Map<Dialect, string>();
function orderWithSaleQuery(db: Executor, orderId: string): CompiledQuery {
  const dialect = dialectOf(db);
  let text = ORDER_WITH_SALE.get(dialect);
  if (text === undefined) {
    const compiled = db
      .selectFrom('orders')
      .leftJoin('commissions', (j) => j.onRef('commissions.order_id', '=', 'orders.order_id').on('commissions.kind', '=', sql.lit('sale')))
      .select(ORDER_COLUMNS.map((c) => `orders.${c}` as const))
      .select((eb) => SALE_ALIASES.map(([c, alias]) => eb.ref(`commissions.${c}`).as(alias)))
      .where('orders.order_id', '=', orderId)
      .compile();
    if (compiled.parameters.length !== 1) throw new Error('findOrderWithSale: the order id is not the one value of its statement');
    text = compiled.sql;
    ORDER_WITH_SALE.set(dialect, text);
  }
  return CompiledQuery.raw(text, [orderId]);
}

/**
 * The sale commission of an order (at most one; clawbacks repeat the order_id and are not it). The kind
 * is written into the text here and below, as in findOrderWithSale's statement, so that SQLite does not
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

/**
 * Moves a commission from exactly the state `from` (its status and its amount, as just read) to `to`;
 * undefined when another writer changed it first, so the caller re-reads instead of acting on a stale
 * state. The amount is part of the condition because the ledger books `from`'s amount: a refund may
 * reduce an open commission between the read and this update (PostgreSQL, read committed).
 */
export async function transitionCommission(
  db: Executor,
  id: string,
  from: Pick<Commission, 'status' | 'commission_cents'>,
  to: CommissionStatus,
  now: number,
): Promise<Commission | undefined> {
  const stamps =
    to === 'approved'
      ? { approved_at: now }
      : to === 'paid'
        ? { paid_at: now, ...(from.status === 'pending' ? { approved_at: now } : {}) }
        : to === 'void'
          ? { voided_at: now }
          : {};
  return db
    .updateTable('commissions')
    .set({ status: to, updated_at: now, ...stamps })
    .where('id', '=', id)
    .where('status', '=', from.status)
    .where('commission_cents', '=', from.commission_cents)
    .returning(COMMISSION_COLUMNS)
    .executeTakeFirst();
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
 * A refund changes an open (pending or approved) commission: its amount becomes `toCents`, or it is
 * voided for the refund. The commission it leaves, and its UPDATE as a write of the refund's chain (see
 * writeChain), conditional on the state and amount just read: it changes no row when another writer
 * changed them first.
 */
export function refundOpenCommission(
  db: Executor,
  before: Commission,
  change: { readonly toCents: number } | { readonly voidFor: VoidReason },
  now: number,
): { readonly after: Commission; readonly write: ChainedWrite } {
  const set =
    'voidFor' in change
      ? { status: 'void' as const, void_reason: change.voidFor, voided_at: now, updated_at: now }
      : { commission_cents: change.toCents, updated_at: now };
  return {
    after: { ...before, ...set },
    write: (after) => {
      let q = db
        .updateTable('commissions')
        .set(set)
        .where('id', '=', before.id)
        .where('status', '=', before.status)
        .where('commission_cents', '=', before.commission_cents);
      if (after) q = q.where(after);
      return q.returning('id');
    },
  };
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
    .orderBy('created_at')
    .limit(limit)
    .execute();
  return rows.map((r) => r.id);
}
