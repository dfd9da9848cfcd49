import { type Db, type Executor, inTransaction } from '../db/database.js';
import { type AttemptOutcome, type DeliveryQueueRepository, type FinishedAttempt, insertAttempts } from './delivery-queue.repository.js';

interface Pending extends FinishedAttempt {
  readonly resolve: (kept: boolean) => void;
  readonly reject: (err: unknown) => void;
}

const BATCH = 200;

/**
 * Group commit of attempt results: results that finish while a write is running are recorded together
 * in the next transaction, so a busy worker pays one commit per batch instead of one per delivery.
 */
export class AttemptRecorder {
  private readonly queue: Pending[] = [];
  private flushing = false;

  constructor(
    private readonly db: Db,
    private readonly deliveries: DeliveryQueueRepository,
    /** Called in the same transaction with the deliveries that just failed for good. */
    private readonly onFailed?: (tx: Executor, deliveryIds: readonly string[], now: number) => Promise<void>,
  ) {}

  /** Records one attempt; true when the lease was still ours (else another worker owns the delivery now). */
  record(deliveryId: string, token: string, outcome: AttemptOutcome): Promise<boolean> {
    return new Promise<boolean>((resolve, reject) => {
      this.queue.push({ deliveryId, token, outcome, resolve, reject });
      if (!this.flushing) void this.flush();
    });
  }

  private async flush(): Promise<void> {
    this.flushing = true;
    // One turn of the event loop lets the answers that arrived together join this commit.
    await new Promise<void>((resolve) => setImmediate(resolve));
    try {
      while (this.queue.length > 0) {
        const batch = this.queue.splice(0, BATCH);
        try {
          const ours = await inTransaction(this.db, async (tx) => {
            const kept = await this.deliveries.finishAttempts(tx, batch);
            await insertAttempts(
              tx,
              batch.filter((e) => kept.has(e.deliveryId)),
            );
            const failed = batch.filter((e) => kept.has(e.deliveryId) && e.outcome.status === 'failed');
            if (this.onFailed && failed.length > 0) await this.onFailed(tx, failed.map((e) => e.deliveryId), failed[0]?.outcome.at ?? 0);
            return kept;
          });
          for (const e of batch) e.resolve(ours.has(e.deliveryId));
        } catch (err) {
          for (const e of batch) e.reject(err);
        }
      }
    } finally {
      this.flushing = false;
    }
  }
}
