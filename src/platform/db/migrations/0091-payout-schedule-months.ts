import { type Kysely, sql } from 'kysely';

/**
 * docs/api.md#payouts `payout_schedule`: one row per month whose scheduled run is over, written when a run has
 * gone through every candidate (or when the schedule is switched to monthly, for the month of the switch).
 * A month with a row gets no run, so an affiliate who qualifies after the month's run waits for the next
 * month's. Filled from before: every month the schedule already claimed an affiliate for, and the month the
 * setting was last written to `monthly` (the month the schedule was switched on, which the new rule skips).
 */
export function payoutScheduleMonths() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('payout_schedule_months')
        .addColumn('month', 'text', (c) => c.primaryKey())
        .addColumn('done_at', 'bigint', (c) => c.notNull())
        .execute();
      await sql`insert into payout_schedule_months (month, done_at) select month, max(created_at) from payout_schedule_runs group by month`.execute(db);
      const setting = await sql<{ value: string; updated_at: number | string }>`select value, updated_at from settings where key = 'payout_schedule'`.execute(db);
      const row = setting.rows[0];
      if (row && JSON.parse(row.value) === 'monthly') {
        const at = Number(row.updated_at);
        const month = new Date(at).toISOString().slice(0, 7);
        await sql`insert into payout_schedule_months (month, done_at) values (${month}, ${at}) on conflict (month) do nothing`.execute(db);
      }
    },
  };
}
