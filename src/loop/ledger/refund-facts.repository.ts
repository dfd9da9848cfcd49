import { sql } from 'kysely';
import { compiledPerDialect } from '../../platform/db/compiled-per-dialect.js';
import type { Executor } from '../../platform/db/database.js';
import type { Commission, CommissionsTable, Order } from '../../platform/db/schema.js';
import { ORDER_COLUMNS } from './order-writes.js';

/** What a refund reads before it decides (order.service.ts refundAs): the order and its sale commission. */

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
  'hold_case_id',
  'hold_signal',
] as const satisfies readonly (keyof CommissionsTable)[];
const allCommissionColumns: Exclude<keyof CommissionsTable, (typeof COMMISSION_COLUMNS)[number]> extends never ? true : never = true;
void allCommissionColumns;

/**
 * An order and its sale commission (if any) in one read, for a refund: the caller then updates both
 * conditionally on what it read here, so a concurrent writer makes it decide again rather than act on a
 * stale row.
 */
export async function findOrderWithSale(db: Executor, orderId: string): Promise<{ order: Order; sale: Commission | undefined } | undefined> {
  const { rows } = await db.executeQuery(orderWithSaleStatement(db, { orderId }));
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
const orderWithSaleStatement = compiledPerDialect<'orderId', Record<string, unknown>>(
  'findOrderWithSale',
  { orderId: '\u0000order-id' },
  (db, { orderId }) =>
    db
      .selectFrom('orders')
      .leftJoin('commissions', (j) => j.onRef('commissions.order_id', '=', 'orders.order_id').on('commissions.kind', '=', sql.lit('sale')))
      .select(ORDER_COLUMNS.map((c) => `orders.${c}` as const))
      .select((eb) => SALE_ALIASES.map(([c, alias]) => eb.ref(`commissions.${c}`).as(alias)))
      .where('orders.order_id', '=', orderId as string),
  { constants: false, once: true },
);
