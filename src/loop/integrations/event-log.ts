import type { Compilable } from 'kysely';
import { systemClock } from '../../platform/clock.js';
import type { Executor } from '../../platform/db/database.js';
import type { IntegrationEvent } from '../../platform/db/schema.js';
import { eventClaim } from '../ledger/claim-writes.js';
import { applyPlan, whenMissed } from '../ledger/executor.js';

/**
 * The event log's writes as ledger plans of their own (the statements are in src/loop/ledger/claim-writes.ts,
 * run by the executor alone; the plans carry no outbox event, so the clock is not read).
 */

/** Logs an event unless one with its key is there: false when another delivery logged it first. */
export function logEventOnce(db: Executor, row: IntegrationEvent): Promise<boolean> {
  return applyPlan(db, systemClock, { guards: [eventClaim(db, row)] }).then(() => true, whenMissed(false));
}

/**
 * Writes a note on a logged event (an outcome, a wait closed), in `db`: it may change no row. One at a time:
 * on PostgreSQL the riders of a plan are CTEs of one statement, where two updates of one row do not both happen.
 */
export function noteEvent(db: Executor, note: Compilable): Promise<void> {
  return applyPlan(db, systemClock, { riders: [note] });
}
