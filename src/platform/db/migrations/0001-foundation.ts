import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The whole first schema: foundation tables and those of the affiliate loop and outbox, so that the
 * features can be built against one agreed layout. Later changes are new migration files.
 */
export function foundation(dialect: Dialect) {
  const autoId = dialect === 'sqlite' ? ('integer' as const) : sql`bigserial`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('settings')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('value', 'text', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('admin_users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('username', 'text', (c) => c.notNull().unique())
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();

      await db.schema
        .createTable('admin_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull().references('admin_users.id').onDelete('cascade'))
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('admin_sessions_expires').on('admin_sessions').column('expires_at').execute();

      await db.schema
        .createTable('affiliates')
        .addColumn('ref_code', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text')
        .addColumn('email', 'text')
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('commission_rate_bp', 'integer')
        .addColumn('balance_cents', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addCheckConstraint('affiliates_balance_nonnegative', sql`balance_cents >= 0`)
        .execute();
      await db.schema.createIndex('affiliates_created').on('affiliates').columns(['created_at', 'ref_code']).execute();

      await db.schema
        .createTable('clicks')
        .addColumn('id', autoId, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('ip_hash', 'text')
        .addColumn('user_agent', 'text')
        .addColumn('referer', 'text')
        .addColumn('network_click_ids', 'text')
        .execute();
      await db.schema.createIndex('clicks_ref_created').on('clicks').columns(['ref_code', 'created_at']).execute();

      await db.schema
        .createTable('mailboxes')
        .addColumn('address', 'text', (c) => c.primaryKey())
        .addColumn('local_part', 'text', (c) => c.notNull())
        .addColumn('domain', 'text', (c) => c.notNull())
        .addColumn('ref_code', 'text')
        .addColumn('token_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mailboxes_ref').on('mailboxes').columns(['ref_code', 'created_at']).execute();

      await db.schema
        .createTable('referrals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('mailbox_address', 'text', (c) => c.notNull().unique())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('network_click_ids', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('referrals_ref_created').on('referrals').columns(['ref_code', 'created_at']).execute();

      await db.schema
        .createTable('orders')
        .addColumn('order_id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull())
        .addColumn('amount_cents', 'bigint', (c) => c.notNull())
        .addColumn('product', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('ref_code', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('paid_at', 'bigint')
        .execute();
      await db.schema.createIndex('orders_created').on('orders').columns(['created_at', 'order_id']).execute();
      await db.schema.createIndex('orders_email').on('orders').column('email').execute();

      await db.schema
        .createTable('commissions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('order_id', 'text', (c) => c.notNull().unique())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('amount_cents', 'bigint', (c) => c.notNull())
        .addColumn('rate_bp', 'integer', (c) => c.notNull())
        .addColumn('commission_cents', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('approved_at', 'bigint')
        .addColumn('paid_at', 'bigint')
        .addColumn('voided_at', 'bigint')
        .execute();
      await db.schema.createIndex('commissions_ref_created').on('commissions').columns(['ref_code', 'created_at']).execute();
      await db.schema.createIndex('commissions_status_created').on('commissions').columns(['status', 'created_at']).execute();

      await db.schema
        .createTable('withdrawals')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('amount_cents', 'bigint', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('paid_at', 'bigint')
        .addColumn('rejected_at', 'bigint')
        .execute();
      await db.schema.createIndex('withdrawals_ref_created').on('withdrawals').columns(['ref_code', 'created_at']).execute();
      await db.schema.createIndex('withdrawals_status_created').on('withdrawals').columns(['status', 'created_at']).execute();

      let daily = db.schema
        .createTable('daily_stats')
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('day', 'text', (c) => c.notNull());
      for (const col of [
        'clicks',
        'mailboxes',
        'orders',
        'commission_pending_cents',
        'commission_approved_cents',
        'commission_paid_cents',
        'commission_void_cents',
        'withdrawals_requested_cents',
        'withdrawals_paid_cents',
      ]) {
        daily = daily.addColumn(col, 'bigint', (c) => c.notNull().defaultTo(0));
      }
      await daily.addPrimaryKeyConstraint('daily_stats_pk', ['ref_code', 'day']).execute();
      await db.schema.createIndex('daily_stats_day').on('daily_stats').columns(['day', 'ref_code']).execute();

      await db.schema
        .createTable('idempotency_keys')
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('path', 'text', (c) => c.notNull())
        .addColumn('request_hash', 'text', (c) => c.notNull())
        .addColumn('state', 'text', (c) => c.notNull())
        .addColumn('response_status', 'integer')
        .addColumn('response_body', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('idempotency_keys_created').on('idempotency_keys').column('created_at').execute();

      await db.schema
        .createTable('events')
        .addColumn('seq', autoId, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull().unique())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('payload', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('events_type_created').on('events').columns(['type', 'created_at']).execute();
    },
  };
}
