import { type Clock, toIso, utcDay } from '../clock.js';
import { type Db, type Executor, inTransaction } from '../db/database.js';
import type { Commission, CommissionStatus, Order } from '../db/schema.js';
import { ConflictError, NotFoundError } from '../errors.js';
import type { EventType } from '../events/catalogue.js';
import { type OutboxSignal, recordEvent } from '../events/outbox.js';
import { commissionChangedPayload } from '../events/payloads.js';
import { decodeCursor, type Page, toPage } from '../db/keyset.js';
import { newId } from '../ids.js';
import { commissionCents, fromCents } from '../money.js';
import { type DailyCounter, bumpDailyStats } from '../reports/daily-stats.repository.js';
import { type AffiliateLedgerRow, creditBalance } from './affiliate-balance.repository.js';
import { findCommission, insertCommission, listCommissions, transitionCommission } from './commission.repository.js';

/** Names this list's cursors, so that no other list takes them. */
const COMMISSION_LIST = 'commissions';

/** A commission as the API and the events show it (CONTRACT §5). */
export interface CommissionView {
  id: string;
  order_id: string;
  ref_code: string;
  amount: number;
  rate: number;
  commission: number;
  status: CommissionStatus;
  created_at: string;
}

export function commissionView(c: Commission): CommissionView {
  return {
    id: c.id,
    order_id: c.order_id,
    ref_code: c.ref_code,
    amount: fromCents(c.amount_cents),
    rate: c.rate_bp / 100,
    commission: fromCents(c.commission_cents),
    status: c.status,
    created_at: toIso(c.created_at),
  };
}

export type CommissionAction = 'approve' | 'mark-paid' | 'void';

/** The state machine of CONTRACT §5: where each action leads and from which states it may start. */
const ACTIONS: Record<CommissionAction, { to: CommissionStatus; from: readonly CommissionStatus[]; event: Extract<EventType, 'commission.approved' | 'commission.paid' | 'commission.voided'> }> = {
  approve: { to: 'approved', from: ['pending'], event: 'commission.approved' },
  'mark-paid': { to: 'paid', from: ['pending', 'approved'], event: 'commission.paid' },
  void: { to: 'void', from: ['pending', 'approved'], event: 'commission.voided' },
};

/** The daily_stats bucket holding a commission's amount while it is in a state. */
const BUCKET: Record<CommissionStatus, DailyCounter> = {
  pending: 'commission_pending_cents',
  approved: 'commission_approved_cents',
  paid: 'commission_paid_cents',
  void: 'commission_void_cents',
};

export class CommissionService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly outbox: OutboxSignal,
  ) {}

  /**
   * Creates the pending commission of a freshly paid order, inside the payer's transaction (the
   * order's created->paid update makes this run once per order; the unique order_id is a second guard).
   */
  async createForPaidOrder(tx: Executor, order: Order, affiliate: AffiliateLedgerRow, globalRateBp: number, now: number): Promise<Commission> {
    const rateBp = affiliate.commission_rate_bp ?? globalRateBp;
    const row: Commission = {
      id: newId('com', now),
      order_id: order.order_id,
      ref_code: affiliate.ref_code,
      amount_cents: order.amount_cents,
      rate_bp: rateBp,
      commission_cents: commissionCents(order.amount_cents, rateBp),
      status: 'pending',
      created_at: now,
      updated_at: now,
      approved_at: null,
      paid_at: null,
      voided_at: null,
    };
    // The caller adds it to the affiliate's counters (with the order), last in its transaction.
    await insertCommission(tx, row);
    return row;
  }

  async get(id: string): Promise<Commission> {
    const c = await findCommission(this.db, id);
    if (!c) throw new NotFoundError('commission_not_found', `No commission ${id}`);
    return c;
  }

  async list(filter: { status?: CommissionStatus; refCode?: string; cursor?: string; limit: number }): Promise<Page<CommissionView>> {
    const rows = await listCommissions(this.db, { ...filter, after: decodeCursor(filter.cursor, COMMISSION_LIST) });
    return toPage(rows, filter.limit, (c) => ({ createdAt: c.created_at, id: c.id }), commissionView, COMMISSION_LIST);
  }

  /**
   * Applies an action. Already in the target state: answered unchanged. The update is conditional on
   * the state just read; if a concurrent writer changed it in between, read again and decide again.
   */
  async act(id: string, action: CommissionAction): Promise<Commission> {
    const rule = ACTIONS[action];
    for (;;) {
      const outcome = await inTransaction(this.db, async (tx) => {
        const current = await findCommission(tx, id);
        if (!current) throw new NotFoundError('commission_not_found', `No commission ${id}`);
        if (current.status === rule.to) return { commission: current, changed: false };
        if (!rule.from.includes(current.status)) {
          throw new ConflictError('invalid_transition', `Cannot ${action} a commission that is ${current.status}`, {
            status: current.status,
          });
        }
        const now = this.clock.now();
        const updated = await transitionCommission(tx, id, current.status, rule.to, now);
        if (!updated) return undefined;
        await recordEvent(tx, this.clock, rule.event, commissionChangedPayload(updated));
        // The affiliate's rows come last (held until commit, they are what concurrent changes for one
        // affiliate queue on), in the ledger's one lock order: affiliates row, then the counter rows.
        const cents = current.commission_cents;
        if (rule.to === 'paid') await creditBalance(tx, current.ref_code, cents, now);
        await bumpDailyStats(tx, current.ref_code, utcDay(current.created_at), {
          [BUCKET[current.status]]: -cents,
          [BUCKET[rule.to]]: cents,
        });
        return { commission: updated, changed: true };
      });
      if (outcome) {
        if (outcome.changed) this.outbox.kick();
        return outcome.commission;
      }
    }
  }
}
