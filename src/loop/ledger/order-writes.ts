import { type Compilable, type Insertable, type Selectable, sql } from 'kysely';
import { compiledPerDialect } from '../../platform/db/compiled-per-dialect.js';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import { SIGN_IN_WINDOW_MS } from '../fraud/signals.js';
import type { FraudSignal, Order, OrdersTable } from '../../platform/db/schema.js';

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
  /** The affiliate's own email (self_referral, docs/api.md#fraud-review). */
  readonly email: string | null;
  /** The affiliate's open fraud case that holds, if any: the new commission is held by it. */
  readonly heldBy: { readonly id: string; readonly signal: FraudSignal } | undefined;
  /** The order's mailbox was created from a network the affiliate signed in to the portal from within 30 days of it: both times. */
  readonly signedInNetwork: { readonly mailboxCreatedAt: number; readonly signedInAt: number } | undefined;
}


/**
 * created -> paid as one conditional UPDATE: under any interleaving of concurrent payers (threads,
 * instances, processes) exactly one sees a changed row and goes on to create the commission.
 * In the same statement the order is attributed: `ref_code` becomes the affiliate of the mailbox that
 * carries the order's email (looked up now, at payment), or null; and the attribution's facts come
 * back with the row, so a payment costs one round trip to know what it earns.
 * A guard: it changes no row when the order is not in `created` (unknown, or paid already: someone else won).
 */
export function orderPayment(db: Executor, orderId: string, paidAt: number): Compilable<PaymentRow> {
  return { compile: () => paymentStatement(db, { orderId, paidAt }) };
}

/**
 * The paying UPDATE's text depends only on the dialect: it is built and compiled through Kysely once per
 * dialect and then only takes the order id and the time (its scalar subqueries made building it each time a
 * tenth of a payment's CPU). The other values are constants of the text, kept in their places.
 */
const paymentStatement = compiledPerDialect<'orderId' | 'paidAt', PaymentRow>(
  'orderPayment',
  { orderId: '\u0000order-id', paidAt: -424_242_424_242 },
  (db, { orderId, paidAt }) => paymentQuery(db, orderId as string, paidAt as number),
  { constants: true, once: true },
);

function paymentQuery(db: Executor, orderId: string, paidAt: number) {
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
      // docs/api.md#fraud-review: what the signals of a payment read, in the same statement
      eb.selectFrom('affiliates').select('affiliates.email').whereRef('affiliates.ref_code', '=', 'orders.ref_code').as('attributed_email'),
      eb
        .selectFrom('fraud_cases')
        .select(sql<string>`fraud_cases.id || ' ' || fraud_cases.signal`.as('held'))
        .whereRef('fraud_cases.ref_code', '=', 'orders.ref_code')
        .where('fraud_cases.status', '=', sql.lit('open'))
        .where('fraud_cases.action', '=', sql.lit('hold'))
        .orderBy('fraud_cases.created_at')
        .orderBy('fraud_cases.id')
        .limit(1)
        .as('held_by'),
      eb
        .selectFrom('referrals')
        .innerJoin('portal_sign_ins', (j) => j.onRef('portal_sign_ins.ref_code', '=', 'referrals.ref_code').onRef('portal_sign_ins.ip_hash', '=', 'referrals.ip_hash'))
        // "<mailbox created> <the sign-in nearest to it>"
        .select(
          sql<string>`cast(referrals.created_at as text) || ' ' || cast(case when portal_sign_ins.last_at <= referrals.created_at then portal_sign_ins.last_at when portal_sign_ins.first_at >= referrals.created_at then portal_sign_ins.first_at else referrals.created_at end as text)`.as(
            'signed_in',
          ),
        )
        .whereRef('referrals.mailbox_address', '=', 'orders.email')
        .whereRef('referrals.ref_code', '=', 'orders.ref_code')
        .where(sql<boolean>`portal_sign_ins.last_at >= referrals.created_at - ${sql.lit(SIGN_IN_WINDOW_MS)}`)
        .where(sql<boolean>`portal_sign_ins.first_at <= referrals.created_at + ${sql.lit(SIGN_IN_WINDOW_MS)}`)
        .limit(1)
        .as('signed_in_mailbox_at'),
    ]);
}

/** What the paying UPDATE (orderPayment) returned: the paid order and its attribution's facts. */
export function paymentOf(row: PaymentRow): { order: Order; attribution?: PaidAttribution } {
  const { attributed_rate_bp, attributed_rules, attributed_email, held_by, signed_in_mailbox_at, ...order } = row;
  if (order.ref_code === null) return { order };
  const held = held_by ? held_by.split(' ') : undefined;
  const signedIn = signed_in_mailbox_at ? signed_in_mailbox_at.split(' ') : undefined;
  return {
    order,
    attribution: {
      ref_code: order.ref_code,
      commission_rate_bp: attributed_rate_bp ?? null,
      rules_may_apply: Number(attributed_rules) === 1,
      email: attributed_email ?? null,
      heldBy: held?.[0] && held[1] ? { id: held[0], signal: held[1] as FraudSignal } : undefined,
      signedInNetwork: signedIn?.length === 2 ? { mailboxCreatedAt: Number(signedIn[0]), signedInAt: Number(signedIn[1]) } : undefined,
    },
  };
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
type PaymentRow = Selectable<OrdersTable> & {
  attributed_rate_bp: number | null;
  attributed_rules: number | string | null;
  attributed_email: string | null;
  held_by: string | null;
  signed_in_mailbox_at: string | null;
};
