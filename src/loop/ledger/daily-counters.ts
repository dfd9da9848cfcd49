/**
 * Counters of the daily rollup (the summary, docs/api.md#reports). Which day a change counts on:
 * clicks by click time, mailboxes by creation, orders and revenue_cents (their amount) by paid_at, commission_* by the commission's
 * creation day (a status change moves the amount between buckets of that same day), withdrawals_* by the
 * withdrawal's creation day (requested -> paid moves it; a rejection removes it from requested).
 */
export const DAILY_COUNTERS = [
  'clicks',
  'mailboxes',
  'orders',
  'commission_pending_cents',
  'commission_approved_cents',
  'commission_paid_cents',
  'commission_void_cents',
  'withdrawals_requested_cents',
  'withdrawals_paid_cents',
  'revenue_cents',
] as const;

export type DailyCounter = (typeof DAILY_COUNTERS)[number];
