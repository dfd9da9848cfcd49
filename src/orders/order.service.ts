import { type Clock, toIso, utcDay } from '../clock.js';
import { findAffiliateLedger } from '../commissions/affiliate-balance.repository.js';
import { findCommissionByOrder } from '../commissions/commission.repository.js';
import { type CommissionService, commissionView } from '../commissions/commission.service.js';
import { type Db, inTransaction } from '../db/database.js';
import type { Commission, Order } from '../db/schema.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { type OutboxSignal, recordEvent } from '../events/outbox.js';
import { type Page, type PageCursor, toPage } from '../http/pagination.js';
import { fromCents, toRateBp } from '../money.js';
import { bumpDailyStats } from '../reports/daily-stats.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import { findOrder, insertOrder, listOrders, markOrderPaid } from './order.repository.js';

export interface OrderView {
  order_id: string;
  email: string;
  amount: number;
  product: string;
  status: 'created' | 'paid';
  created_at: string;
  paid_at?: string;
}

export function orderView(o: Order): OrderView {
  const view: OrderView = {
    order_id: o.order_id,
    email: o.email,
    amount: fromCents(o.amount_cents),
    product: o.product,
    status: o.status,
    created_at: toIso(o.created_at),
  };
  if (o.paid_at !== null) view.paid_at = toIso(o.paid_at);
  return view;
}

export interface NewOrder {
  readonly orderId: string;
  /** Already trimmed and lower-cased. */
  readonly email: string;
  readonly amountCents: number;
  readonly product: string;
}

export interface PaidOrder {
  readonly order: Order;
  readonly commission: Commission | undefined;
}

export class OrderService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly commissions: CommissionService,
    private readonly outbox: OutboxSignal,
  ) {}

  /** Creates the order; the same order_id again is a replay when every field matches, else a conflict. */
  async create(input: NewOrder): Promise<{ order: Order; created: boolean }> {
    const now = this.clock.now();
    const row: Order = {
      order_id: input.orderId,
      email: input.email,
      amount_cents: input.amountCents,
      product: input.product,
      status: 'created',
      ref_code: null,
      created_at: now,
      paid_at: null,
    };
    if (await insertOrder(this.db, row)) return { order: row, created: true };
    const existing = await findOrder(this.db, input.orderId);
    if (!existing) throw new Error(`order ${input.orderId} vanished after a conflicting insert`);
    if (existing.email !== input.email || existing.amount_cents !== input.amountCents || existing.product !== input.product) {
      throw new ConflictError('order_exists', `Order ${input.orderId} exists with different fields`);
    }
    return { order: existing, created: false };
  }

  async get(orderId: string): Promise<Order> {
    const order = await findOrder(this.db, orderId);
    if (!order) throw new NotFoundError('order_not_found', `No order ${orderId}`);
    return order;
  }

  /** One order with its commission (if any), for the admin UI. */
  async getWithCommission(orderId: string): Promise<PaidOrder> {
    const order = await this.get(orderId);
    return { order, commission: order.status === 'paid' ? await findCommissionByOrder(this.db, orderId) : undefined };
  }

  async list(filter: { status?: 'created' | 'paid'; email?: string; q?: string; after?: PageCursor; limit: number }): Promise<Page<OrderView>> {
    const rows = await listOrders(this.db, filter);
    return toPage(rows, filter.limit, (o) => ({ createdAt: o.created_at, id: o.order_id }), orderView);
  }

  /**
   * created -> paid, once. The conditional update comes first in the transaction (it also takes the
   * write lock on SQLite and the row lock on PostgreSQL), so concurrent payers queue behind the winner
   * and then find nothing to update; they answer with what the winner committed.
   */
  async pay(orderId: string): Promise<PaidOrder> {
    const globalRateBp = toRateBp((await this.settings.get()).commission_rate) ?? 1000;
    const won = await inTransaction(this.db, async (tx) => {
      const now = this.clock.now();
      const order = await markOrderPaid(tx, orderId, now);
      if (!order) return undefined;
      // Attributed to the affiliate of the mailbox carrying the order's email, whatever the affiliate's
      // status now (it was active when the mailbox was attributed).
      const affiliate = order.ref_code ? await findAffiliateLedger(tx, order.ref_code) : undefined;
      let commission: Commission | undefined;
      if (affiliate) commission = await this.commissions.createForPaidOrder(tx, order, affiliate, globalRateBp, now);
      await recordEvent(tx, this.clock, 'order.paid', orderPaidData(order, commission));
      // The affiliate's counter rows are what concurrent payments to one affiliate queue on: touched
      // last, once, so their locks are held for as short a time as possible.
      if (commission) await bumpDailyStats(tx, commission.ref_code, utcDay(now), { orders: 1, commission_pending_cents: commission.commission_cents });
      return { order, commission };
    });
    if (won) {
      this.outbox.kick();
      return won;
    }
    const order = await findOrder(this.db, orderId);
    if (!order) throw new NotFoundError('order_not_found', `No order ${orderId}`);
    return { order, commission: await findCommissionByOrder(this.db, orderId) };
  }
}

/** `order.paid` data as in the seed and CONTRACT §9; the order appears with `id`, not `order_id`. */
function orderPaidData(order: Order, commission: Commission | undefined) {
  return {
    order: { id: order.order_id, email: order.email, amount: fromCents(order.amount_cents), product: order.product, status: 'paid' as const },
    commission: commission ? commissionView(commission) : null,
    ref_code: commission?.ref_code ?? null,
  };
}
