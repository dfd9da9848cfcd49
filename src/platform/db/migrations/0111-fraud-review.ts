import { type Kysely, sql } from 'kysely';

/**
 * docs/api.md#fraud-review: the cases the fraud signals open, the commissions they hold,
 * and the facts the signals need that svc did not keep.
 * - `fraud_cases`: one row per case; at most one open case per affiliate and signal (partial unique index);
 *   `evidence` is a JSON array that grows while the case is open; `held_count`/`held_cents` what it held.
 * - `commissions.hold_case_id`/`hold_signal`: the open case holding a pending commission (null: not held).
 * - `portal_sign_ins`: the networks (salted hash of the IPv4 address or IPv6 /64) each affiliate signed in
 *   to the portal from, first and last time; `referrals.ip_hash`: the network a mailbox was created from;
 *   `orders_ref_paid`: an affiliate's recent orders, for `refund_rate`.
 */
export function fraudReview() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('fraud_cases')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('signal', 'text', (c) => c.notNull())
        .addColumn('action', 'text', (c) => c.notNull())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('evidence', 'text', (c) => c.notNull())
        .addColumn('held_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('held_cents', 'bigint', (c) => c.notNull().defaultTo(0))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .addColumn('resolved_at', 'bigint')
        .addColumn('note', 'text')
        .execute();
      await db.schema.createIndex('fraud_cases_one_open').on('fraud_cases').columns(['ref_code', 'signal']).unique().where(sql.ref('status'), '=', 'open').execute();
      await db.schema.createIndex('fraud_cases_list').on('fraud_cases').columns(['status', 'created_at', 'id']).execute();
      await db.schema.createIndex('fraud_cases_by_affiliate').on('fraud_cases').columns(['ref_code', 'created_at', 'id']).execute();

      await db.schema.alterTable('commissions').addColumn('hold_case_id', 'text').execute();
      await db.schema.alterTable('commissions').addColumn('hold_signal', 'text').execute();
      await db.schema.createIndex('commissions_held').on('commissions').column('hold_case_id').where(sql.ref('hold_case_id'), 'is not', null).execute();

      await db.schema
        .createTable('portal_sign_ins')
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('ip_hash', 'text', (c) => c.notNull())
        .addColumn('first_at', 'bigint', (c) => c.notNull())
        .addColumn('last_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('portal_sign_ins_pk', ['ref_code', 'ip_hash'])
        .execute();
      await db.schema.alterTable('referrals').addColumn('ip_hash', 'text').execute();
      // refund_rate reads an affiliate's orders paid in the last 30 days
      await db.schema.createIndex('orders_ref_paid').on('orders').columns(['ref_code', 'paid_at']).execute();
    },
  };
}
