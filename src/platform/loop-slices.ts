/** One turn of the event loop: the I/O and timers already waiting run before what follows. */
export const nextTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Work whose size grows with stored data, run in slices (docs/architecture.md#work-that-grows-with-stored-data):
 * better-sqlite3 runs every statement on the event loop, and a chain of awaited statements never lets I/O in
 * (the driver's promises settle as microtasks). `next()` between units yields one turn once the slice has run
 * `budgetMs`, so each slice stays well under the 100 ms bound (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop) however many units there are. PostgreSQL's
 * statements already wait for the server (the event loop runs meanwhile): callers slice on SQLite only.
 */
export class LoopSlices {
  private sliceStart = performance.now();

  constructor(private readonly budgetMs = SLICE_BUDGET_MS) {}

  async next(): Promise<void> {
    if (performance.now() - this.sliceStart < this.budgetMs) return;
    await nextTurn();
    this.sliceStart = performance.now();
  }
}

/** A slice's budget: a tenth of the bound, so a slice and what waited for it both fit well under it. */
export const SLICE_BUDGET_MS = 10;
