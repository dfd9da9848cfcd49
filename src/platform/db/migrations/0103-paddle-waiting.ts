import type { Kysely } from 'kysely';

/**
 * docs/api.md, "Integrations": a Paddle `transaction.completed` whose customer svc has not learnt yet is
 * kept on its log row until the customer's notification arrives. `waiting_customer_id` names that customer
 * (null when nothing waits); `pay_json` holds the parsed payment still to book (null once booked, or for a
 * transaction booked at once by its `svc_ref` whose order only waits for its email). Existing rows wait for
 * nothing, so both start null.
 */
export function paddleWaiting() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('integration_events').addColumn('waiting_customer_id', 'text').execute();
      await db.schema.alterTable('integration_events').addColumn('pay_json', 'text').execute();
      await db.schema.createIndex('integration_events_waiting_customer').on('integration_events').columns(['provider', 'waiting_customer_id']).execute();
    },
  };
}
