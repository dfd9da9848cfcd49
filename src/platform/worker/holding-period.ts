import type { BackgroundTask } from '../background-task.js';
import type { Logger } from '../logger.js';
import { EveryMinute } from './every-minute.js';

/** What the task drives: the commissions' holding-period approval (tests call it directly instead). */
export interface DueApprover {
  approveDue(): Promise<number>;
}

/**
 * CONTRACT §12 holding period: once a minute, approves the pending commissions whose holding period is
 * over. Every instance may run it; the conditional pending->approved move makes each approval happen once.
 */
export class HoldingPeriodTask implements BackgroundTask {
  readonly name = 'holding-period';
  private readonly loop: EveryMinute;

  constructor(approver: DueApprover, logger: Logger) {
    this.loop = new EveryMinute(() =>
      approver
        .approveDue()
        .then((approved) => {
          if (approved > 0) logger.info({ approved }, 'holding period: commissions approved');
        })
        .catch((err: unknown) => logger.error({ err }, 'holding period approval failed')),
    );
  }

  async start(): Promise<void> {
    this.loop.start();
  }

  stop(): Promise<void> {
    return this.loop.stop();
  }
}
