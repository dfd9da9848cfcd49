import { CompiledQuery, sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
import type { ChainedWrite } from './chain.js';
import type { DailyCounter } from './daily-counters.js';

/** How many rows one affiliate's counters are spread over (migration 0021-counter-stripes). */
export const COUNTER_STRIPES = 8;

/** A stripe for one transaction's money bumps: concurrent writers of one affiliate mostly touch different rows. */
export function pickStripe(): number {
  return Math.floor(Math.random() * COUNTER_STRIPES);
}

/** Deltas for one day's counters. */
export interface CounterBump {
  readonly day: string;
  readonly deltas: Partial<Record<DailyCounter, number>>;
}

/**
 * The counter bumps as writes of a chain (see writeChain), to come last in it: the affiliate's all-time
 * row of `stripe` first, then its day rows in ascending order (one statement), so every transaction
 * takes these row locks in the same order (per ref_code and stripe: all-time, then its days); a
 * transaction uses one stripe for all its bumps. Readers sum the stripes. None when nothing moves.
 * `balanceCents`: a change of the affiliate's balance, which lives in the all-time rows too (migration
 * 0043-balance-stripes; see balance.repository for the withdrawal that takes from it).
 */
export function counterWrites(db: Executor, refCode: string, bumps: readonly CounterBump[], stripe: number, balanceCents = 0): ChainedWrite[] {
  const byDay = new Map<string, Partial<Record<DailyCounter, number>>>();
  for (const { day, deltas } of bumps) {
    const sum = byDay.get(day) ?? {};
    for (const [k, v] of Object.entries(deltas) as [DailyCounter, number | undefined][]) if (v) sum[k] = (sum[k] ?? 0) + v;
    byDay.set(day, sum);
  }
  const days = [...byDay].filter(([, d]) => Object.values(d).some((v) => v !== 0)).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const cols = [...new Set(days.flatMap(([, d]) => (Object.keys(d) as DailyCounter[]).filter((k) => d[k] !== 0)))];
  if (cols.length === 0 && balanceCents === 0) return [];
  const total = (k: DailyCounter) => days.reduce((n, [, d]) => n + (d[k] ?? 0), 0);
  // the all-time row's columns: the counters', and the balance when it moves
  const allCols: AllTimeColumn[] = balanceCents === 0 ? cols : [...cols, 'balance_cents'];
  const allTotal = (k: AllTimeColumn) => (k === 'balance_cents' ? balanceCents : total(k));
  if (dialectOf(db) === 'postgres') {
    // INSERT … SELECT, so that each can wait for the chain's previous write (`after`); written by hand,
    // not through Kysely: these two are in every money plan, and their text is a few joins of the plan's columns
    const allTime: ChainedWrite = (after) => {
      const text = allTimeSql(allCols, after?.text ?? '');
      return { compile: () => CompiledQuery.raw(text, [refCode, stripe, ...allCols.map(allTotal)]) };
    };
    const daily: ChainedWrite = (after) => {
      const text = dailySql(cols, days.length, after?.text ?? '');
      return { compile: () => CompiledQuery.raw(text, [refCode, stripe, ...days.flatMap(([day, d]) => [day, ...cols.map((k) => d[k] ?? 0)])]) };
    };
    return cols.length > 0 ? [allTime, daily] : [allTime];
  }
  const allTimeWrite: ChainedWrite = () =>
    db
      .insertInto('affiliate_stats')
      .values({ ref_code: refCode, stripe, ...Object.fromEntries(allCols.map((k) => [k, allTotal(k)])) })
      .onConflict((oc) => oc.columns(['ref_code', 'stripe']).doUpdateSet(Object.fromEntries(allCols.map((k) => [k, sql`affiliate_stats.${sql.ref(k)} + excluded.${sql.ref(k)}`]))));
  if (cols.length === 0) return [allTimeWrite];
  return [
    allTimeWrite,
    () =>
      db
        .insertInto('daily_stats')
        .values(days.map(([day, d]) => ({ ref_code: refCode, day, stripe, ...Object.fromEntries(cols.map((k) => [k, d[k] ?? 0])) })))
        .onConflict((oc) => oc.columns(['ref_code', 'day', 'stripe']).doUpdateSet(Object.fromEntries(cols.map((k) => [k, sql`daily_stats.${sql.ref(k)} + excluded.${sql.ref(k)}`])))),
  ];
}

/** The all-time row's columns: the day counters' totals, and the balance (not counted per day). */
type AllTimeColumn = DailyCounter | 'balance_cents';

const quoted = (k: AllTimeColumn) => `"${k}"`;
const addExcluded = (table: string, cols: readonly AllTimeColumn[]) => cols.map((k) => `${quoted(k)} = "${table}".${quoted(k)} + excluded.${quoted(k)}`).join(', ');

/** $1 ref_code, $2 stripe, then each column's total; `guard`: the chain's condition (ChainCondition's text), or ''. */
function allTimeSql(cols: readonly AllTimeColumn[], guard: string): string {
  const values = cols.map((_, i) => `cast($${i + 3} as bigint)`).join(', ');
  return (
    `insert into affiliate_stats (ref_code, stripe, ${cols.map(quoted).join(', ')}) ` +
    `select cast($1 as text), cast($2 as integer), ${values}${guard ? ` where ${guard}` : ''} ` +
    `on conflict (ref_code, stripe) do update set ${addExcluded('affiliate_stats', cols)} returning 1`
  );
}

/** $1 ref_code, $2 stripe, then per day: the day and each column's delta (days in ascending order); `guard` as above. */
function dailySql(cols: readonly DailyCounter[], days: number, guard: string): string {
  const rows = Array.from({ length: days }, (_, d) => {
    const base = 3 + d * (cols.length + 1);
    return `(cast($${base} as text), ${cols.map((_, i) => `cast($${base + 1 + i} as bigint)`).join(', ')})`;
  }).join(', ');
  return (
    `insert into daily_stats (ref_code, day, stripe, ${cols.map(quoted).join(', ')}) ` +
    `select cast($1 as text), d.day, cast($2 as integer), ${cols.map((k) => `d.${quoted(k)}`).join(', ')} ` +
    `from (values ${rows}) as d (day, ${cols.map(quoted).join(', ')})${guard ? ` where ${guard}` : ''} ` +
    `on conflict (ref_code, day, stripe) do update set ${addExcluded('daily_stats', cols)} returning 1`
  );
}
