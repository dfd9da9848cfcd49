import { z } from 'zod';
import { refCodeSchema } from '../affiliates/affiliate.schemas.js';
import { type Clock, utcDay } from '../../platform/clock.js';
import type { Db } from '../../platform/db/database.js';
import { ValidationError } from '../../platform/errors.js';
import { type Currency, fromMinor, USD } from '../../platform/money.js';
import { type AffiliateSums, type CounterSums, sumPerAffiliate, sumPerDay } from './summary.repository.js';

const DAY_MS = 86_400_000;
const MAX_DAILY_RANGE_DAYS = 3660;

/** A real calendar date as YYYY-MM-DD (2026-02-30 is refused). */
export const isoDay = z
  .string()
  .max(10, { message: 'must be a date YYYY-MM-DD', abort: true })
  .regex(/^\d{4}-\d{2}-\d{2}$/, { message: 'must be a date YYYY-MM-DD', abort: true })
  .refine((v) => {
    const ms = Date.parse(`${v}T00:00:00Z`);
    return Number.isFinite(ms) && utcDay(ms) === v;
  }, 'must be a valid date YYYY-MM-DD');

export const reportQuerySchema = z
  .object({
    ref_code: refCodeSchema.optional(),
    from: isoDay.optional(),
    to: isoDay.optional(),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'must not be before from', path: ['to'] });

export type ReportQuery = z.infer<typeof reportQuerySchema>;

/** from/to alone (the affiliate portal, where the affiliate is the session's). */
export const dayRangeSchema = z
  .object({ from: isoDay.optional(), to: isoDay.optional() })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'must not be before from', path: ['to'] });

export interface SummaryTotals {
  readonly clicks: number;
  readonly mailboxes: number;
  readonly conversion_rate: number;
  readonly orders: number;
  readonly order_rate: number;
  /** Amount of the paid attributed orders (a field beside the summary's, docs/api.md#reports). */
  readonly revenue: number;
  readonly commission: { pending: number; approved: number; paid: number; void: number; total: number };
  readonly withdrawals: { requested: number; paid: number };
  readonly balance: number;
  /** docs/api.md#payouts: the program currency of every amount above. */
  readonly currency: string;
}

export interface SummaryRow extends SummaryTotals {
  readonly ref_code: string;
}

export interface DailyItem {
  readonly day: string;
  readonly clicks: number;
  readonly mailboxes: number;
  readonly orders: number;
  readonly revenue: number;
  readonly commission: number;
}

/** Ratio rounded to 4 decimals; 0 when there is nothing to divide by. */
function rate(numerator: number, denominator: number): number {
  return denominator > 0 ? Math.round((numerator / denominator) * 10_000) / 10_000 : 0;
}

function shape(s: CounterSums, balanceCents: number, cur: Currency): SummaryTotals {
  const fromCents = (minor: number) => fromMinor(minor, cur);
  const committed = s.commission_pending_cents + s.commission_approved_cents + s.commission_paid_cents;
  return {
    clicks: s.clicks,
    mailboxes: s.mailboxes,
    conversion_rate: rate(s.mailboxes, s.clicks),
    orders: s.orders,
    order_rate: rate(s.orders, s.mailboxes),
    revenue: fromCents(s.revenue_cents),
    commission: {
      pending: fromCents(s.commission_pending_cents),
      approved: fromCents(s.commission_approved_cents),
      paid: fromCents(s.commission_paid_cents),
      void: fromCents(s.commission_void_cents),
      total: fromCents(committed),
    },
    withdrawals: { requested: fromCents(s.withdrawals_requested_cents), paid: fromCents(s.withdrawals_paid_cents) },
    balance: fromCents(balanceCents),
    currency: cur.code,
  };
}

function summaryRow(r: AffiliateSums, cur: Currency): SummaryRow {
  return { ref_code: r.ref_code, ...shape(r, r.balance_cents, cur) };
}

/** The summary (docs/api.md#reports) and the daily chart, read only from the daily rollup and affiliate balances. */
export class ReportService {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly currency: () => Promise<Currency> = async () => USD,
  ) {}

  async summary(query: ReportQuery): Promise<{ summary: SummaryRow[]; totals: SummaryTotals }> {
    const rows = await sumPerAffiliate(this.db, { from: query.from, to: query.to }, query.ref_code);
    const sum = {
      clicks: 0,
      mailboxes: 0,
      orders: 0,
      commission_pending_cents: 0,
      commission_approved_cents: 0,
      commission_paid_cents: 0,
      commission_void_cents: 0,
      withdrawals_requested_cents: 0,
      withdrawals_paid_cents: 0,
      revenue_cents: 0,
    };
    let balance = 0;
    for (const r of rows) {
      for (const k of Object.keys(sum) as (keyof typeof sum)[]) sum[k] += r[k];
      balance += r.balance_cents;
    }
    const cur = await this.currency();
    return {
      summary: rows.map((r) => summaryRow(r, cur)),
      totals: shape(sum, balance, cur),
    };
  }

  /**
   * One page of the summary's rows, `limit` affiliates after the ref_code `cursor` (keyset, the summary's
   * order), read by the same query with the same figures; `next_cursor` is null on the last page. The
   * CSV export reads the summary this way, so its memory does not grow with the number of affiliates.
   */
  async summaryPage(query: ReportQuery, cursor: string | undefined, limit: number): Promise<{ items: SummaryRow[]; next_cursor: string | null }> {
    // one more than the page: whether a next page exists, without reading an empty one
    const rows = await sumPerAffiliate(this.db, { from: query.from, to: query.to }, query.ref_code, { after: cursor, limit: limit + 1 });
    const cur = await this.currency();
    const items = rows.slice(0, limit).map((r) => summaryRow(r, cur));
    return { items, next_cursor: rows.length > limit ? (items[items.length - 1]?.ref_code ?? null) : null };
  }

  /** One item per day of the range (zero-filled), default the last 30 days up to today (UTC). */
  async daily(query: ReportQuery): Promise<DailyItem[]> {
    const to = query.to ?? (query.from ? utcDay(Math.max(this.clock.now(), Date.parse(`${query.from}T00:00:00Z`))) : utcDay(this.clock.now()));
    const toMs = Date.parse(`${to}T00:00:00Z`);
    const from = query.from ?? utcDay(toMs - 29 * DAY_MS);
    const fromMs = Date.parse(`${from}T00:00:00Z`);
    if (fromMs > toMs) throw new ValidationError([{ field: 'from', message: 'must not be after to' }]);
    if ((toMs - fromMs) / DAY_MS >= MAX_DAILY_RANGE_DAYS) {
      throw new ValidationError([{ field: 'from', message: `range must be at most ${MAX_DAILY_RANGE_DAYS} days` }]);
    }
    const rows = new Map((await sumPerDay(this.db, { from, to }, query.ref_code)).map((r) => [r.day, r]));
    const cur = await this.currency();
    const fromCents = (minor: number) => fromMinor(minor, cur);
    const items: DailyItem[] = [];
    for (let ms = fromMs; ms <= toMs; ms += DAY_MS) {
      const day = utcDay(ms);
      const r = rows.get(day);
      items.push({
        day,
        clicks: r?.clicks ?? 0,
        mailboxes: r?.mailboxes ?? 0,
        orders: r?.orders ?? 0,
        revenue: fromCents(r?.revenue_cents ?? 0),
        commission: fromCents(r ? r.commission_pending_cents + r.commission_approved_cents + r.commission_paid_cents : 0),
      });
    }
    return items;
  }
}
