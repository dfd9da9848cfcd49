import type { Clock } from '../../platform/clock.js';
import type { Db, Executor } from '../../platform/db/database.js';
import type { Commission, CommissionKind, CommissionStatus, FraudSignal, Order, VoidReason } from '../../platform/db/schema.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { EventType } from '../../platform/events/catalogue.js';
import { type OutboxSignal, type PendingEvent, pendingEvent } from '../../platform/events/outbox.js';
import { commissionChangedPayload } from './commission.events.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { newId } from '../../platform/ids.js';
import { type Currency, USD } from '../../platform/money.js';
import { commissionOn, decideCommission, matchRule, needsCustomerFacts } from '../ledger/commission-policy.js';
import { countCommissionedOrders, findAttributedAt, findCandidateRules, lockCustomer } from '../ledger/customer-facts.repository.js';
import { applyPlan } from '../ledger/executor.js';
import { clawbackBooked, commissionMoved, orderRefunded, revenueRefunded } from '../ledger/ledger.js';
import type { LedgerPlan } from '../ledger/plan.js';
import { runTransition, type Transition } from '../ledger/state-machine.js';
import type { PaidAttribution } from '../ledger/order-writes.js';
import {
  findClawbacksByOrder,
  findCommission,
  findCommissionByOrder,
  findCommissionsByOrders,
  findDueCommissionIds,
  listCommissions,
} from './commission.repository.js';
import { commissionInsert, commissionTransition, refundOpenCommission } from '../ledger/commission-writes.js';

/** Names this list's cursors, so that no other list takes them. */
const COMMISSION_LIST = 'commissions';

const DAY_MS = 86_400_000;

export type CommissionAction = 'approve' | 'mark-paid' | 'void';

type CommissionEvent = Extract<EventType, 'commission.approved' | 'commission.paid' | 'commission.voided'>;

/** The state machine of docs/ledger.md#commission-states: where each action leads, from which states, and what it emits. */
const ACTIONS: Record<CommissionAction, Transition<CommissionStatus> & { event: CommissionEvent }> = {
  approve: { to: 'approved', from: ['pending'], event: 'commission.approved' },
  'mark-paid': { to: 'paid', from: ['pending', 'approved'], event: 'commission.paid' },
  void: { to: 'void', from: ['pending', 'approved'], event: 'commission.voided' },
};

/** What a refund does to an order's commissions, and the part of the refund's plan that makes it. */
export interface RefundOutcome {
  /** The sale commission after the refund (undefined when the order has none). */
  readonly commission: Commission | undefined;
  readonly clawback: Commission | undefined;
  /** The commission's conditional update (if any), a clawback's insert, the counters and the commission events. */
  readonly plan: LedgerPlan;
}

export class CommissionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: OutboxSignal,
    /** The holding period as set now (`holding_days`, docs/ledger.md#holding-period; null: approval is manual). */
    private readonly holdingDays: () => Promise<number | null>,
    /** The program currency (docs/api.md#payouts): outputs and events carry it. */
    readonly currency: () => Promise<Currency> = async () => USD,
  ) {}

  /**
   * Books the commission of a freshly paid order, as the policy decides it from the rules (none when a
   * rule's limits say so), inside the payer's transaction (the order's created->paid update makes this run
   * once per order; the unique sale order_id is a second guard). Returns its part of the payment's plan.
   */
  async createForPaidOrder(
    tx: Executor,
    order: Order,
    affiliate: PaidAttribution,
    terms: { readonly globalRateBp: number; readonly cur: Currency },
    now: number,
    /** The open fraud case that holds the affiliate's commissions, if any (docs/api.md#fraud-review). */
    hold: { readonly id: string; readonly signal: FraudSignal } | undefined,
  ): Promise<{ commission: Commission; plan: LedgerPlan } | undefined> {
    const rules = affiliate.rules_may_apply ? await findCandidateRules(tx, affiliate.ref_code, order.product) : [];
    const rule = matchRule(rules, affiliate.ref_code, order.product);
    if (rule?.max_orders != null) await lockCustomer(tx, order.email); // the count below must see concurrent payers' commissions
    const facts = needsCustomerFacts(rule)
      ? { attributedAt: await findAttributedAt(tx, order.email), priorCommissionedOrders: await countCommissionedOrders(tx, order.email) }
      : { attributedAt: null, priorCommissionedOrders: 0 };
    const decision = decideCommission({
      amountCents: order.amount_cents,
      refCode: affiliate.ref_code,
      product: order.product,
      affiliateRateBp: affiliate.commission_rate_bp,
      globalRateBp: terms.globalRateBp,
      rules: rule ? [rule] : [],
      paidAt: now,
      ...facts,
    });
    if (decision.kind === 'none') return undefined;
    const row: Commission = {
      id: newId('com', now),
      order_id: order.order_id,
      ref_code: affiliate.ref_code,
      amount_cents: order.amount_cents,
      rate_bp: decision.rateBp,
      flat_cents: decision.flatCents,
      commission_cents: decision.cents,
      status: 'pending',
      kind: 'sale',
      rule_id: decision.ruleId,
      void_reason: null,
      created_at: now,
      updated_at: now,
      approved_at: null,
      paid_at: null,
      voided_at: null,
      hold_case_id: hold?.id ?? null,
      hold_signal: hold?.signal ?? null,
    };
    return { commission: row, plan: { inserts: [commissionInsert(tx, row)], events: [pendingEvent('commission.created', commissionChangedPayload(row, terms.cur))] } };
  }

  async get(id: string): Promise<Commission> {
    const c = await findCommission(this.db, id);
    if (!c) throw new NotFoundError('commission_not_found', `No commission ${id}`);
    return c;
  }

  /** The sale commission of an order, if one was booked. */
  ofOrder(orderId: string): Promise<Commission | undefined> {
    return findCommissionByOrder(this.db, orderId);
  }

  /** The sale commissions of these orders (at most one each), for a page of the order list. */
  ofOrders(orderIds: readonly string[]): Promise<Commission[]> {
    return findCommissionsByOrders(this.db, orderIds);
  }

  /** The clawbacks booked against an order, oldest first. */
  clawbacksOf(orderId: string): Promise<Commission[]> {
    return findClawbacksByOrder(this.db, orderId);
  }

  async list(filter: { status?: CommissionStatus; refCode?: string; kind?: CommissionKind; cursor?: string; limit: number }): Promise<Page<Commission>> {
    const rows = await listCommissions(this.db, { ...filter, after: decodeCursor(filter.cursor, COMMISSION_LIST) });
    return toPage(rows, filter.limit, (c) => ({ createdAt: c.created_at, id: c.id }), (c) => c, COMMISSION_LIST);
  }

  /** Applies an action (docs/ledger.md#commission-states); the state machine and its retry loop are the ledger's. */
  async act(id: string, action: CommissionAction): Promise<Commission> {
    const { row, changed } = await this.transition(id, action, await this.currency());
    if (changed) this.outbox.kick();
    return row;
  }

  /** `cur` is read before the transaction (on SQLite a pool read inside it would wait for its own connection). */
  private transition(id: string, action: CommissionAction, cur: Currency): Promise<{ row: Commission; changed: boolean }> {
    const rule = ACTIONS[action];
    return runTransition<Commission, CommissionStatus>(this.db, {
      transition: rule,
      label: `${action} a commission`,
      load: (tx) => findCommission(tx, id),
      notFound: () => new NotFoundError('commission_not_found', `No commission ${id}`),
      apply: async (tx, current) => {
        // docs/api.md#fraud-review: held by an open case, it is neither approved nor paid (void stays possible)
        if (current.hold_case_id !== null && rule.to !== 'void') {
          throw new ConflictError('on_hold', `Cannot ${action} a commission held for fraud review (case ${current.hold_case_id})`, { case_id: current.hold_case_id, signal: current.hold_signal });
        }
        const { after, write } = commissionTransition(tx, current, rule.to, this.clock.now());
        await applyPlan(tx, this.clock, { guards: [write], counters: commissionMoved(current, rule.to), events: [pendingEvent(rule.event, commissionChangedPayload(after, cur))] });
        return after;
      },
    });
  }

  /**
   * The holding period (docs/ledger.md#holding-period): approves the pending commissions whose holding period is over, as the
   * setting is now: `holding_days` after the order was paid (a sale commission is created when its order
   * is paid), so a change of the setting applies to the commissions already pending, and none is
   * approved while it is unset. Each approval is the ordinary conditional pending->approved move, so
   * across any number of instances a commission is approved exactly once (and never after it was voided,
   * refunded or paid meanwhile). Returns how many this call approved.
   */
  async approveDue(batch = 100): Promise<number> {
    const days = await this.holdingDays();
    if (days === null) return 0;
    const paidBy = this.clock.now() - days * DAY_MS;
    const cur = await this.currency();
    let approved = 0;
    for (;;) {
      const ids = await findDueCommissionIds(this.db, paidBy, batch);
      let movedHere = 0;
      for (const id of ids) {
        // held between the read and the move (docs/api.md#fraud-review): left pending
        const moved = await this.transition(id, 'approve', cur).catch((err: unknown) => {
          if (err instanceof ConflictError && err.code === 'on_hold') return { changed: false };
          throw err;
        });
        if (moved.changed) movedHere++;
      }
      approved += movedHere;
      if (ids.length < batch || movedHere === 0) break;
    }
    if (approved > 0) this.outbox.kick();
    return approved;
  }

  /**
   * Decides what a refund of `refundCents`, taking the order from `before` to `after`, does to its
   * commissions, on what was just read. While open, the sale commission is reduced to the commission on
   * the remaining amount (voided with `voidReason` when nothing remains), conditionally on the state just
   * read; once paid, what was earned on the refunded part is clawed back as a negative paid commission
   * (ledger-rules-refunds.test.ts, ledger-refund-concurrency.test.ts).
   */
  onOrderRefunded(
    /** What the writes are built for (the executor makes them later). */
    db: Executor,
    /** The order's sale commission as read with the order (findOrderWithSale), before any update. */
    sale: Commission | undefined,
    before: Order,
    after: Order,
    refundCents: number,
    now: number,
    /** Why an open commission is voided when nothing remains of its order. */
    voidReason: VoidReason,
    /** The program currency, for the events. */
    cur: Currency,
  ): RefundOutcome {
    if (!sale) {
      // attributed, but a rule's limits booked no commission: only its revenue moves
      const counters = before.ref_code === null ? undefined : revenueRefunded(before.ref_code, before, refundCents);
      return { commission: undefined, clawback: undefined, plan: { counters } };
    }
    const basis = { rateBp: sale.rate_bp, flatCents: sale.flat_cents };
    const remainingBefore = before.amount_cents - before.refunded_cents;
    const remainingAfter = after.amount_cents - after.refunded_cents;
    if (sale.status === 'pending' || sale.status === 'approved') {
      const change = remainingAfter === 0 ? { voidFor: voidReason } : { toCents: commissionOn(remainingAfter, basis) };
      const { after: updated, write } = refundOpenCommission(db, sale, change, now);
      const events: PendingEvent[] = updated.status === 'void' ? [pendingEvent('commission.voided', commissionChangedPayload(updated, cur))] : [];
      return { commission: updated, clawback: undefined, plan: { guards: [write], counters: orderRefunded(refundCents, sale, updated), events } };
    }
    const clawCents = sale.status === 'void' ? 0 : commissionOn(remainingBefore, basis) - commissionOn(remainingAfter, basis);
    if (clawCents <= 0) {
      // a void commission, or a paid one with nothing left to claw back: only revenue moves
      return { commission: sale, clawback: undefined, plan: { counters: revenueRefunded(sale.ref_code, before, refundCents) } };
    }
    const clawback: Commission = {
      id: newId('com', now),
      order_id: sale.order_id,
      ref_code: sale.ref_code,
      amount_cents: refundCents,
      rate_bp: sale.rate_bp,
      flat_cents: sale.flat_cents,
      commission_cents: -clawCents,
      status: 'paid',
      kind: 'clawback',
      rule_id: sale.rule_id,
      void_reason: null,
      created_at: now,
      updated_at: now,
      approved_at: now,
      paid_at: now,
      voided_at: null,
      hold_case_id: null,
      hold_signal: null,
    };
    return {
      commission: sale,
      clawback,
      plan: {
        inserts: [commissionInsert(db, clawback)],
        counters: clawbackBooked(clawback, refundCents, sale),
        events: [pendingEvent('commission.created', commissionChangedPayload(clawback, cur))],
      },
    };
  }
}
