import type { Executor } from '../db/database.js';

/**
 * Claims `job`'s run for `day` for `instance`: true when the day had no claim, or only an unfinished one made
 * before `staleBefore` (its instance died mid-run); false when another instance has it or it is done.
 * One conditional upsert, so instances claiming at the same instant get one winner.
 */
export async function claimDailyRun(db: Executor, job: string, day: string, instance: string, now: number, staleBefore: number): Promise<boolean> {
  const res = await db
    .insertInto('maintenance_runs')
    .values({ job, day, instance, claimed_at: now, finished_at: null, result: null })
    .onConflict((oc) =>
      oc
        .columns(['job', 'day'])
        .doUpdateSet({ instance, claimed_at: now })
        .where('maintenance_runs.finished_at', 'is', null)
        .where('maintenance_runs.claimed_at', '<', staleBefore),
    )
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0) > 0;
}

/** Marks the claimed run finished with what it reported. */
export async function finishDailyRun(db: Executor, job: string, day: string, instance: string, now: number, result: unknown): Promise<void> {
  await db
    .updateTable('maintenance_runs')
    .set({ finished_at: now, result: JSON.stringify(result) })
    .where('job', '=', job)
    .where('day', '=', day)
    .where('instance', '=', instance)
    .execute();
}

/** Gives the day up again (the run failed): the next tick of any instance claims it anew. */
export async function releaseDailyRun(db: Executor, job: string, day: string, instance: string): Promise<void> {
  await db.deleteFrom('maintenance_runs').where('job', '=', job).where('day', '=', day).where('instance', '=', instance).where('finished_at', 'is', null).execute();
}

/** The latest finished run of `job`: when, and what it reported. */
export async function lastDailyRun(db: Executor, job: string): Promise<{ day: string; finished_at: number; result: string | null } | undefined> {
  const row = await db
    .selectFrom('maintenance_runs')
    .select(['day', 'finished_at', 'result'])
    .where('job', '=', job)
    .where('finished_at', 'is not', null)
    .orderBy('day', 'desc')
    .limit(1)
    .executeTakeFirst();
  return row && row.finished_at !== null ? { day: row.day, finished_at: Number(row.finished_at), result: row.result } : undefined;
}
