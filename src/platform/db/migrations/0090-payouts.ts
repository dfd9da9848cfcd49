import { type Kysely, sql } from 'kysely';

/**
 * Payouts (docs/api.md#payouts). A withdrawal keeps where it is paid to: `payout` is the affiliate's payout
 * details as JSON when it was requested, `payout_method` their method (what a batch gathers by), and
 * `batch_id` the batch it went into (set once by a conditional update, so never two). Withdrawals made
 * before have none (null). `payout_batches` are the runs; `payout_schedule_runs` has one row per affiliate
 * and month the schedule requested, its primary key making that exactly once across instances.
 */
export function payouts() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('withdrawals').addColumn('payout', 'text').execute();
      await db.schema.alterTable('withdrawals').addColumn('payout_method', 'text').execute();
      await db.schema.alterTable('withdrawals').addColumn('batch_id', 'text').execute();
      // what a new batch gathers: requested, of one method, in no batch yet
      await db.schema
        .createIndex('withdrawals_unbatched')
        .on('withdrawals')
        .columns(['payout_method', 'id'])
        .where(sql.ref('batch_id'), 'is', null)
        .execute();
      // a batch's withdrawals, in id order (its file is read in keyset pages)
      await db.schema.createIndex('withdrawals_batch').on('withdrawals').columns(['batch_id', 'id']).execute();
      await db.schema
        .createTable('payout_batches')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('method', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('currency', 'text', (c) => c.notNull())
        .addColumn('total_minor', 'bigint', (c) => c.notNull())
        .addColumn('count', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('paid_at', 'bigint')
        .execute();
      await db.schema
        .createTable('payout_schedule_runs')
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('month', 'text', (c) => c.notNull())
        .addColumn('withdrawal_id', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('payout_schedule_runs_pk', ['ref_code', 'month'])
        .execute();
    },
  };
}
