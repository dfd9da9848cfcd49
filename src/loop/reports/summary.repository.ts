import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { DAILY_COUNTERS, type DailyCounter } from '../ledger/daily-counters.js';

/** Summed daily counters; days are inclusive YYYY-MM-DD strings, which compare correctly as text. */
export type CounterSums = Readonly<Record<DailyCounter, number>>;

export interface AffiliateSums extends CounterSums {
  readonly ref_code: string;
  readonly balance_cents: number;
}

export interface DayRange {
  readonly from?: string;
  readonly to?: string;
}

/** A page of affiliates, keyset on ref_code (the summary's order). */
export interface AffiliatePage {
  /** The last ref_code of the previous page; absent for the first page. */
  readonly after?: string;
  readonly limit: number;
}

/** The ref_codes of one page of affiliates, as a subquery. */
function pageCodes(db: Executor, refCode: string | undefined, page: AffiliatePage) {
  let codes = db.selectFrom('affiliates').select('ref_code').orderBy('ref_code').limit(page.limit);
  if (refCode !== undefined) codes = codes.where('ref_code', '=', refCode);
  if (page.after !== undefined) codes = codes.where('ref_code', '>', page.after);
  return codes;
}

/**
 * One row per affiliate (also those without activity), ordered by ref_code, from the rollups only: the
 * cost grows with affiliates (all time) or affiliates × days in the range, never with the number of
 * clicks or mailboxes. With a page, only that page's affiliates are read and summed (through the
 * rollups' primary keys, which lead with ref_code): the CSV export reads the summary this way, a page
 * at a time, with the same figures as the whole.
 */
export async function sumPerAffiliate(db: Executor, range: DayRange, refCode?: string, page?: AffiliatePage): Promise<AffiliateSums[]> {
  const codes = page ? pageCodes(db, refCode, page) : undefined;
  if (!range.from && !range.to) return allTimePerAffiliate(db, refCode, codes);
  // Aggregate the rollup on its own (one pass in primary-key order), then attach it to the affiliates.
  let sums = db
    .selectFrom('daily_stats')
    .select('ref_code')
    .select(DAILY_COUNTERS.map((c) => sql<number>`sum(${sql.ref(c)})`.as(c)))
    .groupBy('ref_code');
  if (range.from) sums = sums.where('day', '>=', range.from);
  if (range.to) sums = sums.where('day', '<=', range.to);
  if (refCode !== undefined) sums = sums.where('ref_code', '=', refCode);
  if (codes) sums = sums.where('ref_code', 'in', codes);
  // the balance is never limited by the range: the all-time rows' shares (see balance.repository)
  let balances = db.selectFrom('affiliate_stats').select('ref_code').select(sql<number>`sum(balance_cents)`.as('balance_cents')).groupBy('ref_code');
  if (refCode !== undefined) balances = balances.where('ref_code', '=', refCode);
  if (codes) balances = balances.where('ref_code', 'in', codes);
  let q = db
    .selectFrom('affiliates as a')
    .leftJoin(sums.as('s'), 's.ref_code', 'a.ref_code')
    .leftJoin(balances.as('b'), 'b.ref_code', 'a.ref_code')
    .select('a.ref_code')
    .select(sql<number>`coalesce(b.balance_cents, 0)`.as('balance_cents'))
    .select(DAILY_COUNTERS.map((c) => sql<number>`coalesce(${sql.ref(`s.${c}`)}, 0)`.as(c)))
    .orderBy('a.ref_code');
  if (refCode !== undefined) q = q.where('a.ref_code', '=', refCode);
  if (codes) q = q.where('a.ref_code', 'in', codes);
  return toSums(await q.execute());
}

/** Without a date range: the all-time counters, one row per affiliate whatever the number of days. */
async function allTimePerAffiliate(db: Executor, refCode: string | undefined, codes: ReturnType<typeof pageCodes> | undefined): Promise<AffiliateSums[]> {
  // the stripes of each affiliate summed (migration 0021-counter-stripes), the balance's shares with them (0043)
  let sums = db
    .selectFrom('affiliate_stats')
    .select('ref_code')
    .select(DAILY_COUNTERS.map((c) => sql<number>`sum(${sql.ref(c)})`.as(c)))
    .select(sql<number>`sum(balance_cents)`.as('balance_cents'))
    .groupBy('ref_code');
  if (refCode !== undefined) sums = sums.where('ref_code', '=', refCode);
  if (codes) sums = sums.where('ref_code', 'in', codes);
  let q = db
    .selectFrom('affiliates as a')
    .leftJoin(sums.as('s'), 's.ref_code', 'a.ref_code')
    .select('a.ref_code')
    .select(sql<number>`coalesce(s.balance_cents, 0)`.as('balance_cents'))
    .select(DAILY_COUNTERS.map((c) => sql<number>`coalesce(${sql.ref(`s.${c}`)}, 0)`.as(c)))
    .orderBy('a.ref_code');
  if (refCode !== undefined) q = q.where('a.ref_code', '=', refCode);
  if (codes) q = q.where('a.ref_code', 'in', codes);
  return toSums(await q.execute());
}

function toSums(rows: Record<string, unknown>[]): AffiliateSums[] {
  return rows.map((r) => {
    const out: Record<string, number | string> = { ref_code: r.ref_code as string, balance_cents: Number(r.balance_cents) };
    for (const c of DAILY_COUNTERS) out[c] = Number(r[c]);
    return out as unknown as AffiliateSums;
  });
}

/** Per day over all affiliates (or one), for the dashboard chart; days without a row are absent. */
export async function sumPerDay(db: Executor, range: Required<DayRange>, refCode?: string): Promise<(CounterSums & { day: string })[]> {
  let q = db
    .selectFrom('daily_stats')
    .select('day')
    .select(DAILY_COUNTERS.map((c) => sql<number>`coalesce(sum(${sql.ref(c)}), 0)`.as(c)))
    .where('day', '>=', range.from)
    .where('day', '<=', range.to)
    .groupBy('day')
    .orderBy('day');
  if (refCode !== undefined) q = q.where('ref_code', '=', refCode);
  const rows = await q.execute();
  return rows.map((r) => {
    const out: Record<string, number | string> = { day: r.day };
    for (const c of DAILY_COUNTERS) out[c] = Number((r as Record<string, unknown>)[c]);
    return out as unknown as CounterSums & { day: string };
  });
}
