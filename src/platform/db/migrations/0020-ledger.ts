import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * CONTRACT §12: commission rules, refunds and clawbacks, the holding period, exact rates.
 * - commissions gain `kind` (sale | clawback), `rule_id`, `void_reason`, `approve_due_at` (holding
 *   period) and `flat_cents` (set when a flat rule decided it, so a refund can recompute it); order_id stays unique for the sale only (a clawback repeats its order's id), which on
 *   SQLite means rebuilding the table (it cannot drop an inline UNIQUE).
 * - orders gain `refunded_cents`; affiliates lose the CHECK balance_cents >= 0 (a clawback may take
 *   the balance below zero; withdrawals still only debit a balance that covers them).
 * - the global rate is stored as `commission_rate_bp` (integer hundredths of a percent), converted from
 *   the old decimal `commission_rate` setting (rounded half-up to 2 decimals, the only lossy case being
 *   a value the old tolerant check let through).
 */
export function ledger(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('commission_rules')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('ref_code', 'text')
        .addColumn('product', 'text')
        .addColumn('rate_bp', 'integer')
        .addColumn('flat_cents', 'bigint')
        .addColumn('duration_days', 'integer')
        .addColumn('max_orders', 'integer')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('commission_rules_created').on('commission_rules').columns(['created_at', 'id']).execute();

      if (dialect === 'sqlite') {
        await sql`create table commissions_new (
          id text primary key,
          order_id text not null,
          ref_code text not null,
          amount_cents bigint not null,
          rate_bp integer not null,
          commission_cents bigint not null,
          status text not null,
          created_at bigint not null,
          updated_at bigint not null,
          approved_at bigint,
          paid_at bigint,
          voided_at bigint,
          kind text not null default 'sale',
          rule_id text,
          void_reason text,
          approve_due_at bigint,
          flat_cents bigint
        )`.execute(db);
        await sql`insert into commissions_new (id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, created_at, updated_at, approved_at, paid_at, voided_at)
          select id, order_id, ref_code, amount_cents, rate_bp, commission_cents, status, created_at, updated_at, approved_at, paid_at, voided_at from commissions`.execute(db);
        await sql`drop table commissions`.execute(db);
        await sql`alter table commissions_new rename to commissions`.execute(db);
        // the balance may now fall below zero (clawbacks): the CHECK goes, which SQLite only does by rebuilding
        await sql`create table affiliates_new (
          ref_code text primary key,
          name text,
          email text,
          status text not null,
          commission_rate_bp integer,
          balance_cents bigint not null default 0,
          created_at bigint not null,
          updated_at bigint not null
        )`.execute(db);
        await sql`insert into affiliates_new (ref_code, name, email, status, commission_rate_bp, balance_cents, created_at, updated_at)
          select ref_code, name, email, status, commission_rate_bp, balance_cents, created_at, updated_at from affiliates`.execute(db);
        await sql`drop table affiliates`.execute(db);
        await sql`alter table affiliates_new rename to affiliates`.execute(db);
        await db.schema.createIndex('affiliates_created').on('affiliates').columns(['created_at', 'ref_code']).execute();
        await db.schema.createIndex('commissions_ref_created').on('commissions').columns(['ref_code', 'created_at']).execute();
        await db.schema.createIndex('commissions_status_created').on('commissions').columns(['status', 'created_at']).execute();
      } else {
        await sql`alter table commissions drop constraint commissions_order_id_key`.execute(db);
        // the balance may now fall below zero (clawbacks)
        await sql`alter table affiliates drop constraint affiliates_balance_nonnegative`.execute(db);
        await db.schema.alterTable('commissions').addColumn('kind', 'text', (c) => c.notNull().defaultTo('sale')).execute();
        await db.schema.alterTable('commissions').addColumn('rule_id', 'text').execute();
        await db.schema.alterTable('commissions').addColumn('void_reason', 'text').execute();
        await db.schema.alterTable('commissions').addColumn('approve_due_at', 'bigint').execute();
        await db.schema.alterTable('commissions').addColumn('flat_cents', 'bigint').execute();
      }
      await db.schema
        .createIndex('commissions_sale_order')
        .on('commissions')
        .column('order_id')
        .unique()
        .where(sql.ref('kind'), '=', 'sale')
        .execute();
      await db.schema.createIndex('commissions_order').on('commissions').column('order_id').execute();
      // the holding period's claim: pending commissions whose approval is due
      await db.schema
        .createIndex('commissions_approve_due')
        .on('commissions')
        .column('approve_due_at')
        .where(sql.ref('approve_due_at'), 'is not', null)
        .execute();

      await db.schema.alterTable('orders').addColumn('refunded_cents', 'bigint', (c) => c.notNull().defaultTo(0)).execute();

      const old = await sql<{ value: string; updated_at: number }>`select value, updated_at from settings where key = 'commission_rate'`.execute(db);
      const row = old.rows[0];
      if (row) {
        const rate = Number(JSON.parse(row.value));
        const bp = Number.isFinite(rate) ? Math.min(10_000, Math.max(0, Math.round(rate * 100))) : 1000;
        await sql`insert into settings (key, value, updated_at) values ('commission_rate_bp', ${JSON.stringify(bp)}, ${row.updated_at})`.execute(db);
        await sql`delete from settings where key = 'commission_rate'`.execute(db);
      }
    },
  };
}
