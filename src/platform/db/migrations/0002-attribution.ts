import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

const COUNTERS = [
  'clicks',
  'mailboxes',
  'orders',
  'commission_pending_cents',
  'commission_approved_cents',
  'commission_paid_cents',
  'commission_void_cents',
  'withdrawals_requested_cents',
  'withdrawals_paid_cents',
];

/**
 * All-time counters per affiliate, beside the daily rollup and written by the same bump, so the
 * summary without a date range reads one row per affiliate instead of affiliates × days.
 * Filled from daily_stats for databases that already have data.
 */
export function attribution(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      let table = db.schema.createTable('affiliate_stats').addColumn('ref_code', 'text', (c) => c.primaryKey());
      for (const col of COUNTERS) table = table.addColumn(col, 'bigint', (c) => c.notNull().defaultTo(0));
      await table.execute();
      const cols = sql.join(COUNTERS.map((c) => sql.ref(c)));
      const sums = sql.join(COUNTERS.map((c) => sql`sum(${sql.ref(c)})`));
      await sql`insert into affiliate_stats (ref_code, ${cols}) select ref_code, ${sums} from daily_stats group by ref_code`.execute(db);
    },
  };
}
