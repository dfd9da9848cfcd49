import type { Compilable } from 'kysely';
import type { Clock } from '../../platform/clock.js';
import type { Db, Executor } from '../../platform/db/database.js';
import { type ChainedWrite, commitChain, writeChain } from '../../platform/db/write-together.js';
import { eventsInsert } from '../../platform/events/outbox.js';
import { counterWrites, pickStripe } from './counters.repository.js';
import type { LedgerPlan } from './plan.js';

/**
 * The one writer of money plans (plan.ts). Lock order, for every money transaction:
 *
 *   entity rows (claim, order, commission, withdrawal)  ->  the all-time counter row (one stripe)  ->  day rows
 *
 * (a withdrawal request locks the affiliate and all its stripes first, see lockBalance), so no two
 * writers wait on each other in opposite orders (ledger-concurrency.test.ts, ledger-mixed-concurrency.test.ts).
 * On PostgreSQL the whole plan is one statement (write-together.ts); on SQLite its writes run in turn.
 */

/** Makes `plan` in the caller's transaction. False when a guard changed no row: the caller must roll back. */
export function applyPlan(tx: Executor, clock: Clock, plan: LedgerPlan): Promise<boolean> {
  return writeChain(tx, chainOf(tx, plan), ridersOf(tx, clock, plan));
}

/**
 * Makes `plan` as a transaction of its own (one statement on PostgreSQL): true when every guard changed
 * its row, false with nothing written when one did not (ledger-refund-concurrency.test.ts).
 */
export function commitPlan(db: Db, clock: Clock, plan: LedgerPlan): Promise<boolean> {
  return commitChain(db, chainOf(db, plan), ridersOf(db, clock, plan));
}

function chainOf(db: Executor, plan: LedgerPlan): ChainedWrite[] {
  const c = plan.counters;
  const counters = c ? counterWrites(db, c.refCode, c.bumps, c.stripe ?? pickStripe(), c.balanceCents ?? 0) : [];
  return [...(plan.guards ?? []), ...counters];
}

function ridersOf(db: Executor, clock: Clock, plan: LedgerPlan): Compilable[] {
  const events = plan.events ?? [];
  return [...(plan.inserts ?? []), ...(events.length > 0 ? [eventsInsert(db, clock, events)] : [])];
}
