import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Revenue of paid attributed orders (the orders the `orders` counter counts) in the daily rollup and the
 * all-time counters, for the dashboard's headline figures. Filled from the orders and commissions already
 * there: one grouped pass, then an UPDATE … FROM (SQLite ≥ 3.33 and PostgreSQL alike).
 */
export function revenue(dialect: Dialect) {
  // the UTC day the order was paid on, as bumpDailyStats wrote it (utcDay of paid_at)
  const paidDay =
    dialect === 'sqlite'
      ? sql`strftime('%Y-%m-%d', o.paid_at / 1000, 'unixepoch')`
      : sql`to_char(to_timestamp(o.paid_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      for (const table of ['daily_stats', 'affiliate_stats']) {
        await db.schema.alterTable(table).addColumn('revenue_cents', 'bigint', (c) => c.notNull().defaultTo(0)).execute();
      }
      await sql`
        update daily_stats set revenue_cents = s.revenue_cents
        from (
          select c.ref_code, ${paidDay} as day, sum(o.amount_cents) as revenue_cents
          from commissions c join orders o on o.order_id = c.order_id
          where o.paid_at is not null
          group by c.ref_code, ${paidDay}
        ) as s
        where daily_stats.ref_code = s.ref_code and daily_stats.day = s.day`.execute(db);
      await sql`
        update affiliate_stats set revenue_cents = s.revenue_cents
        from (select ref_code, sum(revenue_cents) as revenue_cents from daily_stats group by ref_code) as s
        where affiliate_stats.ref_code = s.ref_code`.execute(db);
    },
  };
}
