import type { BackgroundTask } from '../background-task.js';
import { type Clock, utcDay } from '../clock.js';
import type { Db } from '../db/database.js';
import type { Logger } from '../logger.js';
import { EveryMinute } from './every-minute.js';
import { claimDailyRun, finishDailyRun, releaseDailyRun } from './maintenance-runs.repository.js';

/** A job to run once a UTC day over every instance sharing the database; answers what it did (kept as JSON). */
export interface DailyJob {
  readonly name: string;
  run(): Promise<unknown>;
}

/** A claim older than this whose run never finished was an instance that died mid-run: another takes it over. */
export const STALE_CLAIM_MS = 30 * 60_000;

/**
 * Runs each job once a UTC day over all instances: every minute each instance tries to claim today's run of
 * each job (one conditional upsert in maintenance_runs, so one instance wins), and the winner runs it and
 * marks it finished. A run that fails gives its day back, so the next tick of any instance tries again; one
 * whose instance died is taken over after STALE_CLAIM_MS.
 */
export class DailyTask implements BackgroundTask {
  readonly name = 'daily-maintenance';
  private readonly loop = new EveryMinute(() => this.tick().then(() => undefined));

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly instance: string,
    private readonly jobs: readonly DailyJob[],
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  /** One tick: runs every job whose run today no instance has claimed; answers the names of those this instance ran. */
  async tick(): Promise<string[]> {
    const ran: string[] = [];
    for (const job of this.jobs) {
      const now = this.clock.now();
      const day = utcDay(now);
      try {
        if (!(await claimDailyRun(this.db, job.name, day, this.instance, now, now - STALE_CLAIM_MS))) continue;
      } catch (err) {
        this.logger.error({ err, job: job.name }, 'daily job could not be claimed');
        continue;
      }
      try {
        const result = await job.run();
        await finishDailyRun(this.db, job.name, day, this.instance, this.clock.now(), result);
        ran.push(job.name);
        this.logger.debug({ job: job.name, result }, 'daily job done');
      } catch (err) {
        this.logger.error({ err, job: job.name }, 'daily job failed; it is tried again on the next tick');
        await releaseDailyRun(this.db, job.name, day, this.instance).catch(() => {});
      }
    }
    return ran;
  }
}
