import { type Compilable, CompiledQuery, type InsertQueryBuilder, type InsertResult, sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
import type { Database } from '../../platform/db/schema.js';
import type { ChainCondition, ChainedWrite } from './chain.js';
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
  // Both databases, one route: with no chain condition (the chain's first write, and SQLite) a plain upsert of
  // the rows; after another write (PostgreSQL) the same rows as INSERT … SELECT … WHERE after, so the write
  // runs only once that one changed its row. Each returns a row, for the next write's condition.
  const allTimeRow = { ref_code: refCode, stripe, ...Object.fromEntries(allCols.map((k) => [k, allTotal(k)])) };
  const allTime: ChainedWrite = (after) =>
    compiledOnce(db, 'affiliate_stats', [allTimeRow], after, () =>
      insertRows(db.insertInto('affiliate_stats'), [allTimeRow], after)
        .onConflict((oc) => oc.columns(['ref_code', 'stripe']).doUpdateSet(addExcluded('affiliate_stats', allCols)))
        .returning(sql<number>`1`.as('made')),
    );
  if (cols.length === 0) return [allTime];
  const dayRows = days.map(([day, d]) => ({ ref_code: refCode, day, stripe, ...Object.fromEntries(cols.map((k) => [k, d[k] ?? 0])) }));
  const daily: ChainedWrite = (after) =>
    compiledOnce(db, 'daily_stats', dayRows, after, () =>
      insertRows(db.insertInto('daily_stats'), dayRows, after)
        .onConflict((oc) => oc.columns(['ref_code', 'day', 'stripe']).doUpdateSet(addExcluded('daily_stats', cols)))
        .returning(sql<number>`1`.as('made')),
    );
  return [allTime, daily];

  /**
   * `rows` (same keys, in order) into `insert`: VALUES with no `after`; else a SELECT of them that yields
   * them only when `after` holds, each value cast (a bare parameter in a SELECT list has no type on PostgreSQL).
   */
  function insertRows<T extends 'affiliate_stats' | 'daily_stats'>(insert: InsertQueryBuilder<Database, T, InsertResult>, rows: readonly Row[], after: ChainCondition | undefined) {
    if (after === undefined) return insert.values(rows as never);
    const typed = (v: string | number) => (typeof v === 'number' ? sql<unknown>`cast(${v} as bigint)` : sql<unknown>`cast(${v} as text)`);
    const one = (row: Row) => db.selectNoFrom(Object.entries(row).map(([k, v]) => typed(v).as(k))).where(after);
    const select = rows.slice(1).reduce((q, row) => q.unionAll(one(row)), one(rows[0]!));
    return insert.columns(Object.keys(rows[0]!) as never).expression(select as never);
  }
}

type Row = Record<string, string | number>;

/** SQL texts of the counter upserts by shape (dialect, table, columns, rows, chain condition): a few dozen in all. */
const compiledTexts = new Map<string, string>();
const COMPILED_TEXTS_MAX = 1000;

/**
 * The counter upserts are in every money plan and their text depends on their shape alone, so Kysely
 * compiles each shape once (on PostgreSQL compiling them cost about a tenth of an attributed payment's CPU).
 * Their parameters are the rows' values, row by row, key by key: that is checked when a shape is first
 * compiled, and a shape whose parameters came out otherwise is compiled every time.
 */
function compiledOnce(db: Executor, table: string, rows: readonly Row[], after: ChainCondition | undefined, build: () => Compilable): Compilable {
  const parameters = rows.flatMap((row) => Object.values(row));
  const shape = `${dialectOf(db)} ${table} ${Object.keys(rows[0]!).join(',')} ${rows.length} ${after?.text ?? ''}`;
  return {
    compile: () => {
      const text = compiledTexts.get(shape);
      if (text !== undefined) return CompiledQuery.raw(text, parameters);
      const compiled = build().compile();
      const same = compiled.parameters.length === parameters.length && compiled.parameters.every((p, i) => p === parameters[i]);
      if (same && compiledTexts.size < COMPILED_TEXTS_MAX) compiledTexts.set(shape, compiled.sql);
      return compiled;
    },
  };
}

/** The all-time row's columns: the day counters' totals, and the balance (not counted per day). */
type AllTimeColumn = DailyCounter | 'balance_cents';

/** `column = table.column + excluded.column` for each column: an upsert that adds its deltas. */
function addExcluded(table: 'affiliate_stats' | 'daily_stats', cols: readonly AllTimeColumn[]) {
  return Object.fromEntries(cols.map((k) => [k, sql<number>`${sql.table(table)}.${sql.ref(k)} + excluded.${sql.ref(k)}`]));
}
