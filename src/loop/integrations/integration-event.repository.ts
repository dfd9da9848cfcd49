import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { IntegrationEvent, IntegrationProvider } from '../../platform/db/schema.js';

export async function findEventByKey(db: Executor, provider: IntegrationProvider, dedupeKey: string): Promise<IntegrationEvent | undefined> {
  return db.selectFrom('integration_events').selectAll().where('provider', '=', provider).where('dedupe_key', '=', dedupeKey).executeTakeFirst();
}

export async function findEvent(db: Executor, id: string): Promise<IntegrationEvent | undefined> {
  return db.selectFrom('integration_events').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The refunds waiting for this order, oldest first. */
export async function findWaitingRefunds(db: Executor, orderId: string): Promise<IntegrationEvent[]> {
  return db.selectFrom('integration_events').selectAll().where('waiting_order_id', '=', orderId).orderBy('received_at').orderBy('id').execute();
}

export interface EventFilter {
  readonly provider?: IntegrationProvider;
  readonly after?: readonly [number, string];
  readonly limit: number;
}

/** Newest first; limit + 1 rows. */
export async function listEvents(db: Executor, f: EventFilter): Promise<IntegrationEvent[]> {
  let q = db.selectFrom('integration_events').selectAll();
  if (f.provider) q = q.where('provider', '=', f.provider);
  const after = f.after;
  if (after) q = q.where(sql<boolean>`(received_at <= ${after[0]} and (received_at < ${after[0]} or id < ${after[1]}))`);
  return q.orderBy('received_at', 'desc').orderBy('id', 'desc').limit(f.limit + 1).execute();
}

export async function upsertCustomer(db: Executor, provider: IntegrationProvider, customerId: string, email: string, now: number): Promise<void> {
  await db
    .insertInto('billing_customers')
    .values({ provider, customer_id: customerId, email, updated_at: now })
    .onConflict((oc) => oc.columns(['provider', 'customer_id']).doUpdateSet({ email, updated_at: now }))
    .execute();
}

export async function findCustomerEmail(db: Executor, provider: IntegrationProvider, customerId: string): Promise<string | undefined> {
  const row = await db.selectFrom('billing_customers').select('email').where('provider', '=', provider).where('customer_id', '=', customerId).executeTakeFirst();
  return row?.email;
}

/** The other names (payment_ref) the events know for an order. */
export async function findPaymentRefs(db: Executor, provider: IntegrationProvider, orderId: string): Promise<string[]> {
  const rows = await db
    .selectFrom('integration_events')
    .select('payment_ref')
    .distinct()
    .where('provider', '=', provider)
    .where('order_id', '=', orderId)
    .where('payment_ref', 'is not', null)
    .execute();
  return rows.flatMap((r) => (r.payment_ref ? [r.payment_ref] : []));
}

/** The order a paid event booked under another name (payment_ref), if any. */
export async function findOrderIdByPaymentRef(db: Executor, provider: IntegrationProvider, paymentRef: string): Promise<string | undefined> {
  const row = await db
    .selectFrom('integration_events')
    .select('order_id')
    .where('provider', '=', provider)
    .where('payment_ref', '=', paymentRef)
    .where('order_id', 'is not', null)
    .executeTakeFirst();
  return row?.order_id ?? undefined;
}

/** The log rows that wait for this customer's email: transactions to book (pay_json) and booked orders whose email is to fill, oldest first. */
export async function findWaitingForCustomer(db: Executor, provider: IntegrationProvider, customerId: string): Promise<IntegrationEvent[]> {
  return db
    .selectFrom('integration_events')
    .selectAll()
    .where('provider', '=', provider)
    .where('waiting_customer_id', '=', customerId)
    .orderBy('received_at')
    .orderBy('id')
    .execute();
}

/** How many of a provider's transactions wait for their customer: to book, and booked with the email to fill. */
export async function countWaitingForCustomer(db: Executor, provider: IntegrationProvider): Promise<{ toBook: number; emailToFill: number }> {
  const row = await db
    .selectFrom('integration_events')
    .select((eb) => [
      eb.fn.count<number | string | bigint>('id').filterWhere('pay_json', 'is not', null).as('to_book'),
      eb.fn.count<number | string | bigint>('id').filterWhere('pay_json', 'is', null).as('email_to_fill'),
    ])
    .where('provider', '=', provider)
    .where('waiting_customer_id', 'is not', null)
    .executeTakeFirstOrThrow();
  return { toBook: Number(row.to_book), emailToFill: Number(row.email_to_fill) };
}
