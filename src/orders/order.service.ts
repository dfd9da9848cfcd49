import { type Clock, toIso, utcDay } from '../clock.js';
import { findAffiliateLedger } from '../commissions/affiliate-balance.repository.js';
import { findCommissionByOrder, findCommissionsByOrders } from '../commissions/commission.repository.js';
import type { CommissionService } from '../commissions/commission.service.js';
import { type Db, inTransaction } from '../db/database.js';
import type { Commission, Order } from '../db/schema.js';
import { ConflictError, NotFoundError } from '../errors.js';
import { type OutboxSignal, recordEvent } from '../events/outbox.js';
import { orderPaidPayload } from '../events/payloads.js';
import { decodeCursor, type Page, toPage } from '../db/keyset.js';
import { fromCents, toRateBp } from '../money.js';
import { bumpDailyStats } from '../reports/daily-stats.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import { findOrder, insertOrder, listOrders, markOrderPaid } from './order.repository.js';

/** Names this list's cursors, so that no other list takes them. */
const ORDER_LIST = 'orders';

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

/** A row of the order list: the order, the affiliate it was attributed to and its commission. */
export interface OrderListItem extends OrderView {
  ref_code: string | null;
  commission: { id: string; commission: number; status: Commission['status'] } | null;
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

  /** A page of orders, each with its affiliate and commission (one more query for the whole page). */
  async list(filter: { status?: 'created' | 'paid'; email?: string; q?: string; cursor?: string; limit: number }): Promise<Page<OrderListItem>> {
    const rows = await listOrders(this.db, { ...filter, after: decodeCursor(filter.cursor, ORDER_LIST) });
    const paid = rows.slice(0, filter.limit).filter((o) => o.status === 'paid' && o.ref_code !== null);
    const commissions = new Map((await findCommissionsByOrders(this.db, paid.map((o) => o.order_id))).map((c) => [c.order_id, c]));
    return toPage(rows, filter.limit, (o) => ({ createdAt: o.created_at, id: o.order_id }), (o) => {
      const c = commissions.get(o.order_id);
      return {
        ...orderView(o),
        ref_code: o.ref_code,
        commission: c ? { id: c.id, commission: fromCents(c.commission_cents), status: c.status } : null,
      };
    }, ORDER_LIST);
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
      await recordEvent(tx, this.clock, 'order.paid', orderPaidPayload(order, commission));
      // The affiliate's counter rows are what concurrent payments to one affiliate queue on: touched
      // last, once, so their locks are held for as short a time as possible.
      if (commission) {
        await bumpDailyStats(tx, commission.ref_code, utcDay(now), {
          orders: 1,
          revenue_cents: order.amount_cents,
          commission_pending_cents: commission.commission_cents,
        });
      }
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
