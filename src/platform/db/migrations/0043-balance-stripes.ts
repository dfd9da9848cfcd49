import { type Kysely, sql } from 'kysely';

/**
 * The balance joins the striped all-time counters (issue 13, performance): `affiliates.balance_cents`
 * was one row per affiliate that every mark-paid and clawback updated, so for one hot affiliate they
 * queued on its lock until each commit was flushed. Each all-time row (ref_code, stripe) now holds a
 * share of the balance; credits and clawbacks go to their transaction's stripe, in the same upsert as
 * its counters; a withdrawal locks all the affiliate's stripes and takes from their sum. Existing
 * balances move to stripe 0. The old column is dropped, so that an instance still running the old code
 * fails loudly (its transaction rolls back) instead of moving a balance nobody reads.
 */
export function balanceStripes() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await sql`alter table affiliate_stats add column balance_cents bigint not null default 0`.execute(db);
      await sql`
        insert into affiliate_stats (ref_code, stripe, balance_cents)
        select ref_code, 0, balance_cents from affiliates where balance_cents <> 0
        on conflict (ref_code, stripe) do update set balance_cents = excluded.balance_cents`.execute(db);
      await sql`alter table affiliates drop column balance_cents`.execute(db);
    },
  };
}
