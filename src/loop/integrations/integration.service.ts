import { eventClaim, eventOutcome, waitingCustomerCleared, waitingRefundClaim, waitingRefundClosed } from '../ledger/claim-writes.js';
import { logEventOnce, noteEvent } from './event-log.js';
import type { Clock } from '../../platform/clock.js';
import { type Db, inTransaction } from '../../platform/db/database.js';
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';
import type { IntegrationEvent, IntegrationOutcome, IntegrationProvider, VoidReason } from '../../platform/db/schema.js';
import { AppError } from '../../platform/errors.js';
import { emailField } from '../../platform/http/schemas.js';
import { newId } from '../../platform/ids.js';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import type { OrderService, RefundAmount } from '../orders/order.service.js';
import { INTEGRATION_SECRET_KEYS, type SettingsService } from '../../platform/settings/settings.service.js';
import {
  findCustomerEmail,
  findEvent,
  findEventByKey,
  findOrderIdByPaymentRef,
  findPaymentRefs,
  findWaitingRefunds,
  listEvents,
  upsertCustomer,
} from './integration-event.repository.js';
import { type Currency, maxMinor, rescaleMinor } from '../../platform/money.js';
import { CustomerWait, type WaitingPayment } from './customer-wait.js';
import { integrationEventView, type IntegrationEventView, type ProviderStatus, type Receipt } from './integration-event.view.js';
import { InvalidSignatureError, invalidBody, verifiedEvent } from './webhook-verification.js';
import { minorToCents } from './minor-units.js';
import { ACTED_ON, type ProviderAction, type ProviderEvent } from './provider-events.js';

const EVENT_LIST = 'integration-events';

/** The program's currency until a setting names another. */
/** A provider's minor-unit amount as minor units of the program currency `cur` (the provider's own currency is checked equal first). */
function providerMinor(minor: number, cur: Currency): number | undefined {
  const cents = minorToCents(minor, cur.code);
  return cents === undefined ? undefined : rescaleMinor(cents, { code: cur.code, digits: 2 }, cur);
}



/** A refund kept until its order arrives. */
interface WaitingRefund {
  readonly amount: RefundAmount;
  readonly voidReason: VoidReason;
}

/**
 * Orders from billing systems (docs/api.md, "Integrations"): each provider's raw body is verified with
 * its secret before anything is read from it, then mapped (provider-events.ts) and acted on once per
 * event key: the event's log row is written in the same transaction (or chain) as its effect.
 */
export class IntegrationService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly orders: OrderService,
    private readonly affiliates: Pick<AffiliateService, 'isActive'>,
  ) {
    this.customerWait = new CustomerWait(db, settings, orders, (provider, orderId) => this.afterBooking(provider, orderId));
  }

  private readonly customerWait: CustomerWait;

  /** Verifies and acts on one delivery; throws InvalidSignatureError (nothing recorded) when it is not the provider's. */
  async receive(provider: IntegrationProvider, raw: Buffer, signature: string | undefined): Promise<Receipt> {
    const secret = (await this.settings.get())[INTEGRATION_SECRET_KEYS[provider]];
    if (secret === '') throw new InvalidSignatureError(`No ${provider} webhook secret is set`);
    if (!signature) throw new InvalidSignatureError('The signature header is missing');
    const event = await verifiedEvent(provider, raw, signature, secret, this.clock.now());
    return this.act(event);
  }

  private async act(event: ProviderEvent): Promise<Receipt> {
    if (event.dedupeKey === '' || event.type === '') throw invalidBody('The event names no type or id');
    const action = event.action;
    switch (action.kind) {
      case 'ignore':
        return this.log(event, 'ignored', action.reason, null);
      case 'customer': {
        const email = parsedEmail(action.email);
        if (!email) return this.log(event, 'ignored', 'no_email', null);
        const row = this.row(event, 'applied', null, null);
        const first = await inTransaction(this.db, async (tx) => {
          if (!(await logEventOnce(tx, row))) return false;
          await upsertCustomer(tx, event.provider, action.customerId, email, row.received_at);
          return true;
        });
        // a redelivery too: an instance that stopped after learning the customer left its transactions waiting
        await this.customerWait.bookFor(event.provider, action.customerId);
        return this.receipt(event, first, row);
      }
      case 'link': {
        const row = { ...this.row(event, 'applied', null, action.orderId), payment_ref: action.paymentRef.slice(0, 300) };
        const first = await logEventOnce(this.db, row);
        if (first) await this.applyWaiting(action.orderId, action.paymentRef);
        return this.receipt(event, first, row);
      }
      case 'pay':
        return this.pay(event, action);
      case 'refund':
        return this.refund(event, action);
    }
  }

  private async pay(event: ProviderEvent, action: Extract<ProviderAction, { kind: 'pay' }>): Promise<Receipt> {
    const orderId = action.orderId;
    if (orderId.endsWith(':')) return this.log(event, 'failed', 'no_order_id', null);
    const cur = await this.settings.currency();
    if (action.currency !== cur.code) return this.log(event, 'ignored', 'currency_mismatch', orderId);
    const cents = action.amountMinor === undefined ? undefined : providerMinor(action.amountMinor, cur);
    if (cents === undefined) return this.log(event, 'failed', 'amount_not_exact', orderId);
    if (cents === 0) return this.log(event, 'ignored', 'nothing_paid', orderId);
    if (cents > maxMinor(cur)) return this.log(event, 'failed', 'amount_too_large', orderId);
    const product = action.product.slice(0, 500);
    const refCode = action.refCode?.slice(0, 64);
    let email = parsedEmail(action.email);
    // the customer whose notification fills in this order's email (booked at once by its svc_ref)
    let emailFrom: string | undefined;
    if (!email && action.customerId) {
      const customerId = action.customerId;
      email = await findCustomerEmail(this.db, event.provider, customerId);
      if (!email) {
        const payment: WaitingPayment = { orderId, currency: cur.code, amountCents: cents, product, refCode };
        // an affiliate deactivated within isActive's cache second books no commission: the paying UPDATE (ledger/order-writes.ts orderPayment) checks again
        if (!refCode || !(await this.affiliates.isActive(refCode))) return this.waitForCustomer(event, customerId, payment);
        email = '';
        emailFrom = customerId;
      }
    }
    if (email === undefined) return this.log(event, 'failed', 'no_email', orderId);
    const row = { ...this.row(event, 'applied', null, orderId), payment_ref: action.paymentRef?.slice(0, 300) ?? null, waiting_customer_id: emailFrom ?? null };
    const done = await this.orders.createPaid(
      { orderId, email, amountCents: cents, product, refCode },
      {
        claim: (tx) => eventClaim(tx, row),
        orderExists: async (tx) => {
          await noteEvent(tx, eventOutcome(tx, row.id, 'ignored', 'order_exists'));
          await noteEvent(tx, waitingCustomerCleared(tx, row.id));
        },
      },
    );
    if (done.kind === 'duplicate') {
      // a redelivery: the transaction may wait on its first delivery's row, and its customer be known by now
      if (action.customerId) await this.customerWait.bookFor(event.provider, action.customerId);
      return this.receipt(event, false, row);
    }
    if (emailFrom !== undefined) await this.customerWait.bookFor(event.provider, emailFrom); // its notification may have come meanwhile
    if (done.kind === 'order_exists') return { first: true, outcome: 'ignored', reason: 'order_exists', orderId };
    await this.afterBooking(event.provider, orderId);
    return { first: true, outcome: 'applied', reason: null, orderId };
  }

  /** The refunds that arrived before this order, applied now that it is paid. */
  private async afterBooking(provider: IntegrationProvider, orderId: string): Promise<void> {
    await this.applyWaiting(orderId);
    for (const ref of await findPaymentRefs(this.db, provider, orderId)) await this.applyWaiting(orderId, ref);
  }

  /**
   * A transaction whose customer svc has not learnt: answered 2xx and kept on its log row (`waiting_for_customer`)
   * until the customer's notification books it. Nothing depends on the provider retrying.
   */
  private async waitForCustomer(event: ProviderEvent, customerId: string, payment: WaitingPayment): Promise<Receipt> {
    const row = this.row(event, 'ignored', 'waiting_for_customer', payment.orderId);
    const first = await this.customerWait.keep(row, customerId, payment);
    const now = first ? await findEvent(this.db, row.id) : undefined;
    if (!first || !now) return this.receipt(event, false, row);
    return { first: true, outcome: now.outcome, reason: now.reason, orderId: payment.orderId };
  }

  private async refund(event: ProviderEvent, action: Extract<ProviderAction, { kind: 'refund' }>): Promise<Receipt> {
    // a dispute names a Stripe invoice's order by its payment intent
    if (action.orderId.endsWith(':')) return this.log(event, 'failed', 'no_order_id', null);
    const booked = action.bookedBy === undefined ? undefined : await findEventByKey(this.db, event.provider, action.bookedBy);
    const bookedAs = booked?.outcome === 'applied' ? (booked.order_id ?? undefined) : undefined;
    const orderId = bookedAs ?? (await findOrderIdByPaymentRef(this.db, event.provider, action.orderId)) ?? action.orderId;
    const cur = await this.settings.currency();
    if (action.currency !== cur.code) return this.log(event, 'ignored', 'currency_mismatch', orderId);
    const minor = action.minor;
    const cents = minor === undefined ? undefined : providerMinor('total' in minor ? minor.total : minor.amount, cur);
    if (minor === undefined || cents === undefined) return this.log(event, 'failed', 'amount_not_exact', orderId);
    const amount: RefundAmount = 'total' in minor ? { upToTotalCents: cents } : { cents, capped: true };
    const row = this.row(event, 'applied', null, orderId);
    const result = await this.orders
      .refundAs(orderId, amount, action.voidReason, {
        write: eventClaim(this.db, row),
        taken: async () => (await findEventByKey(this.db, event.provider, event.dedupeKey)) !== undefined,
      })
      .catch(orderNotThere);
    if (result === 'duplicate') return this.receipt(event, false, row);
    if (result === 'nothing_left') return this.log(event, 'ignored', 'already_refunded', orderId);
    if (result !== 'unknown') return { first: true, outcome: 'applied', reason: null, orderId };
    // kept until the order arrives; applied now if it arrived meanwhile
    const waiting: IntegrationEvent = {
      ...row,
      outcome: 'ignored',
      reason: 'awaiting_order',
      order_id: null,
      waiting_order_id: orderId,
      refund_json: JSON.stringify({ amount, voidReason: action.voidReason } satisfies WaitingRefund),
    };
    const first = await logEventOnce(this.db, waiting);
    if (!first) return this.receipt(event, false, waiting);
    // its order may have been paid meanwhile, under another name
    await this.applyWaiting((await findOrderIdByPaymentRef(this.db, event.provider, orderId)) ?? orderId, orderId);
    const now = await findEvent(this.db, waiting.id);
    return { first: true, outcome: now?.outcome ?? 'ignored', reason: now?.reason ?? null, orderId };
  }

  /** Applies the refunds that waited for this order (named `waitingFor` by them), each once whatever the number of instances. */
  private async applyWaiting(orderId: string, waitingFor = orderId): Promise<void> {
    for (const waiting of await findWaitingRefunds(this.db, waitingFor)) {
      const refund = JSON.parse(waiting.refund_json ?? '{}') as WaitingRefund;
      const claim = {
        write: waitingRefundClaim(this.db, waiting.id, orderId),
        taken: async () => (await findEvent(this.db, waiting.id))?.waiting_order_id === null,
      };
      const result = await this.orders.refundAs(orderId, refund.amount, refund.voidReason, claim).catch(orderNotThere);
      if (result === 'unknown') return; // the order has not arrived: it applies these when it does
      if (result === 'nothing_left') await noteEvent(this.db, waitingRefundClosed(this.db, waiting.id, orderId, 'already_refunded'));
    }
  }

  /** Logs an event that changes nothing (once per key). */
  private async log(event: ProviderEvent, outcome: IntegrationOutcome, reason: string | null, orderId: string | null): Promise<Receipt> {
    const row = this.row(event, outcome, reason, orderId);
    return this.receipt(event, await logEventOnce(this.db, row), row);
  }

  private async receipt(event: ProviderEvent, first: boolean, row: IntegrationEvent): Promise<Receipt> {
    if (first) return { first, outcome: row.outcome, reason: row.reason, orderId: row.order_id ?? row.waiting_order_id };
    const stored = await findEventByKey(this.db, event.provider, event.dedupeKey);
    return { first, outcome: stored?.outcome ?? row.outcome, reason: stored?.reason ?? row.reason, orderId: stored ? (stored.order_id ?? stored.waiting_order_id) : null };
  }

  private row(event: ProviderEvent, outcome: IntegrationOutcome, reason: string | null, orderId: string | null): IntegrationEvent {
    const now = this.clock.now();
    return {
      id: newId('ie', now),
      provider: event.provider,
      dedupe_key: event.dedupeKey.slice(0, 300),
      type: event.type.slice(0, 100),
      provider_event_id: event.providerEventId?.slice(0, 200) ?? null,
      received_at: now,
      outcome,
      reason,
      order_id: orderId,
      waiting_order_id: null,
      refund_json: null,
      payment_ref: null,
      waiting_customer_id: null,
      pay_json: null,
    };
  }

  /** What the Integrations page shows per provider. */
  async status(): Promise<ProviderStatus[]> {
    const paddle = await this.customerWait.counts('paddle');
    return (Object.keys(ACTED_ON) as IntegrationProvider[]).map((provider) => ({
      provider,
      events: ACTED_ON[provider],
      waitingForCustomer: provider === 'paddle' ? paddle.toBook : 0,
      awaitingEmail: provider === 'paddle' ? paddle.emailToFill : 0,
    }));
  }

  async list(filter: { provider?: IntegrationProvider; cursor?: string; limit: number }): Promise<Page<IntegrationEventView>> {
    const after = filter.cursor === undefined ? undefined : decodeKey(filter.cursor, ['number', 'string'] as const, EVENT_LIST);
    const rows = await listEvents(this.db, { provider: filter.provider, after, limit: filter.limit });
    return keysetPage(rows, filter.limit, (e) => [e.received_at, e.id], integrationEventView, EVENT_LIST);
  }
}

/** A refund's order is not there (or not paid, which a provider's order always is): 'unknown'. */
function orderNotThere(err: unknown): 'unknown' {
  if (err instanceof AppError && (err.code === 'order_not_found' || err.code === 'invalid_transition')) return 'unknown';
  throw err;
}

function parsedEmail(v: string | undefined): string | undefined {
  if (v === undefined) return undefined;
  const r = emailField.safeParse(v);
  return r.success ? r.data : undefined;
}
