import type { Logger } from 'pino';
import type { BackgroundTask } from '../context.js';
import type { MailService } from './mail.service.js';

const EVERY_MS = 60_000;

/** Runs MailService.purgeExpired every minute; every instance may run it, the deletes just share out. */
export class MailRetentionTask implements BackgroundTask {
  readonly name = 'mail-retention';
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;

  constructor(
    private readonly mail: MailService,
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
    this.running = this.mail
      .purgeExpired()
      .then((n) => {
        if (n > 0) this.logger.info({ deleted: n }, 'expired messages deleted');
      })
      .catch((err: unknown) => this.logger.error({ err }, 'mail retention failed'))
      .finally(() => {
        this.running = undefined;
      });
  }
}
