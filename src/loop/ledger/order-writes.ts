import { type Insertable, type Selectable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { Order, OrdersTable } from '../../platform/db/schema.js';

/** The statements that write orders, as parts of a ledger plan: built here, run only by the executor. */

/** A new order, a guard: it changes no row when the order_id is already taken. */
export function orderInsert(db: Executor, row: Insertable<OrdersTable>): ChainedWrite {
  return (after) => {
    if (after) throw new Error('an order insert is the first guard of its plan');
    return db
      .insertInto('orders')
      .values(row)
      .onConflict((oc) => oc.column('order_id').doNothing())
      .returning('order_id');
  };
}

/** An order booked before its email was known (email ''): the email filled in, once; a guard (no row when it had one). */
export function orderEmailFill(db: Executor, orderId: string, email: string): ChainedWrite {
  return (after) => {
    let q = db.updateTable('orders').set({ email }).where('order_id', '=', orderId).where('email', '=', '');
    if (after) q = q.where(after);
    return q.returning('order_id');
  };
}

/**
 * Every column of an order, named (the type check keeps the list whole): the hot statements return
 * these rather than `*`, so they stay prepared on PostgreSQL across migrations that add columns.
 */
export const ORDER_COLUMNS = ['order_id', 'email', 'amount_cents', 'product', 'status', 'ref_code', 'created_at', 'paid_at', 'refunded_cents', 'named_ref_code'] as const satisfies readonly (keyof OrdersTable)[];
const allOrderColumns: Exclude<keyof OrdersTable, (typeof ORDER_COLUMNS)[number]> extends never ? true : never = true;
void allOrderColumns;

/**
 * What a payment needs to know about the order's affiliate, read in the same statement that marks it
 * paid: its own rate (null: the global one) and whether any commission rule names it or the order's
 * product (false: the policy need not fetch rules at all, the common case).
 */
export interface PaidAttribution {
  readonly ref_code: string;
  readonly commission_rate_bp: number | null;
  readonly rules_may_apply: boolean;
}

/**
 * created -> paid as one conditional UPDATE: under any interleaving of concurrent payers (threads,
 * instances, processes) exactly one sees a changed row and goes on to create the commission.
 * In the same statement the order is attributed: `ref_code` becomes the affiliate of the mailbox that
 * carries the order's email (looked up now, at payment), or null; and the attribution's facts come
 * back with the row, so a payment costs one round trip to know what it earns.
 * A guard: it changes no row when the order is not in `created` (unknown, or paid already: someone else won).
 */
export function orderPayment(db: Executor, orderId: string, paidAt: number) {
  return db
    .updateTable('orders')
    .set((eb) => ({
      status: 'paid' as const,
      paid_at: paidAt,
      // the mailbox's affiliate, else the active affiliate the order names itself
      ref_code: eb.fn.coalesce(
        eb
          .selectFrom('mailboxes')
          .innerJoin('affiliates', 'affiliates.ref_code', 'mailboxes.ref_code')
          .select('mailboxes.ref_code')
          .whereRef('mailboxes.address', '=', 'orders.email'),
        eb.selectFrom('affiliates').select('affiliates.ref_code').whereRef('affiliates.ref_code', '=', 'orders.named_ref_code').where('affiliates.status', '=', 'active'),
      ),
    }))
    .where('order_id', '=', orderId)
    .where('status', '=', 'created')
    .returning(ORDER_COLUMNS)
    // RETURNING sees the new row: these read the affiliate it was just attributed to
    .returning((eb) => [
      eb.selectFrom('affiliates').select('affiliates.commission_rate_bp').whereRef('affiliates.ref_code', '=', 'orders.ref_code').as('attributed_rate_bp'),
      eb
        .case()
        .when(
          eb.exists(
            eb
              .selectFrom('commission_rules')
              .select(sql`1`.as('one'))
              .where((r) => r.or([r('commission_rules.ref_code', '=', r.ref('orders.ref_code')), r('commission_rules.product', '=', r.ref('orders.product'))])),
          ),
        )
        .then(1)
        .else(0)
        .end()
        .as('attributed_rules'),
    ]);
}

/** What the paying UPDATE (orderPayment) returned: the paid order and its attribution's facts. */
export function paymentOf(row: PaymentRow): { order: Order; attribution?: PaidAttribution } {
  const { attributed_rate_bp, attributed_rules, ...order } = row;
  if (order.ref_code === null) return { order };
  return { order, attribution: { ref_code: order.ref_code, commission_rate_bp: attributed_rate_bp ?? null, rules_may_apply: Number(attributed_rules) === 1 } };
}

/**
 * A refund of `cents` on a paid order: the order it leaves, and its UPDATE, conditional on the refunded
 * total just read (`before`), as the first write of the refund's chain (see writeChain): it changes no
 * row when a concurrent refund changed the total first. Status follows what is left.
 */
export function orderRefund(db: Executor, before: Order, cents: number): { readonly after: Order; readonly write: ChainedWrite } {
  const total = before.refunded_cents + cents;
  const set = { refunded_cents: total, status: total >= before.amount_cents ? ('refunded' as const) : ('partially_refunded' as const) };
  return {
    after: { ...before, ...set },
    write: (after) => {
      let q = db
        .updateTable('orders')
        .set(set)
        .where('order_id', '=', before.order_id)
        .where('status', '!=', 'created')
        .where('refunded_cents', '=', before.refunded_cents);
      if (after) q = q.where(after);
      return q.returning('order_id');
    },
  };
}

/** The row orderPayment returns. */
type PaymentRow = Selectable<OrdersTable> & { attributed_rate_bp: number | null; attributed_rules: number | string | null };
