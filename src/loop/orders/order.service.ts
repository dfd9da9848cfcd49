import type { Clock } from '../../platform/clock.js';
import type { CommissionService } from '../commissions/commission.service.js';
import type { FraudService, FraudTerms } from '../fraud/fraud.service.js';
import type { Logger } from '../../platform/logger.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import type { ChainedWrite } from '../ledger/chain.js';
import type { Commission, Order, OrderStatus, VoidReason } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError, RefundExceedsAmountError } from '../../platform/errors.js';
import { type OutboxSignal, pendingEvent } from '../../platform/events/outbox.js';
import { orderPaidPayload, orderRefundedPayload } from './order.events.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { applyGuarded, applyPlan, commitPlan, missedAs, whenMissed } from '../ledger/executor.js';
import { orderEmailFill, orderInsert, orderPayment, orderRefund, paymentOf } from '../ledger/order-writes.js';
import { attributedOrderPaid } from '../ledger/ledger.js';
import { type Currency, fromMinor } from '../../platform/money.js';
import { joinPlans } from '../ledger/plan.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { findOrder, listOrders } from './order.repository.js';
import { findOrderWithSale } from '../ledger/refund-facts.repository.js';

/** Names this list's cursors, so that no other list takes them. */
const ORDER_LIST = 'orders';

/** A row of the order list: the order and its commission, if one was booked. */
export interface OrderWithCommission {
  readonly order: Order;
  readonly commission: Commission | undefined;
}

export interface NewOrder {
  readonly orderId: string;
  /** Already trimmed and lower-cased; '' for a billing system's order whose email arrives later (fillUnknownEmail). */
  readonly email: string;
  readonly amountCents: number;
  readonly product: string;
  /** An affiliate the order names: attributes it at payment when its email names none (ignored unless active). */
  readonly refCode?: string;
}

/** What an order from a billing system's event did (see createPaid). */
export type ProviderPayment = { readonly kind: 'paid'; readonly paid: PaidOrder } | { readonly kind: 'order_exists' } | { readonly kind: 'duplicate' };

/**
 * The mark that a delivered event is acted on once (src/loop/integrations/): `claim` is the first guard of
 * the event's effect, in its transaction; it changes no row when another delivery took it first.
 */
export interface EventClaim {
  claim(tx: Executor): ChainedWrite;
  /** The order of a paid event existed already: the claim records that nothing was done. */
  orderExists(tx: Executor): Promise<void>;
}

/** A refund's claim: the first write of its chain (it changes no row when taken already), and whether it is taken. */
export interface RefundClaim {
  readonly write: ChainedWrite;
  taken(): Promise<boolean>;
}

/** How much a refund takes: an amount, or whatever brings the refunded total up to a figure. */
export type RefundAmount = { readonly cents?: number; readonly capped?: boolean } | { readonly upToTotalCents: number };

/** The settings a payment decides with. */
interface PayTerms {
  readonly globalRateBp: number;
  readonly cur: Currency;
  readonly fraud: FraudTerms;
}

export interface PaidOrder {
  readonly order: Order;
  readonly commission: Commission | undefined;
}

export interface RefundedOrder extends PaidOrder {
  readonly clawback: Commission | undefined;
  readonly refundCents: number;
}

export class OrderService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly commissions: CommissionService,
    private readonly outbox: OutboxSignal,
    private readonly fraud: FraudService,
    private readonly logger: Logger,
  ) {}

  /** The program currency (docs/api.md#payouts). */
  currency(): Promise<Currency> {
    return this.settings.currency();
  }

  /** Creates the order; the same order_id again is a replay when every field matches, else a conflict. */
  async create(input: NewOrder): Promise<{ order: Order; created: boolean }> {
    const row = this.newRow(input);
    if (await this.insert(this.db, row)) return { order: row, created: true };
    const existing = await findOrder(this.db, input.orderId);
    if (!existing) throw new Error(`order ${input.orderId} vanished after a conflicting insert`);
    if (existing.email !== input.email || existing.amount_cents !== input.amountCents || existing.product !== input.product) {
      throw new ConflictError('order_exists', `Order ${input.orderId} exists with different fields`);
    }
    return { order: existing, created: false };
  }

  /** Inserts a new order (a plan of one guard); false when the order_id is already taken. */
  private insert(db: Executor, row: Order): Promise<boolean> {
    return applyPlan(db, this.clock, { guards: [orderInsert(db, row)] }).then(() => true, whenMissed(false));
  }

  private newRow(input: NewOrder): Order {
    return {
      order_id: input.orderId,
      email: input.email,
      amount_cents: input.amountCents,
      product: input.product,
      status: 'created',
      ref_code: null,
      created_at: this.clock.now(),
      paid_at: null,
      refunded_cents: 0,
      named_ref_code: input.refCode ?? null,
    };
  }

  /**
   * An order a billing system says is paid: created and paid in one transaction that also takes the
   * event's claim, so that however many deliveries of the event race, one acts and the others find the
   * claim taken ('duplicate'). An order that exists already is left as it is ('order_exists').
   */
  async createPaid(input: NewOrder, claim: EventClaim): Promise<ProviderPayment> {
    const terms = await this.payTerms();
    const result = await inTransaction(this.db, async (tx): Promise<ProviderPayment> => {
      const taken = await applyPlan(tx, this.clock, { guards: [claim.claim(tx)] }).then(() => true, whenMissed(false));
      if (!taken) return { kind: 'duplicate' };
      if (!(await this.insert(tx, this.newRow({ ...input, orderId: input.orderId })))) {
        await claim.orderExists(tx);
        return { kind: 'order_exists' };
      }
      const paid = await this.payIn(tx, input.orderId, terms).catch(missedAs(new Error(`order ${input.orderId} was not payable right after its insert`)));
      return { kind: 'paid', paid };
    });
    if (result.kind !== 'duplicate') this.outbox.kick();
    return result;
  }

  /**
   * A billing system's order booked before its customer's email was known (email ''; Paddle): the email
   * filled in when it arrives. Its attribution and commission stay as booked (held when self_referral fires
   * on the email now); false when it had an email.
   */
  async fillUnknownEmail(orderId: string, email: string): Promise<boolean> {
    const terms = await this.payTerms();
    const filled = await inTransaction(this.db, async (tx) => {
      await applyPlan(tx, this.clock, { guards: [orderEmailFill(tx, orderId, email)] });
      // docs/api.md#fraud-review: self_referral now that the email is known
      await this.fraud.atLateEmail(tx, terms.fraud, orderId, email, terms.cur);
      return true;
    }).catch(whenMissed(false));
    if (filled) this.outbox.kick();
    return filled;
  }

  async get(orderId: string): Promise<Order> {
    const order = await findOrder(this.db, orderId);
    if (!order) throw new NotFoundError('order_not_found', `No order ${orderId}`);
    return order;
  }

  /** One order with its commission (if any), for the admin UI. */
  async getWithCommission(orderId: string): Promise<PaidOrder> {
    const order = await this.get(orderId);
    return { order, commission: order.status !== 'created' ? await this.commissions.ofOrder(orderId) : undefined };
  }

  /** A page of orders, each with its affiliate and commission (one more query for the whole page). */
  async list(filter: { status?: OrderStatus; email?: string; q?: string; cursor?: string; limit: number }): Promise<Page<OrderWithCommission>> {
    const rows = await listOrders(this.db, { ...filter, after: decodeCursor(filter.cursor, ORDER_LIST) });
    const _cur = await this.currency();
    const paid = rows.slice(0, filter.limit).filter((o) => o.status !== 'created' && o.ref_code !== null);
    const commissions = new Map((await this.commissions.ofOrders(paid.map((o) => o.order_id))).map((c) => [c.order_id, c]));
    return toPage(rows, filter.limit, (o) => ({ createdAt: o.created_at, id: o.order_id }), (o) => ({ order: o, commission: commissions.get(o.order_id) }), ORDER_LIST);
  }

  /**
   * created -> paid, once. The conditional update comes first in the transaction (it also takes the
   * write lock on SQLite and the row lock on PostgreSQL), so concurrent payers queue behind the winner
   * and then find nothing to update; they answer with what the winner committed.
   */
  async pay(orderId: string): Promise<PaidOrder> {
    const terms = await this.payTerms();
    const won = await inTransaction(this.db, (tx) => this.payIn(tx, orderId, terms)).catch(whenMissed(undefined));
    if (won) {
      this.outbox.kick();
      return won;
    }
    const order = await findOrder(this.db, orderId);
    if (!order) throw new NotFoundError('order_not_found', `No order ${orderId}`);
    return { order, commission: await this.commissions.ofOrder(orderId) };
  }

  /** What a payment needs from the settings, read before its transaction (SQLite: a read inside one waits for its own connection). */
  private async payTerms(): Promise<PayTerms> {
    return { globalRateBp: await this.settings.globalRateBp(), cur: await this.currency(), fraud: await this.fraud.terms() };
  }

  /**
   * The payment's plan, in the caller's transaction: its first guard is the paying UPDATE, and the rest is
   * decided on the row it returns. The executor throws PlanMissed when the order is not in `created`.
   */
  private payIn(tx: Executor, orderId: string, terms: PayTerms): Promise<PaidOrder> {
    const now = this.clock.now();
    return applyGuarded(tx, this.clock, orderPayment(tx, orderId, now), async (row) => {
      // Attributed to the affiliate of the mailbox carrying the order's email, whatever the affiliate's
      // status now (it was active when the mailbox was attributed).
      const { order, attribution } = paymentOf(row);
      // docs/api.md#fraud-review: the payment's signals, before the commission (a case that opens to hold takes the pending ones first)
      const hold = attribution ? await this.fraud.atPayment(tx, terms.fraud, order, attribution, terms.cur) : undefined;
      const booked = attribution ? await this.commissions.createForPaidOrder(tx, order, attribution, terms, now, hold) : undefined;
      const commission = booked?.commission;
      const plan = joinPlans(booked?.plan, {
        counters: attribution ? attributedOrderPaid(attribution.ref_code, order, commission) : undefined,
        events: [pendingEvent('order.paid', orderPaidPayload(order, commission, terms.cur))],
      });
      return { plan, result: { order, commission } };
    });
  }

  /**
   * Refunds (docs/ledger.md#refunds-and-clawbacks). It reads the order and its sale commission, decides, and makes every write in
   * one go (commitPlan: a transaction of its own, one statement in it on PostgreSQL): the order's refunded_cents
   * moves by an UPDATE conditional on the value just read (it also takes the order's row lock), and the
   * commission's by one conditional on its state and amount, so concurrent refunds of one order queue and
   * each decides on what the previous one left: their sum never exceeds the amount, and each refunded cent
   * is clawed back at most once. When a conditional update finds the row changed, nothing is written and
   * the refund reads and decides again.
   */
  async refund(orderId: string, amountCents: number | undefined): Promise<RefundedOrder> {
    const done = await this.refundAs(orderId, { cents: amountCents }, 'refunded', undefined);
    if (done === 'duplicate' || done === 'nothing_left') throw new Error(`refund of order ${orderId}: ${done} without a claim`);
    return done;
  }

  /**
   * A refund for a billing system's event: `upToTotalCents` refunds what brings the refunded total to it
   * ('nothing_left' when it is there already); `claim` is written first in the refund's chain, so the
   * refund and the claim are made together or not at all ('duplicate' when another delivery took it).
   */
  async refundAs(orderId: string, amount: RefundAmount, voidReason: VoidReason, claim: RefundClaim | undefined): Promise<RefundedOrder | 'duplicate' | 'nothing_left'> {
    const cur = await this.currency();
    let missedOn: string | undefined;
    for (let attempt = 1; ; attempt++) {
      const found = await findOrderWithSale(this.db, orderId);
      if (!found) throw new NotFoundError('order_not_found', `No order ${orderId}`);
      // A miss means another writer changed the order or its commission first (each only moves forward),
      // so the next read differs and this ends. The same read after a miss means a row the writes need is
      // gone or refuses the update (say, a trigger added by hand): fail rather than spin
      // (ledger-rules-refunds.test.ts, "fails a refund whose writes can never match").
      if ((missedOn !== undefined && JSON.stringify(found) === missedOn) || attempt > 100) {
        throw new Error(`refund of order ${orderId}: its writes match nothing on what it read`);
      }
      const { order, sale } = found;
      if (order.status === 'created') {
        throw new ConflictError('invalid_transition', `Cannot refund an order that is ${order.status}`, { status: order.status });
      }
      const refundable = order.amount_cents - order.refunded_cents;
      let cents: number;
      if ('upToTotalCents' in amount) {
        cents = Math.min(amount.upToTotalCents - order.refunded_cents, refundable);
        if (cents <= 0) return 'nothing_left';
      } else {
        cents = amount.capped && amount.cents !== undefined ? Math.min(amount.cents, refundable) : (amount.cents ?? refundable);
        if (amount.capped && cents <= 0) return 'nothing_left';
        if (refundable === 0 || cents > refundable) throw new RefundExceedsAmountError(fromMinor(refundable, cur));
      }
      const now = this.clock.now();
      const { after, write } = orderRefund(this.db, order, cents);
      const outcome = order.ref_code ? this.commissions.onOrderRefunded(this.db, sale, order, after, cents, now, voidReason, cur) : undefined;
      const { commission, clawback } = outcome ?? { commission: undefined, clawback: undefined };
      // the claim, then the order, then the commission: the ledger's lock order
      const plan = joinPlans(
        { guards: claim ? [claim.write, write] : [write] },
        outcome?.plan,
        { events: [pendingEvent('order.refunded', orderRefundedPayload(after, { cents, at: now }, commission, clawback, cur))] },
      );
      const made = await commitPlan(this.db, this.clock, plan);
      if (!made) {
        if (claim && (await claim.taken())) return 'duplicate';
        missedOn = JSON.stringify(found); // a concurrent writer changed the order or its commission first: decide again
        continue;
      }
      this.outbox.kick();
      if (order.ref_code) {
        // docs/api.md#fraud-review: refund_rate, once the refund is booked (a failure to check it is logged, the refund stands)
        await this.fraud.afterRefund(order.ref_code, orderId).catch((err: unknown) => this.logger.error({ err, ref_code: order.ref_code }, 'refund_rate not checked'));
      }
      return { order: after, commission, clawback, refundCents: cents };
    }
  }

  /** The clawbacks booked against an order (the admin UI shows them with the order). */
  async clawbacks(orderId: string): Promise<Commission[]> {
    return this.commissions.clawbacksOf(orderId);
  }
}
