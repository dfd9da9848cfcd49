import type { Executor } from '../db/database.js';

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
