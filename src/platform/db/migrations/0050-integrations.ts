import type { Kysely } from 'kysely';

/**
 * Orders from billing systems (docs/api.md, "Integrations"): `orders.named_ref_code` is the affiliate an
 * order names itself (`ref_code`, or a provider event's `svc_ref`), used at payment when its email names
 * no attributed mailbox. `integration_events` logs every provider event acted on; its unique
 * (provider, dedupe_key) is written in the same transaction as the event's effect, so a delivery is acted
 * on once. A refund for an order not known yet waits there (`waiting_order_id`) until the order arrives;
 * `payment_ref` is a paid order's other name (a Stripe invoice's payment intent, which its disputes name).
 * `billing_customers` holds the emails Paddle sends apart from its transactions.
 */
export function integrations() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('orders').addColumn('named_ref_code', 'text').execute();
      await db.schema
        .createTable('integration_events')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('dedupe_key', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('provider_event_id', 'text')
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addColumn('outcome', 'text', (c) => c.notNull())
        .addColumn('reason', 'text')
        .addColumn('order_id', 'text')
        .addColumn('waiting_order_id', 'text')
        .addColumn('refund_json', 'text')
        .addColumn('payment_ref', 'text')
        .addUniqueConstraint('integration_events_key', ['provider', 'dedupe_key'])
        .execute();
      await db.schema.createIndex('integration_events_received').on('integration_events').columns(['received_at', 'id']).execute();
      await db.schema.createIndex('integration_events_payment_ref').on('integration_events').column('payment_ref').execute();
      await db.schema.createIndex('integration_events_waiting').on('integration_events').column('waiting_order_id').execute();
      await db.schema
        .createTable('billing_customers')
        .addColumn('provider', 'text', (c) => c.notNull())
        .addColumn('customer_id', 'text', (c) => c.notNull())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('billing_customers_pk', ['provider', 'customer_id'])
        .execute();
    },
  };
}
