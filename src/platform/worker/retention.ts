import type { Logger } from '../logger.js';
import type { BackgroundTask } from '../background-task.js';
import { EveryMinute } from './every-minute.js';

/** One kind of old data to delete; answers how many rows it deleted. */
export interface RetentionJob {
  readonly name: string;
  purge(): Promise<number>;
}

/**
 * Runs each retention job every minute (expired mail, old finished deliveries). Every instance may
 * run them: the deletes just share out. A failing job is logged and tried again on the next tick.
 */
export class RetentionTask implements BackgroundTask {
  readonly name = 'retention';
  private readonly loop = new EveryMinute(() => this.runAll());

  constructor(
    private readonly jobs: readonly RetentionJob[],
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }

  private async runAll(): Promise<void> {
    for (const job of this.jobs) {
      try {
        const deleted = await job.purge();
        if (deleted > 0) this.logger.info({ job: job.name, deleted }, 'retention: old rows deleted');
      } catch (err) {
        this.logger.error({ err, job: job.name }, 'retention job failed');
      }
    }
  }
}
