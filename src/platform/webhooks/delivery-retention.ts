import type { Clock } from '../clock.js';
import { type Db, inTransaction } from '../db/database.js';
import { newId } from '../ids.js';
import { deleteDeliveredEvents, deleteFinishedDeliveries } from './delivery.repository.js';

const PURGE_BATCH = 1000;

/**
 * Retention (SVC_DELIVERY_RETENTION_DAYS): deletes deliveries that finished (delivered or failed) and
 * were created and last touched more than `days` ago, their attempts, and then the events none of them
 * refers to any more, in batches so no transaction grows large. Pending deliveries and their events stay.
 */
export class DeliveryRetention {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {}

  async purgeFinished(days: number): Promise<number> {
    if (days <= 0) return 0;
    const cutoff = this.clock.now() - days * 86_400_000;
    const idBefore = newId('dlv', cutoff).slice(0, 'dlv_'.length + 10);
    let total = 0;
    for (;;) {
      const n = await inTransaction(this.db, (tx) => deleteFinishedDeliveries(tx, { idBefore, cutoff, batch: PURGE_BATCH }));
      total += n;
      if (n < PURGE_BATCH) break;
    }
    for (;;) {
      const n = await deleteDeliveredEvents(this.db, cutoff, PURGE_BATCH);
      if (n < PURGE_BATCH) break;
    }
    return total;
  }
}
