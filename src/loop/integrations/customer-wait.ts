import { eventOutcome, waitingCustomerCleared, waitingPaymentClaim, waitingPaymentClosed } from '../ledger/claim-writes.js';
import { logEventOnce, noteEvent } from './event-log.js';
import type { Db } from '../../platform/db/database.js';
import type { IntegrationEvent, IntegrationProvider } from '../../platform/db/schema.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import type { OrderService } from '../orders/order.service.js';
import { countWaitingForCustomer, findCustomerEmail, findWaitingForCustomer } from './integration-event.repository.js';

/** A Paddle transaction kept until its customer's email arrives: what booking it needs, parsed and converted when it was received. */
export interface WaitingPayment {
  readonly orderId: string;
  readonly currency: string;
  readonly amountCents: number;
  readonly product: string;
  readonly refCode: string | undefined;
}

/**
 * Transactions that name a customer whose email svc has not learnt yet (Paddle; docs/api.md, "Integrations"):
 * each waits on its log row (`waiting_customer_id`, with the payment in `pay_json`) until the customer's
 * notification books it; an order booked at once by its svc_ref waits there for its email only.
 * Nothing depends on the provider retrying (integrations.test.ts, "Paddle transactions before their customer").
 */
export class CustomerWait {
  constructor(
    private readonly db: Db,
    private readonly settings: SettingsService,
    private readonly orders: OrderService,
    /** What follows a booking: the refunds that waited for its order. */
    private readonly afterBooking: (provider: IntegrationProvider, orderId: string) => Promise<void>,
  ) {}

  /**
   * Logs the transaction as waiting for `customerId` (false: another delivery logged it first), then books
   * it if the customer arrived meanwhile: the row is written before the customer is read, and the
   * notification writes the customer before it reads the rows, so one of the two always sees the other.
   */
  async keep(row: IntegrationEvent, customerId: string, payment: WaitingPayment): Promise<boolean> {
    const first = await logEventOnce(this.db, { ...row, waiting_customer_id: customerId, pay_json: JSON.stringify(payment) });
    await this.bookFor(row.provider, customerId);
    return first;
  }

  /**
   * Once the customer's email is known: every transaction that waited for it is booked (each in its own
   * transaction, which also takes the waiting row, so once whatever the number of instances and
   * deliveries), and every order booked before it gets its email.
   */
  async bookFor(provider: IntegrationProvider, customerId: string): Promise<void> {
    const email = await findCustomerEmail(this.db, provider, customerId);
    if (email === undefined) return;
    for (const waiting of await findWaitingForCustomer(this.db, provider, customerId)) {
      if (waiting.pay_json === null) {
        if (waiting.order_id !== null) await this.orders.fillUnknownEmail(waiting.order_id, email);
        await noteEvent(this.db, waitingCustomerCleared(this.db, waiting.id));
        continue;
      }
      const p = JSON.parse(waiting.pay_json) as WaitingPayment;
      if (p.currency !== (await this.settings.currency()).code) {
        await noteEvent(this.db, waitingPaymentClosed(this.db, waiting.id, 'currency_mismatch'));
        continue;
      }
      const done = await this.orders.createPaid(
        { orderId: p.orderId, email, amountCents: p.amountCents, product: p.product, refCode: p.refCode },
        { claim: (tx) => waitingPaymentClaim(tx, waiting.id), orderExists: (tx) => noteEvent(tx, eventOutcome(tx, waiting.id, 'ignored', 'order_exists')) },
      );
      if (done.kind === 'paid') await this.afterBooking(provider, p.orderId);
    }
  }

  /** How many transactions wait for their customer: to book, and booked with their email to fill in. */
  counts(provider: IntegrationProvider): Promise<{ toBook: number; emailToFill: number }> {
    return countWaitingForCustomer(this.db, provider);
  }
}
