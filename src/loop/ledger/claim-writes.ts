import type { Compilable } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { IntegrationEvent } from '../../platform/db/schema.js';

/**
 * The writes of the billing systems' event log (src/loop/integrations/), built here and run only by the
 * executor (money-writers.test.ts). The claims are guards, first in the plan of the event's effect (a
 * payment or a refund), or a plan of their own: each changes no row when another delivery or instance
 * took it first. The notes (an outcome, a wait closed) are riders: they may change no row.
 */

/** The event logged unless one with its key is there. */
export function eventClaim(db: Executor, row: IntegrationEvent): ChainedWrite {
  return (after) => {
    if (after) throw new Error('an event claim is the first guard of its plan');
    return db.insertInto('integration_events').values(row).onConflict((oc) => oc.columns(['provider', 'dedupe_key']).doNothing()).returning('id');
  };
}

/** A waiting refund, applied. */
export function waitingRefundClaim(db: Executor, id: string, orderId: string): ChainedWrite {
  return (after) => {
    let q = db
      .updateTable('integration_events')
      .set({ waiting_order_id: null, refund_json: null, outcome: 'applied', reason: null, order_id: orderId })
      .where('id', '=', id)
      .where('waiting_order_id', 'is not', null);
    if (after) q = q.where(after);
    return q.returning('id');
  };
}

/** A waiting transaction, taken for booking in the transaction of its order. */
export function waitingPaymentClaim(db: Executor, id: string): ChainedWrite {
  return (after) => {
    let q = db
      .updateTable('integration_events')
      .set({ waiting_customer_id: null, pay_json: null, outcome: 'applied', reason: null })
      .where('id', '=', id)
      .where('pay_json', 'is not', null);
    if (after) q = q.where(after);
    return q.returning('id');
  };
}

/** An event's outcome. */
export function eventOutcome(db: Executor, id: string, outcome: IntegrationEvent['outcome'], reason: string | null): Compilable {
  return db.updateTable('integration_events').set({ outcome, reason }).where('id', '=', id);
}

/** A waiting refund that found nothing left to refund: closed, by at most one instance. */
export function waitingRefundClosed(db: Executor, id: string, orderId: string, reason: string): Compilable {
  return db
    .updateTable('integration_events')
    .set({ waiting_order_id: null, refund_json: null, outcome: 'ignored', reason, order_id: orderId })
    .where('id', '=', id)
    .where('waiting_order_id', 'is not', null);
}

/** A waiting transaction that is not booked after all (say, the program's currency changed): closed, by at most one instance. */
export function waitingPaymentClosed(db: Executor, id: string, reason: string): Compilable {
  return db.updateTable('integration_events').set({ waiting_customer_id: null, pay_json: null, outcome: 'ignored', reason }).where('id', '=', id).where('pay_json', 'is not', null);
}

/** A booked order's email is filled: the row waits for nothing more. */
export function waitingCustomerCleared(db: Executor, id: string): Compilable {
  return db.updateTable('integration_events').set({ waiting_customer_id: null }).where('id', '=', id).where('pay_json', 'is', null);
}
