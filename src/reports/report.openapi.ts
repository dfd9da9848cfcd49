import { z } from 'zod';
import { type ApiOperation, errors, money } from '../http/openapi.js';
import { reportQuerySchema } from './report.service.js';

const totals = {
  clicks: z.number().int(),
  mailboxes: z.number().int().meta({ description: 'Attributed mailboxes' }),
  conversion_rate: z.number().meta({ description: 'mailboxes / clicks, 4 decimals; 0 without clicks' }),
  orders: z.number().int().meta({ description: 'Paid attributed orders' }),
  order_rate: z.number().meta({ description: 'orders / mailboxes, 4 decimals' }),
  commission: z.strictObject({ pending: money, approved: money, paid: money, void: money, total: money.meta({ description: 'pending + approved + paid' }) }),
  withdrawals: z.strictObject({ requested: money, paid: money }),
  balance: money.meta({ description: 'Paid commission minus requested and paid withdrawals (not limited by from/to)' }),
};

export const summaryBody = z.strictObject({
  success: z.literal(true),
  summary: z.array(z.strictObject({ ref_code: z.string(), ...totals })),
  totals: z.strictObject(totals),
});

export const dailyBody = z.strictObject({
  success: z.literal(true),
  items: z.array(z.strictObject({ day: z.string().meta({ format: 'date' }), clicks: z.number().int(), mailboxes: z.number().int(), orders: z.number().int(), commission: money })),
});

/** CONTRACT §7, and the per-day series of the dashboard. */
export const reportOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/api/affiliate/summary',
    tag: 'reports',
    summary: 'Clicks, mailboxes, conversion and commission per affiliate',
    description: 'from/to are UTC days, both included. Served from counters kept with the writes, never a scan of clicks.',
    auth: 'apiKey',
    query: reportQuerySchema,
    responses: { 200: { description: 'One row per affiliate and the totals', body: summaryBody }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/api/reports/daily',
    tag: 'reports',
    summary: 'Per-day clicks, mailboxes, orders and commission (default: the last 30 days)',
    auth: 'apiKey',
    query: reportQuerySchema,
    responses: { 200: { description: 'One item per day, oldest first', body: dailyBody }, ...errors(400, 401) },
  },
];
