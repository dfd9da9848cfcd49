import { utcDay } from '../../platform/clock.js';
import type { ClickBatchWriter, ClickCount, ClickWrite } from './click.repository.js';

interface Pending extends ClickWrite {
  resolve(id: number | null): void;
  reject(err: unknown): void;
}

// 6 bound values per row: well under SQLite's and PostgreSQL's limits on parameters per statement.
const MAX_BATCH = 500;

/**
 * Group commit for /go: clicks arriving while a write is in progress are stored together in the next
 * transaction (clicks plus their daily counters), so one commit serves many requests. Up to `inFlight`
 * batches are written at once (docs/api.md#click-log: on PostgreSQL a batch mostly waits on the network and
 * the commit, so one at a time left the process idle), each on a slot of its own, which bounds the pool
 * connections clicks take and gives each batch its own counter stripe. Each request still waits until its
 * click is committed, so every answered click is stored.
 */
export class ClickRecorder {
  private queue: Pending[] = [];
  private readonly freeSlots: number[];
  private scheduled = false;

  constructor(
    private readonly write: ClickBatchWriter,
    inFlight = 1,
  ) {
    if (!Number.isInteger(inFlight) || inFlight < 1) throw new RangeError('inFlight must be a whole number of at least 1');
    this.freeSlots = Array.from({ length: inFlight }, (_, i) => inFlight - 1 - i);
  }

  /** Resolves once the click is committed: with its id when wantId, else null. */
  record(click: ClickWrite['click'], wantId: boolean): Promise<number | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, wantId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.freeSlots.length === 0) return;
    this.scheduled = true;
    // setImmediate lets the requests already read from the sockets join this batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    const slot = this.freeSlots.pop();
    if (slot === undefined) return;
    if (this.queue.length === 0) {
      this.freeSlots.push(slot);
      return;
    }
    const batch = this.queue.splice(0, MAX_BATCH);
    // more waiting than one batch takes, and a slot free: the next batch starts without waiting for this one
    if (this.queue.length > 0) this.schedule();
    try {
      const perDay = new Map<string, ClickCount>();
      for (const p of batch) {
        const day = utcDay(p.click.created_at);
        const key = `${p.click.ref_code}\u0000${day}`;
        const entry = perDay.get(key);
        perDay.set(key, { ref: p.click.ref_code, day, n: (entry?.n ?? 0) + 1 });
      }
      // Same order in every transaction, so instances sharing a PostgreSQL never deadlock on counters.
      const counts = [...perDay.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
      const ids = await this.write(batch, counts, slot);
      for (const [i, p] of batch.entries()) p.resolve(ids[i] ?? null);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.freeSlots.push(slot);
      if (this.queue.length > 0) this.schedule();
    }
  }
}
