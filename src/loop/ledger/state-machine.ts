import { type Db, inTransaction, type Tx } from '../../platform/db/database.js';
import { ConflictError, type AppError } from '../../platform/errors.js';
import { PlanMissed } from './executor.js';

/** One action of a state machine: the state it leads to and the states it may start from. */
export interface Transition<S extends string> {
  readonly to: S;
  readonly from: readonly S[];
}

export interface TransitionRun<Row extends { status: S }, S extends string> {
  readonly transition: Transition<S>;
  /** Says what is being done in a 409's message, e.g. "approve a commission". */
  readonly label: string;
  load(tx: Tx): Promise<Row | undefined>;
  notFound(): AppError;
  /**
   * Moves the row from exactly `current.status` (a plan whose first guard is the conditional UPDATE) and
   * books what follows from it; the executor throws PlanMissed when another writer changed the row first,
   * so the whole step is rolled back, read and decided again.
   */
  apply(tx: Tx, current: Row): Promise<Row>;
}

/**
 * The one transition loop of the ledger's state machines (commissions, withdrawals): already in the
 * target state answers unchanged; a state the action may not start from is 409 invalid_transition;
 * otherwise the conditional move runs in one transaction with everything it books.
 */
export async function runTransition<Row extends { status: S }, S extends string>(
  db: Db,
  run: TransitionRun<Row, S>,
): Promise<{ row: Row; changed: boolean }> {
  for (;;) {
    try {
      return await inTransaction(db, async (tx) => {
        const current = await run.load(tx);
        if (!current) throw run.notFound();
        if (current.status === run.transition.to) return { row: current, changed: false };
        if (!run.transition.from.includes(current.status)) {
          throw new ConflictError('invalid_transition', `Cannot ${run.label} that is ${current.status}`, { status: current.status });
        }
        return { row: await run.apply(tx, current), changed: true };
      });
    } catch (err) {
      if (!(err instanceof PlanMissed)) throw err;
    }
  }
}
