import type { Logger } from '../logger.js';
import type { BackgroundTask } from '../background-task.js';
import type { OutboxSignal } from '../events/outbox.js';
import type { DeliveryDispatcher } from '../webhooks/delivery-dispatcher.js';

/** Catches retries coming due and events written by other instances; the happy path never waits for it. */
const POLL_MS = 1000;

/**
 * Runs the delivery dispatcher inside the process: a kick after each commit starts delivery at once, a
 * short poll finds retries and other instances' events. Pumps never overlap; a kick during one re-runs it.
 */
export class DeliveryWorker implements BackgroundTask {
  private timer?: NodeJS.Timeout;
  private unsubscribe?: () => void;
  private pumping = false;
  private again = false;
  private stopped = true;
  private current: Promise<void> = Promise.resolve();

  constructor(
    private readonly dispatcher: DeliveryDispatcher,
    private readonly outbox: OutboxSignal,
    private readonly logger: Logger,
    readonly name = 'delivery-worker',
  ) {}

  async start(): Promise<void> {
    this.stopped = false;
    this.unsubscribe = this.outbox.subscribe(() => this.pump());
    this.timer = setInterval(() => this.pump(), POLL_MS);
    this.timer.unref();
    this.pump();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.unsubscribe?.();
    if (this.timer) clearInterval(this.timer);
    await this.current;
    // In-flight sends finish (bounded by the send timeout) and are recorded; anything cut off is
    // re-delivered by the next instance once its lease runs out.
    await this.dispatcher.settle();
    this.dispatcher.close();
  }

  pump(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    this.current = this.run().finally(() => {
      this.pumping = false;
    });
  }

  private async run(): Promise<void> {
    try {
      do {
        this.again = false;
        await this.dispatcher.pump(() => this.stopped);
      } while (this.again && !this.stopped);
    } catch (err) {
      this.logger.error({ err }, 'delivery worker pass failed; retrying on the next poll');
    }
  }
}
