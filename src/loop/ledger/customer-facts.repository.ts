import { sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
import type { CommissionRule } from '../../platform/db/schema.js';

/** When the customer mailbox at this address was attributed to an affiliate (its creation), if it was. */
export async function findAttributedAt(db: Executor, address: string): Promise<number | null> {
  const row = await db.selectFrom('mailboxes').select('created_at').where('address', '=', address).where('ref_code', 'is not', null).executeTakeFirst();
  return row ? row.created_at : null;
}

/** How many orders of this customer email earned a (sale) commission so far. */
export async function countCommissionedOrders(db: Executor, email: string): Promise<number> {
  const row = await db
    .selectFrom('commissions')
    .innerJoin('orders', 'orders.order_id', 'commissions.order_id')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('orders.email', '=', email)
    .where('commissions.kind', '=', 'sale')
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/**
 * Serialises the payments of one customer email until the transaction ends, so that a rule's limit on
 * commissioned orders is counted on what the previous payer committed. PostgreSQL only: a transaction
 * lock keyed on the email (no row to lock may exist: the mailbox can be gone). SQLite needs nothing,
 * as the payment's first statement already holds the database's only write lock. Lock order: after the
 * order row, before the counter rows.
 */
export async function lockCustomer(db: Executor, email: string): Promise<void> {
  if (dialectOf(db) !== 'postgres') return;
  await sql`select pg_advisory_xact_lock(hashtextextended(${`svc:customer:${email}`}, 0))`.execute(db);
}

/** The rules that could apply to an order of this product attributed to this affiliate. */
/** The commission rules that may apply to a sale of `product` by `refCode` (the policy picks one, commission-policy.ts). */
export async function findCandidateRules(db: Executor, refCode: string, product: string): Promise<CommissionRule[]> {
  return db
    .selectFrom('commission_rules')
    .selectAll()
    .where((eb) => eb.or([eb('ref_code', '=', refCode), eb('product', '=', product)]))
    .execute();
}
