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
  'revenue_cents',
];

/**
 * Striped counters (issue 13, performance): every money move of one affiliate used to update the same
 * two rows (all-time, today), so concurrent payments for one hot affiliate queued on their locks until
 * commit. The rows gain a `stripe` in their primary key; the ledger spreads its writes over a few
 * stripes and every reader sums them. Existing rows become stripe 0. SQLite cannot change a primary
 * key in place, so both tables are rebuilt there.
 */
export function counterStripes(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const cols = sql.join(COUNTERS.map((c) => sql.ref(c)));
      if (dialect === 'sqlite') {
        for (const [table, keys] of [
          ['affiliate_stats', ['ref_code']],
          ['daily_stats', ['ref_code', 'day']],
        ] as const) {
          let t = db.schema.createTable(`${table}_new`).addColumn('ref_code', 'text', (c) => c.notNull());
          if (table === 'daily_stats') t = t.addColumn('day', 'text', (c) => c.notNull());
          t = t.addColumn('stripe', 'integer', (c) => c.notNull().defaultTo(0));
          for (const col of COUNTERS) t = t.addColumn(col, 'bigint', (c) => c.notNull().defaultTo(0));
          await t.addPrimaryKeyConstraint(`${table}_pk`, [...keys, 'stripe'] as never).execute();
          const keyCols = sql.join(keys.map((k) => sql.ref(k)));
          await sql`insert into ${sql.table(`${table}_new`)} (${keyCols}, ${cols}) select ${keyCols}, ${cols} from ${sql.table(table)}`.execute(db);
          await sql`drop table ${sql.table(table)}`.execute(db);
          await sql`alter table ${sql.table(`${table}_new`)} rename to ${sql.table(table)}`.execute(db);
        }
        await db.schema.createIndex('daily_stats_day').on('daily_stats').columns(['day', 'ref_code']).execute();
      } else {
        await sql`alter table affiliate_stats add column stripe integer not null default 0`.execute(db);
        await sql`alter table affiliate_stats drop constraint affiliate_stats_pkey, add constraint affiliate_stats_pk primary key (ref_code, stripe)`.execute(db);
        await sql`alter table daily_stats add column stripe integer not null default 0`.execute(db);
        await sql`alter table daily_stats drop constraint daily_stats_pk, add constraint daily_stats_pk primary key (ref_code, day, stripe)`.execute(db);
      }
    },
  };
}
