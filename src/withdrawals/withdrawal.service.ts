import { type Clock, toIso, utcDay } from '../clock.js';
import { creditBalance, debitBalanceIfCovered, findAffiliateLedger } from '../commissions/affiliate-balance.repository.js';
import { type Db, inTransaction } from '../db/database.js';
import type { Withdrawal, WithdrawalStatus } from '../db/schema.js';
import { ConflictError, InsufficientBalanceError, NotFoundError } from '../errors.js';
import type { EventType } from '../events/catalogue.js';
import { type OutboxSignal, recordEvent } from '../events/outbox.js';
import { withdrawalChangedPayload } from '../events/payloads.js';
import { decodeCursor, type Page, toPage } from '../db/keyset.js';
import { newId } from '../ids.js';
import { fromCents } from '../money.js';
import { bumpDailyStats } from '../reports/daily-stats.repository.js';
import { findWithdrawal, insertWithdrawal, listWithdrawals, settleWithdrawal } from './withdrawal.repository.js';

/** Names this list's cursors, so that no other list takes them. */
const WITHDRAWAL_LIST = 'withdrawals';

export interface WithdrawalView {
  id: string;
  ref_code: string;
  amount: number;
  status: WithdrawalStatus;
  created_at: string;
}

export function withdrawalView(w: Withdrawal): WithdrawalView {
  return { id: w.id, ref_code: w.ref_code, amount: fromCents(w.amount_cents), status: w.status, created_at: toIso(w.created_at) };
}

export type WithdrawalAction = 'mark-paid' | 'reject';

const ACTIONS: Record<WithdrawalAction, { to: 'paid' | 'rejected'; event: Extract<EventType, 'withdrawal.paid' | 'withdrawal.rejected'> }> = {
  'mark-paid': { to: 'paid', event: 'withdrawal.paid' },
  reject: { to: 'rejected', event: 'withdrawal.rejected' },
};

export class WithdrawalService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: OutboxSignal,
  ) {}

  /**
   * CONTRACT §6. affiliates.balance_cents is the available balance; it is debited by one conditional
   * UPDATE (balance >= amount), never read-then-write, so concurrent requests from any number of
   * processes cannot overdraw it. The UPDATE comes first so that it also takes the write lock.
   */
  async request(refCode: string, amountCents: number): Promise<Withdrawal> {
    const row = await inTransaction(this.db, async (tx) => {
      const now = this.clock.now();
      if (!(await debitBalanceIfCovered(tx, refCode, amountCents, now))) {
        const affiliate = await findAffiliateLedger(tx, refCode);
        if (!affiliate) throw new NotFoundError('affiliate_not_found', `No affiliate ${refCode}`);
        throw new InsufficientBalanceError(fromCents(affiliate.balance_cents));
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
      };
      await insertWithdrawal(tx, w);
      await bumpDailyStats(tx, refCode, utcDay(now), { withdrawals_requested_cents: amountCents });
      await recordEvent(tx, this.clock, 'withdrawal.requested', withdrawalChangedPayload(w));
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

  async list(filter: { status?: WithdrawalStatus; refCode?: string; cursor?: string; limit: number }): Promise<Page<WithdrawalView>> {
    const rows = await listWithdrawals(this.db, { ...filter, after: decodeCursor(filter.cursor, WITHDRAWAL_LIST) });
    return toPage(rows, filter.limit, (w) => ({ createdAt: w.created_at, id: w.id }), withdrawalView, WITHDRAWAL_LIST);
  }

  /** requested -> paid | rejected; the same state again answers unchanged; rejecting returns the amount. */
  async act(id: string, action: WithdrawalAction): Promise<Withdrawal> {
    const rule = ACTIONS[action];
    for (;;) {
      const outcome = await inTransaction(this.db, async (tx) => {
        const current = await findWithdrawal(tx, id);
        if (!current) throw new NotFoundError('withdrawal_not_found', `No withdrawal ${id}`);
        if (current.status === rule.to) return { withdrawal: current, changed: false };
        if (current.status !== 'requested') {
          throw new ConflictError('invalid_transition', `Cannot ${action} a withdrawal that is ${current.status}`, { status: current.status });
        }
        const now = this.clock.now();
        if (!(await settleWithdrawal(tx, id, rule.to, now))) return undefined;
        const day = utcDay(current.created_at);
        if (rule.to === 'paid') {
          await bumpDailyStats(tx, current.ref_code, day, {
            withdrawals_requested_cents: -current.amount_cents,
            withdrawals_paid_cents: current.amount_cents,
          });
        } else {
          // affiliates row before daily_stats row, as everywhere in the ledger
          await creditBalance(tx, current.ref_code, current.amount_cents, now);
          await bumpDailyStats(tx, current.ref_code, day, { withdrawals_requested_cents: -current.amount_cents });
        }
        const updated = (await findWithdrawal(tx, id)) as Withdrawal;
        await recordEvent(tx, this.clock, rule.event, withdrawalChangedPayload(updated));
        return { withdrawal: updated, changed: true };
      });
      if (outcome) {
        if (outcome.changed) this.outbox.kick();
        return outcome.withdrawal;
      }
    }
  }
}
