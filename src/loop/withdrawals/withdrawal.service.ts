import type { Clock, } from '../../platform/clock.js';
import { affiliateExists } from '../ledger/balance.repository.js';
import { withdrawalRequested, withdrawalSettled } from '../ledger/ledger.js';
import { runTransition, type Transition } from '../ledger/state-machine.js';
import { type Db, type Executor, inTransaction, type Tx } from '../../platform/db/database.js';
import type { Withdrawal, WithdrawalStatus } from '../../platform/db/schema.js';
import { ConflictError, InsufficientBalanceError, NotFoundError, PayoutRuleError } from '../../platform/errors.js';
import type { EventType } from '../../platform/events/catalogue.js';
import { type OutboxSignal, pendingEvent, } from '../../platform/events/outbox.js';
import { withdrawalChangedPayload } from './withdrawal.events.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { newId } from '../../platform/ids.js';
import { type Currency, fromMinor, USD } from '../../platform/money.js';
import { type PayoutDetails, writePayoutDetails } from '../payouts/payout-details.js';
import { findWithdrawal, listWithdrawals } from './withdrawal.repository.js';
import { withdrawalInsert, withdrawalSettlement } from '../ledger/withdrawal-writes.js';
import { applyPlan } from '../ledger/executor.js';

/** Names this list's cursors, so that no other list takes them. */
const WITHDRAWAL_LIST = 'withdrawals';

/** What a withdrawal request needs from the payout settings (docs/api.md#payouts); the context wires them. */
export interface WithdrawalRules {
  currency(): Promise<Currency>;
  /** The affiliate's payout details when they are valid, else null (422 payout_details_missing). */
  payoutDetails(tx: Executor, refCode: string): Promise<PayoutDetails | null>;
  /** The payout minimum in minor units, null when unset. */
  minimumMinor(): Promise<number | null>;
  /** Whether the affiliate has an open fraud case that holds (docs/api.md#fraud-review: 422 on_hold). */
  onHold(tx: Executor, refCode: string): Promise<boolean>;
}

export interface WithdrawalTerms {
  readonly cur: Currency;
  /** The payout minimum in minor units, null when unset. */
  readonly minimum: number | null;
}

const NO_RULES: WithdrawalRules = { currency: async () => USD, payoutDetails: async () => ({ method: 'other', note: '' }), minimumMinor: async () => null, onHold: async () => false };

export type WithdrawalAction = 'mark-paid' | 'reject';

const ACTIONS: Record<WithdrawalAction, Transition<WithdrawalStatus> & { to: 'paid' | 'rejected'; event: Extract<EventType, 'withdrawal.paid' | 'withdrawal.rejected'> }> = {
  'mark-paid': { to: 'paid', from: ['requested'], event: 'withdrawal.paid' },
  reject: { to: 'rejected', from: ['requested'], event: 'withdrawal.rejected' },
};

export class WithdrawalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: OutboxSignal,
    private readonly rules: WithdrawalRules = NO_RULES,
  ) {}

  currency(): Promise<Currency> {
    return this.rules.currency();
  }

  /**
   * The settings a request applies, read BEFORE its transaction: on SQLite a read through the pool
   * inside a transaction would wait for that same transaction's connection.
   */
  async terms(): Promise<WithdrawalTerms> {
    return { cur: await this.rules.currency(), minimum: await this.rules.minimumMinor() };
  }

  /** After a caller's transaction that used requestIn/settleIn committed: deliver its events. */
  kickOutbox(): void {
    this.outbox.kick();
  }

  /**
   * docs/ledger.md#balance-and-withdrawals: accepted only while it fits the balance at that moment (the ledger locks the
   * balance first and takes the amount from it). The portal calls this too.
   */
  async request(refCode: string, amountCents: number): Promise<Withdrawal> {
    const terms = await this.terms();
    const row = await inTransaction(this.db, (tx) => this.requestIn(tx, refCode, amountCents, terms));
    this.outbox.kick();
    return row;
  }

  /**
   * The request inside the caller's transaction (the monthly schedule claims its month in the same one).
   * docs/api.md#payouts: the payout details are copied into the withdrawal; none valid: 422; below the minimum:
   * 422. The caller kicks the outbox after commit.
   */
  async requestIn(tx: Tx, refCode: string, amountCents: number, terms: WithdrawalTerms): Promise<Withdrawal> {
    const now = this.clock.now();
    const { cur, minimum } = terms;
    const payout = await this.rules.payoutDetails(tx, refCode);
    if (!payout) {
      if (!(await affiliateExists(tx, refCode))) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
      throw new PayoutRuleError('payout_details_missing', 'The affiliate has no valid payout details: set them before withdrawing');
    }
    if (await this.rules.onHold(tx, refCode)) {
      throw new PayoutRuleError('on_hold', 'The affiliate\'s commissions are under review: no withdrawal until the review is done');
    }
    if (minimum !== null && amountCents < minimum) {
      throw new PayoutRuleError('below_payout_minimum', `The smallest withdrawal is ${fromMinor(minimum, cur)} ${cur.code}`, { minimum: fromMinor(minimum, cur) });
    }
    const w: Withdrawal = {
      id: newId('wd', now),
      ref_code: refCode,
      amount_cents: amountCents,
      status: 'requested',
      created_at: now,
      updated_at: now,
      paid_at: null,
      rejected_at: null,
      payout: writePayoutDetails(payout),
      payout_method: payout.method,
      batch_id: null,
    };
    const rest = { inserts: [withdrawalInsert(tx, w)], events: [pendingEvent('withdrawal.requested', withdrawalChangedPayload(w, cur))] };
    const { accepted, available } = await withdrawalRequested(tx, refCode, amountCents, now, rest);
    if (!accepted) {
      if (!(await affiliateExists(tx, refCode))) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
      throw new InsufficientBalanceError(fromMinor(available, cur));
    }
    return w;
  }

  async get(id: string): Promise<Withdrawal> {
    const w = await findWithdrawal(this.db, id);
    if (!w) throw new NotFoundError('withdrawal_not_found', `No withdrawal ${id}`);
    return w;
  }

  async list(filter: { status?: WithdrawalStatus; refCode?: string; cursor?: string; limit: number }): Promise<Page<Withdrawal>> {
    const rows = await listWithdrawals(this.db, { ...filter, after: decodeCursor(filter.cursor, WITHDRAWAL_LIST) });
    return toPage(rows, filter.limit, (w) => ({ createdAt: w.created_at, id: w.id }), (w) => w, WITHDRAWAL_LIST);
  }

  /** requested -> paid | rejected (the ledger's one state-machine loop); rejecting returns the amount. */
  async act(id: string, action: WithdrawalAction): Promise<Withdrawal> {
    const rule = ACTIONS[action];
    const cur = await this.rules.currency();
    const { row, changed } = await runTransition<Withdrawal, WithdrawalStatus>(this.db, {
      transition: rule,
      label: `${action} a withdrawal`,
      load: (tx) => findWithdrawal(tx, id),
      notFound: () => new NotFoundError('withdrawal_not_found', `No withdrawal ${id}`),
      apply: (tx, current) => this.settleIn(tx, current, action, cur),
    });
    if (changed) this.outbox.kick();
    return row;
  }

  /**
   * The move itself, inside the caller's transaction: one plan of the conditional update (its first guard),
   * the ledger's booking and the event; the executor throws PlanMissed when another writer moved the row
   * first. A payout batch's mark-paid calls it for each of its withdrawals in one transaction.
   */
  async settleIn(tx: Tx, current: Withdrawal, action: WithdrawalAction, cur: Currency): Promise<Withdrawal> {
    const rule = ACTIONS[action];
    // docs/api.md#fraud-review: a withdrawal requested before its affiliate's case opened is not paid while it
    // is open (rejecting it stays possible); a batch holding one pays nothing
    if (action === 'mark-paid' && (await this.rules.onHold(tx, current.ref_code))) {
      throw new ConflictError('on_hold', `Withdrawal ${current.id}: the commissions of ${current.ref_code} are under review; release or reject the case first`, { withdrawal_id: current.id, ref_code: current.ref_code });
    }
    const { after, write } = withdrawalSettlement(tx, current, rule.to, this.clock.now());
    await applyPlan(tx, this.clock, { guards: [write], counters: withdrawalSettled(current, rule.to), events: [pendingEvent(rule.event, withdrawalChangedPayload(after, cur))] });
    return after;
  }
}
