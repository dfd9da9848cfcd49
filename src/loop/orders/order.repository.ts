import { type Insertable, sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from '../../platform/db/write-together.js';
import type { Order, OrderStatus, OrdersTable } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

/** Inserts a new order; false when the order_id is already taken. */
export async function insertOrder(db: Executor, row: Insertable<OrdersTable>): Promise<boolean> {
  const res = await db
    .insertInto('orders')
    .values(row)
    .onConflict((oc) => oc.column('order_id').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** An order booked before its email was known (email ''): the email filled in, once; false when it had one. */
export async function fillOrderEmail(db: Executor, orderId: string, email: string): Promise<boolean> {
  const res = await db.updateTable('orders').set({ email }).where('order_id', '=', orderId).where('email', '=', '').executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function findOrder(db: Executor, orderId: string): Promise<Order | undefined> {
  return db.selectFrom('orders').selectAll().where('order_id', '=', orderId).executeTakeFirst();
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
 * Undefined when the order is not in `created` (unknown, or paid already: someone else won).
 */
export async function markOrderPaid(db: Executor, orderId: string, paidAt: number): Promise<{ order: Order; attribution?: PaidAttribution } | undefined> {
  const row = await db
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
    ])
    .executeTakeFirst();
  if (!row) return undefined;
  const { attributed_rate_bp, attributed_rules, ...order } = row;
  if (order.ref_code === null) return { order };
  return { order, attribution: { ref_code: order.ref_code, commission_rate_bp: attributed_rate_bp ?? null, rules_may_apply: Number(attributed_rules) === 1 } };
}

/**
 * A refund of `cents` on a paid order: the order it leaves, and its UPDATE, conditional on the refunded
 * total just read (`before`), as the first write of the refund's chain (see writeChain): it changes no
 * row when a concurrent refund changed the total first. Status follows what is left.
 */
export function addRefund(db: Executor, before: Order, cents: number): { readonly after: Order; readonly write: ChainedWrite } {
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

export interface OrderFilter {
  readonly status?: OrderStatus;
  readonly email?: string;
  /** Prefix of order_id or email. */
  readonly q?: string;
  readonly after?: PageCursor;
  readonly limit: number;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listOrders(db: Executor, f: OrderFilter): Promise<Order[]> {
  let q = db
    .selectFrom('orders')
    .selectAll()
    .where((eb) => eb.and(given({ status: f.status, email: f.email })));
  const search = f.q;
  if (search) {
    // substr instead of LIKE: the same exact, case-sensitive prefix match on both dialects, no escaping.
    const lower = search.toLowerCase();
    q = q.where((eb) =>
      eb.or([
        eb(sql<string>`substr(order_id, 1, ${Array.from(search).length})`, '=', search),
        eb(sql<string>`substr(email, 1, ${Array.from(lower).length})`, '=', lower),
      ]),
    );
  }
  return newestFirst(q, f, 'order_id').execute();
}

/** Whether any order exists (docs/api.md#payouts: the currency is locked from the first one). */
export async function anyOrderExists(db: Executor): Promise<boolean> {
  return (await db.selectFrom('orders').select('order_id').limit(1).executeTakeFirst()) !== undefined;
}
