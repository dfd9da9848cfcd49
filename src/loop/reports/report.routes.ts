import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { errors, money } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { reportQuerySchema } from './report.service.js';

const totals = {
  clicks: z.number().int(),
  mailboxes: z.number().int().meta({ description: 'Attributed mailboxes' }),
  conversion_rate: z.number().meta({ description: 'mailboxes / clicks, 4 decimals; 0 without clicks' }),
  orders: z.number().int().meta({ description: 'Paid attributed orders' }),
  order_rate: z.number().meta({ description: 'orders / mailboxes, 4 decimals' }),
  revenue: money.meta({ description: 'Amount of the paid attributed orders counted in `orders` (by the day they were paid)' }),
  commission: z.strictObject({ pending: money, approved: money, paid: money, void: money, total: money.meta({ description: 'pending + approved + paid' }) }),
  withdrawals: z.strictObject({ requested: money, paid: money }),
  balance: money.meta({ description: 'Paid commission minus requested and paid withdrawals (not limited by from/to)' }),
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency (docs/api.md#payouts)' }),
};

/** One affiliate's row of the summary (docs/api.md#reports). */
export const summaryRowBody = z.strictObject({ ref_code: z.string(), ...totals });

export const summaryBody = z.strictObject({
  success: z.literal(true),
  summary: z.array(summaryRowBody),
  totals: z.strictObject(totals),
});

export const dailyBody = z.strictObject({
  success: z.literal(true),
  items: z.array(
    z.strictObject({
      day: z.string().meta({ format: 'date' }),
      clicks: z.number().int(),
      mailboxes: z.number().int(),
      orders: z.number().int().meta({ description: 'Paid attributed orders' }),
      revenue: money.meta({ description: 'Their amount' }),
      commission: money.meta({ description: 'Commission booked that day: pending + approved + paid' }),
    }),
  ),
});

const tags = ['reports'];

/** The summary (docs/api.md#reports), and the per-day series the admin dashboard charts. */
export function reportApiRoutes(app: RouteApp, ctx: AppContext): void {
  const { reports } = ctx.services;

  const summary = {
    tags,
    summary: 'Clicks, mailboxes, conversion and commission per affiliate',
    description:
      'from/to are UTC days, both included. Served from counters kept with the writes, never a scan of clicks. Each row also has `revenue`, the amount of its paid attributed orders. For a change against the previous period, ask again for the days just before `from` (the admin dashboard does).',
    querystring: reportQuerySchema,
    responses: { 200: { description: 'One row per affiliate and the totals', body: summaryBody }, ...errors(400) },
  };
  app.get('/affiliate/summary', { schema: summary }, async (request) => ({ success: true, ...(await reports.summary(request.query)) }));

  const daily = {
    tags,
    summary: 'Per-day clicks, mailboxes, orders and commission (default: the last 30 days)',
    querystring: reportQuerySchema,
    responses: { 200: { description: 'One item per day, oldest first', body: dailyBody }, ...errors(400) },
  };
  app.get('/reports/daily', { schema: daily }, async (request) => ({ success: true, items: await reports.daily(request.query) }));
}
