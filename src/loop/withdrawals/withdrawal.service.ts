import type { Clock } from '../../platform/clock.js';
import { affiliateExists } from '../ledger/balance.repository.js';
import { applyPlan } from '../ledger/executor.js';
import { withdrawalRequested, withdrawalSettled } from '../ledger/ledger.js';
import { runTransition, type Transition } from '../ledger/state-machine.js';
import { type Db, inTransaction } from '../../platform/db/database.js';
import type { Withdrawal, WithdrawalStatus } from '../../platform/db/schema.js';
import { InsufficientBalanceError, NotFoundError } from '../../platform/errors.js';
import type { EventType } from '../../platform/events/catalogue.js';
import { type OutboxSignal, pendingEvent } from '../../platform/events/outbox.js';
import { withdrawalChangedPayload } from '../../platform/events/payloads.js';
import { decodeCursor, type Page, toPage } from '../../platform/db/keyset.js';
import { newId } from '../../platform/ids.js';
import { fromCents } from '../../platform/money.js';
import { findWithdrawal, listWithdrawals, settleWithdrawal, withdrawalInsert } from './withdrawal.repository.js';

/** Names this list's cursors, so that no other list takes them. */
const WITHDRAWAL_LIST = 'withdrawals';

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
  ) {}

  /**
   * CONTRACT §6, §12: accepted only while it fits the balance at that moment (the ledger locks the
   * balance first and takes the amount from it). The portal calls this too.
   */
  async request(refCode: string, amountCents: number): Promise<Withdrawal> {
    const row = await inTransaction(this.db, async (tx) => {
      const now = this.clock.now();
      const w: Withdrawal = {
        id: newId('wd', now),
        ref_code: refCode,
        amount_cents: amountCents,
        status: 'requested',
        created_at: now,
        updated_at: now,
        paid_at: null,
        rejected_at: null,
      };
      const rest = { inserts: [withdrawalInsert(tx, w)], events: [pendingEvent('withdrawal.requested', withdrawalChangedPayload(w))] };
      const { accepted, available } = await withdrawalRequested(tx, refCode, amountCents, now, rest);
      if (!accepted) {
        if (!(await affiliateExists(tx, refCode))) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
        throw new InsufficientBalanceError(fromCents(available));
      }
      return w;
    });
    this.outbox.kick();
    return row;
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
    const { row, changed } = await runTransition<Withdrawal, WithdrawalStatus>(this.db, {
      transition: rule,
      label: `${action} a withdrawal`,
      load: (tx) => findWithdrawal(tx, id),
      notFound: () => new NotFoundError('withdrawal_not_found', `No withdrawal ${id}`),
      apply: async (tx, current) => {
        const now = this.clock.now();
        if (!(await settleWithdrawal(tx, id, rule.to, now))) return undefined;
        const updated = (await findWithdrawal(tx, id)) as Withdrawal;
        await applyPlan(tx, this.clock, { counters: withdrawalSettled(current, rule.to), events: [pendingEvent(rule.event, withdrawalChangedPayload(updated))] });
        return updated;
      },
    });
    if (changed) this.outbox.kick();
    return row;
  }
}
