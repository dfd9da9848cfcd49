import { type Compilable, sql } from 'kysely';
import { dialectOf, type Executor } from '../db/database.js';
import { writeTogether } from '../db/write-together.js';

/**
 * Counters of the daily rollup (CONTRACT §7 summary). Which day a change counts on:
 * clicks by click time, mailboxes by creation, orders and revenue_cents (their amount) by paid_at, commission_* by the commission's
 * creation day (a status change moves the amount between buckets of that same day), withdrawals_* by the
 * withdrawal's creation day (requested -> paid moves it; a rejection removes it from requested).
 */
export type DailyCounter =
  | 'clicks'
  | 'mailboxes'
  | 'orders'
  | 'commission_pending_cents'
  | 'commission_approved_cents'
  | 'commission_paid_cents'
  | 'commission_void_cents'
  | 'withdrawals_requested_cents'
  | 'withdrawals_paid_cents'
  | 'revenue_cents';

/** How many rows one affiliate's counters are spread over (migration 0021-counter-stripes). */
export const COUNTER_STRIPES = 8;

/** A stripe for one transaction's money bumps: concurrent writers of one affiliate mostly touch different rows. */
export function pickStripe(): number {
  return Math.floor(Math.random() * COUNTER_STRIPES);
}

/**
 * Adds the deltas to one (ref_code, day, stripe) row, creating it at zero first, and to the affiliate's
 * all-time row of the same stripe; call inside the writing transaction. The all-time row is written
 * first, so every transaction takes these row locks in the same order (per ref_code and stripe:
 * all-time, then its days); a transaction uses one stripe for all its bumps. Readers sum the stripes.
 */
export async function bumpDailyStats(
  db: Executor,
  refCode: string,
  day: string,
  deltas: Partial<Record<DailyCounter, number>>,
  stripe = 0,
  /** Other writes of the transaction that answer nothing, sent along (see writeTogether): one round trip for all. */
  riders: readonly Compilable[] = [],
): Promise<void> {
  const entries = Object.entries(deltas).filter(([, v]) => v !== undefined && v !== 0) as [DailyCounter, number][];
  if (entries.length === 0) return writeTogether(db, riders, undefined);
  if (dialectOf(db) === 'postgres') {
    // One round trip: the all-time upsert runs as a CTE that the day's upsert reads from, so it
    // completes first (the same lock order as the two statements below).
    const cols = sql.join(entries.map(([k]) => sql.ref(k)));
    const vals = sql.join(entries.map(([, v]) => sql`cast(${v} as bigint)`));
    const set = (table: string) => sql.join(entries.map(([k]) => sql`${sql.ref(k)} = ${sql.ref(`${table}.${k}`)} + excluded.${sql.ref(k)}`));
    const upserts = sql`
      with all_time as (
        insert into affiliate_stats (ref_code, stripe, ${cols}) values (${refCode}, ${stripe}, ${vals})
        on conflict (ref_code, stripe) do update set ${set('affiliate_stats')}
        returning 1
      )
      insert into daily_stats (ref_code, day, stripe, ${cols})
      select cast(${refCode} as text), cast(${day} as text), cast(${stripe} as integer), ${vals} from all_time
      on conflict (ref_code, day, stripe) do update set ${set('daily_stats')}`;
    return writeTogether(db, riders, { compile: () => upserts.compile(db) });
  }
  await writeTogether(db, riders, undefined);
  const insert = Object.fromEntries(entries);
  const update = Object.fromEntries(entries.map(([k, v]) => [k, sql`daily_stats.${sql.ref(k)} + ${v}`]));
  await db
    .insertInto('affiliate_stats')
    .values({ ref_code: refCode, stripe, ...insert })
    .onConflict((oc) => oc.columns(['ref_code', 'stripe']).doUpdateSet(Object.fromEntries(entries.map(([k, v]) => [k, sql`affiliate_stats.${sql.ref(k)} + ${v}`]))))
    .execute();
  await db
    .insertInto('daily_stats')
    .values({ ref_code: refCode, day, stripe, ...insert })
    .onConflict((oc) => oc.columns(['ref_code', 'day', 'stripe']).doUpdateSet(update))
    .execute();
}
