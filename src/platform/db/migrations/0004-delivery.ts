import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Delivery of outbox events: one `deliveries` row per (event, target) with its lease and schedule, one
 * `delivery_attempts` row per try. `events.fanned_out_at` marks the events already turned into deliveries,
 * so fan-out is a claim on an index instead of a scan of the whole outbox.
 */
export function delivery(dialect: Dialect) {
  const autoId = dialect === 'sqlite' ? ('integer' as const) : sql`bigserial`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('events').addColumn('fanned_out_at', 'bigint').execute();
      await db.schema.createIndex('events_fanout').on('events').columns(['fanned_out_at', 'seq']).execute();

      await db.schema
        .createTable('deliveries')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('event_id', 'text', (c) => c.notNull())
        .addColumn('event_type', 'text', (c) => c.notNull())
        .addColumn('target', 'text', (c) => c.notNull())
        .addColumn('url', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('next_attempt_at', 'bigint')
        .addColumn('locked_until', 'bigint')
        .addColumn('lock_token', 'text')
        .addColumn('last_status_code', 'integer')
        .addColumn('last_error', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('delivered_at', 'bigint')
        .addUniqueConstraint('deliveries_event_target', ['event_id', 'target'])
        .execute();
      await db.schema.createIndex('deliveries_due').on('deliveries').columns(['status', 'next_attempt_at']).execute();
      await db.schema.createIndex('deliveries_type').on('deliveries').columns(['event_type', 'id']).execute();

      await db.schema
        .createTable('delivery_attempts')
        .addColumn('id', autoId, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('delivery_id', 'text', (c) => c.notNull().references('deliveries.id').onDelete('cascade'))
        .addColumn('at', 'bigint', (c) => c.notNull())
        .addColumn('status_code', 'integer')
        .addColumn('latency_ms', 'integer', (c) => c.notNull())
        .addColumn('error', 'text')
        .addColumn('response_body', 'text')
        .execute();
      await db.schema.createIndex('delivery_attempts_delivery').on('delivery_attempts').columns(['delivery_id', 'id']).execute();
    },
  };
}
