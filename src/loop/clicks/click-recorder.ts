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
 * transaction (clicks plus their daily counters), so one commit serves many requests. Each request
 * still waits until its click is committed, so every answered click is stored.
 */
export class ClickRecorder {
  private queue: Pending[] = [];
  private flushing = false;
  private scheduled = false;

  constructor(private readonly write: ClickBatchWriter) {}

  /** Resolves once the click is committed: with its id when wantId, else null. */
  record(click: ClickWrite['click'], wantId: boolean): Promise<number | null> {
    return new Promise((resolve, reject) => {
      this.queue.push({ click, wantId, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.flushing || this.scheduled) return;
    this.scheduled = true;
    // setImmediate lets the requests already read from the sockets join this batch.
    setImmediate(() => {
      this.scheduled = false;
      void this.flush();
    });
  }

  private async flush(): Promise<void> {
    if (this.flushing || this.queue.length === 0) return;
    this.flushing = true;
    const batch = this.queue.splice(0, MAX_BATCH);
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
      const ids = await this.write(batch, counts);
      for (const [i, p] of batch.entries()) p.resolve(ids[i] ?? null);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
