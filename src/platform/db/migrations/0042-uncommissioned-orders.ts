import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * A paid attributed order that a rule's limits (duration_days, max_orders) booked no commission for was
 * left out of the `orders` and `revenue_cents` counters, which CONTRACT §7 says count every paid
 * attributed order; its refunds were left out of revenue too. The writers now count them: this adds the
 * ones already there, each on the day it was paid, with what is left of it after refunds (neither its
 * payment nor its refunds were counted), to stripe 0 of the daily and all-time rows.
 */
export function uncommissionedOrders(dialect: Dialect) {
  // the UTC day the order was paid on, as the ledger counts it (utcDay of paid_at)
  const paidDay =
    dialect === 'sqlite'
      ? sql`strftime('%Y-%m-%d', o.paid_at / 1000, 'unixepoch')`
      : sql`to_char(to_timestamp(o.paid_at / 1000.0) at time zone 'UTC', 'YYYY-MM-DD')`;
  const uncounted = sql`
    from orders o
    where o.ref_code is not null and o.paid_at is not null
      and not exists (select 1 from commissions c where c.order_id = o.order_id and c.kind = 'sale')`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`
        insert into daily_stats (ref_code, day, stripe, orders, revenue_cents)
        select o.ref_code, ${paidDay}, 0, count(*), sum(o.amount_cents - o.refunded_cents) ${uncounted}
        group by o.ref_code, ${paidDay}
        on conflict (ref_code, day, stripe) do update
        set orders = daily_stats.orders + excluded.orders, revenue_cents = daily_stats.revenue_cents + excluded.revenue_cents`.execute(db);
      await sql`
        insert into affiliate_stats (ref_code, stripe, orders, revenue_cents)
        select o.ref_code, 0, count(*), sum(o.amount_cents - o.refunded_cents) ${uncounted}
        group by o.ref_code
        on conflict (ref_code, stripe) do update
        set orders = affiliate_stats.orders + excluded.orders, revenue_cents = affiliate_stats.revenue_cents + excluded.revenue_cents`.execute(db);
    },
  };
}
