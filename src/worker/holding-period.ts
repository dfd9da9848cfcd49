import type { BackgroundTask } from '../background-task.js';
import type { Logger } from '../logger.js';

const EVERY_MS = 60_000;

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
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly approver: DueApprover,
    private readonly logger: Logger,
  ) {}

  async start(): Promise<void> {
    this.timer = setInterval(() => this.tick(), EVERY_MS);
    this.timer.unref();
    this.tick();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.running;
  }

  private tick(): void {
    if (this.running) return;
    this.running = this.approver
      .approveDue()
      .then((approved) => {
        if (approved > 0) this.logger.info({ approved }, 'holding period: commissions approved');
      })
      .catch((err: unknown) => this.logger.error({ err }, 'holding period approval failed'))
      .finally(() => {
        this.running = undefined;
      });
  }
}
