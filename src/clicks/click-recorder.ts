import { utcDay } from '../clock.js';
import { type Db, inTransaction } from '../db/database.js';
import { bumpDailyStats } from '../reports/daily-stats.repository.js';
import { insertClick, insertClicks, type NewClick } from './click.repository.js';

interface Pending {
  readonly click: NewClick;
  /** Only clicks carrying network click ids need their id back (for the svc_click cookie). */
  readonly wantId: boolean;
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

  constructor(private readonly db: Db) {}

  /** Resolves once the click is committed: with its id when wantId, else null. */
  record(click: NewClick, wantId: boolean): Promise<number | null> {
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
      const ids = await inTransaction(this.db, async (tx) => {
        const plain = batch.filter((p) => !p.wantId).map((p) => p.click);
        await insertClicks(tx, plain);
        const out = new Map<Pending, number>();
        for (const p of batch) if (p.wantId) out.set(p, await insertClick(tx, p.click));
        const perDay = new Map<string, { ref: string; day: string; n: number }>();
        for (const p of batch) {
          const day = utcDay(p.click.created_at);
          const key = `${p.click.ref_code}\u0000${day}`;
          const entry = perDay.get(key);
          if (entry) entry.n++;
          else perDay.set(key, { ref: p.click.ref_code, day, n: 1 });
        }
        // Same order in every transaction, so instances sharing a PostgreSQL never deadlock on counters.
        const counters = [...perDay.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
        for (const [, { ref, day, n }] of counters) await bumpDailyStats(tx, ref, day, { clicks: n });
        return out;
      });
      for (const p of batch) p.resolve(ids.get(p) ?? null);
    } catch (err) {
      for (const p of batch) p.reject(err);
    } finally {
      this.flushing = false;
      if (this.queue.length > 0) this.schedule();
    }
  }
}
