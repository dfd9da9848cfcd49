import type { Compilable } from 'kysely';
import { type Clock, systemClock } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import { type ChainedWrite, writeChain } from './chain.js';
import { eventsInsert } from '../../platform/events/outbox.js';
import { type CounterBump, counterWrites, pickStripe } from './counters.repository.js';
import type { LedgerPlan } from './plan.js';

/**
 * The one writer of money plans (plan.ts). Lock order, for every money transaction:
 *
 *   entity rows (claim, order, commission, withdrawal)  ->  the all-time counter row (one stripe)  ->  day rows
 *
 * (a withdrawal request locks the affiliate and all its stripes first, see lockBalance), so no two
 * writers wait on each other in opposite orders (ledger-concurrency.test.ts, ledger-mixed-concurrency.test.ts).
 * On PostgreSQL the whole plan is one statement (chain.ts); on SQLite its writes run in turn.
 */

/**
 * A guard of a plan changed no row: another writer moved first. Thrown by applyPlan, so that the caller's
 * transaction rolls back whether or not the caller looks (the writes before the guard have happened);
 * runTransition catches it and decides again (ledger-chain.test.ts).
 */
export class PlanMissed extends Error {
  constructor() {
    super('a guard of the ledger plan changed no row');
    this.name = 'PlanMissed';
  }
}

/** A catch handler for a plan a caller may expect to miss: PlanMissed answers `answer`; any other error is rethrown. */
export function whenMissed<T>(answer: T): (err: unknown) => T {
  return (err) => {
    if (err instanceof PlanMissed) return answer;
    throw err;
  };
}

/** A catch handler: PlanMissed becomes `error` (say, a 409 for the caller's client); any other error is rethrown. */
export function missedAs(error: Error): (err: unknown) => never {
  return (err) => {
    throw err instanceof PlanMissed ? error : err;
  };
}

/**
 * Makes `plan` in the caller's transaction; throws PlanMissed when a guard changed no row, which rolls the
 * transaction back (there is no answer to forget).
 */
export async function applyPlan(tx: Executor, clock: Clock, plan: LedgerPlan): Promise<void> {
  if (!(await writeChain(tx, chainOf(tx, plan), ridersOf(tx, clock, plan)))) throw new PlanMissed();
}

/**
 * A plan whose rest is decided on the row its first guard returns (a payment: the paying UPDATE returns
 * the order and its attribution), in the caller's transaction: the guard, then `decide`, then the rest.
 * Throws PlanMissed when the guard changed no row (nothing is written).
 */
export async function applyGuarded<Row, T>(tx: Executor, clock: Clock, first: Compilable<Row>, decide: (row: Row) => Promise<{ readonly plan: LedgerPlan; readonly result: T }>): Promise<T> {
  const row = (await tx.executeQuery(first.compile())).rows[0];
  if (row === undefined) throw new PlanMissed();
  const { plan, result } = await decide(row);
  await applyPlan(tx, clock, plan);
  return result;
}

/**
 * Makes `plan` as a transaction of its own (applyPlan in a transaction, on both databases): true when every
 * guard changed its row, false with nothing written when one did not (the transaction rolls back);
 * conflicts with concurrent writers are retried (ledger-refund-concurrency.test.ts).
 */
export function commitPlan(db: Db, clock: Clock, plan: LedgerPlan): Promise<boolean> {
  if (db.isTransaction) throw new Error('commitPlan makes its own transaction: call applyPlan inside one');
  return inTransaction(db, (tx) => applyPlan(tx, clock, plan)).then(() => true, whenMissed(false));
}

/**
 * Adds deltas to the affiliate's rows of one stripe (0 unless told: /go's batches in flight take one each),
 * all-time then day (clicks and mailboxes count this way), inside
 * the caller's transaction: a plan of counters alone.
 */
export function bumpDailyStats(db: Executor, refCode: string, day: string, deltas: CounterBump['deltas'], stripe = 0): Promise<void> {
  return applyPlan(db, systemClock, { counters: { refCode, bumps: [{ day, deltas }], stripe } });
}

function chainOf(db: Executor, plan: LedgerPlan): ChainedWrite[] {
  const c = plan.counters;
  const counters = c ? counterWrites(db, c.refCode, c.bumps, c.stripe ?? pickStripe(), c.balanceCents ?? 0) : [];
  return [...(plan.guards ?? []), ...counters];
}

function ridersOf(db: Executor, clock: Clock, plan: LedgerPlan): Compilable[] {
  const events = plan.events ?? [];
  return [...(plan.inserts ?? []), ...(plan.riders ?? []), ...(events.length > 0 ? [eventsInsert(db, clock, events)] : [])];
}
