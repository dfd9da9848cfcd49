import { sql } from 'kysely';
import { type Db, type Dialect, inTransaction, type Tx } from './database.js';

/** One unit of work that must be atomic: all its writes, or none. */
export type AtomicWork = (tx: Tx) => Promise<void>;

export interface AtomicWriter {
  /** Runs `work` atomically; `weight` (bytes, roughly) bounds how much shares one transaction. */
  run(work: AtomicWork, weight: number): Promise<void>;
}

export interface BatchLimits {
  /** At most this many units per transaction. */
  readonly maxUnits: number;
  /** And at most this many bytes (a unit heavier than this runs alone). */
  readonly maxWeight: number;
}

export const DEFAULT_BATCH_LIMITS: BatchLimits = Object.freeze({ maxUnits: 64, maxWeight: 8 * 1024 * 1024 });

/**
 * Atomic writes for a hot intake path. On PostgreSQL each unit is its own transaction (many
 * connections commit in parallel, and units take row locks that must not be held across units).
 *
 * On SQLite, whose one writer commits one transaction at a time and pays most of a small write's
 * cost in COMMIT, units that arrive while a transaction is being written are stored together
 * ("group commit"): one transaction, each unit inside its own SAVEPOINT, so a unit that fails rolls
 * back alone and only its caller sees the error. A unit that arrives on an idle writer starts at once
 * (after one turn of the event loop, so that requests already received join it); each caller's promise settles only after the transaction holding its unit has
 * committed, so nothing is acknowledged before it is durable.
 */
export function atomicWriter(db: Db, dialect: Dialect, limits: BatchLimits = DEFAULT_BATCH_LIMITS): AtomicWriter {
  if (dialect === 'postgres') return { run: (work) => inTransaction(db, work) };
  return new GroupCommitWriter(db, limits);
}

interface Pending {
  readonly work: AtomicWork;
  readonly weight: number;
  readonly resolve: () => void;
  readonly reject: (err: unknown) => void;
}

const DONE = Symbol('done');

class GroupCommitWriter implements AtomicWriter {
  private readonly queue: Pending[] = [];
  private draining = false;

  constructor(
    private readonly db: Db,
    private readonly limits: BatchLimits,
  ) {}

  run(work: AtomicWork, weight: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.queue.push({ work, weight, resolve, reject });
      if (!this.draining) {
        this.draining = true;
        // One turn of the event loop first: requests already on their sockets join this transaction.
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.writeBatch(this.takeBatch());
    } finally {
      this.draining = false;
    }
  }

  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    let weight = 0;
    while (this.queue.length > 0 && batch.length < this.limits.maxUnits) {
      const next = this.queue[0]!;
      if (batch.length > 0 && weight + next.weight > this.limits.maxWeight) break;
      batch.push(this.queue.shift()!);
      weight += next.weight;
    }
    return batch;
  }

  private async writeBatch(batch: Pending[]): Promise<void> {
    const outcomes: unknown[] = [];
    try {
      await inTransaction(this.db, async (tx) => {
        outcomes.length = 0; // a retried transaction (SQLITE_BUSY) starts over
        if (batch.length === 1) {
          // Alone in its transaction, a unit needs no savepoint: if it fails, the transaction rolls back.
          await batch[0]!.work(tx);
          outcomes.push(DONE);
          return;
        }
        for (const unit of batch) {
          await sql`savepoint unit`.execute(tx);
          try {
            await unit.work(tx);
            await sql`release savepoint unit`.execute(tx);
            outcomes.push(DONE);
          } catch (err) {
            // Another process holds the database: the whole transaction is retried by inTransaction.
            if (isBusy(err)) throw err;
            await sql`rollback to savepoint unit`.execute(tx);
            await sql`release savepoint unit`.execute(tx);
            outcomes.push(err);
          }
        }
      });
    } catch (err) {
      for (const unit of batch) unit.reject(err);
      return;
    }
    for (const [i, unit] of batch.entries()) {
      if (outcomes[i] === DONE) unit.resolve();
      else unit.reject(outcomes[i]);
    }
  }
}

function isBusy(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' && code.startsWith('SQLITE_BUSY');
}
