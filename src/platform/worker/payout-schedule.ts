import type { BackgroundTask } from '../background-task.js';
import type { Logger } from '../logger.js';
import { EveryMinute } from './every-minute.js';

/** What the task drives: the payouts' monthly schedule (tests call it directly instead). */
export interface ScheduleRunner {
  runSchedule(): Promise<readonly unknown[]>;
}

/**
 * docs/api.md#payouts `payout_schedule: monthly`: once a minute, runs the schedule, which requests the month's
 * withdrawals at its first tick on or after the 1st (UTC) and does nothing else until the next month. Every
 * instance may run it; the claim of each affiliate's month makes each withdrawal happen once.
 */
export class PayoutScheduleTask implements BackgroundTask {
  readonly name = 'payout-schedule';
  private readonly loop: EveryMinute;

  constructor(runner: ScheduleRunner, logger: Logger) {
    this.loop = new EveryMinute(() =>
      runner
        .runSchedule()
        .then((made) => {
          if (made.length > 0) logger.info({ withdrawals: made.length }, 'payout schedule: withdrawals requested');
        })
        .catch((err: unknown) => logger.error({ err }, 'payout schedule failed')),
    );
  }

  async start(): Promise<void> {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
