import type { Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { IntegrationEvent } from '../../platform/db/schema.js';

/**
 * The claims of a billing system's event (src/loop/integrations/), as the first guard of the plan of its
 * effect (a payment or a refund): each changes no row when another delivery or instance took it first.
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
