import { sql } from 'kysely';
import { type DatabaseHandle, type Db, dialectOf, type Executor, inTransaction } from '../../platform/db/database.js';
import { createDayPartitions, isMissingPartition } from '../../platform/db/day-partitions.js';
import { COUNTER_STRIPES } from '../ledger/counters.repository.js';
import { applyPlan, bumpDailyStats } from '../ledger/executor.js';
import { systemClock } from '../../platform/clock.js';

export interface NewClick {
  readonly ref_code: string;
  readonly created_at: number;
  readonly ip_hash: string | null;
  readonly user_agent: string | null;
  readonly referer: string | null;
  readonly network_click_ids: string | null;
}

/** One click of a batch; only clicks carrying network click ids need their id back (svc_click cookie). */
export interface ClickWrite {
  readonly click: NewClick;
  readonly wantId: boolean;
}

/** Clicks to add to one (ref_code, day) counter row. */
export interface ClickCount {
  readonly ref: string;
  readonly day: string;
  readonly n: number;
}

/**
 * Stores a batch of clicks and adds `counts` to the daily and all-time counters, in one transaction.
 * Returns, position by position, the click's id where `wantId`, else null. `slot` is which of the batches in
 * flight this is (0 when one at a time): each adds to a counter stripe of its own, so batches of one
 * affiliate's clicks in flight together never wait on each other's counter rows.
 */
export type ClickBatchWriter = (batch: readonly ClickWrite[], counts: readonly ClickCount[], slot: number) => Promise<(number | null)[]>;

/** Inserts one click and returns its id. */
export async function insertClick(db: Executor, row: NewClick): Promise<number> {
  const res = await db.insertInto('clicks').values(row).returning('id').executeTakeFirstOrThrow();
  return Number(res.id);
}

/**
 * Inserts many clicks in one statement whose text is the same whatever the batch's size: the rows travel as
 * one JSON parameter, read back by SQLite's json_each or PostgreSQL's json_array_elements. So the statement
 * is prepared once (PostgreSQL keeps it named), and neither Kysely nor the driver handles a parameter per
 * value: a multi-row VALUES of a 500-click batch has 3,000, and a text of its own for every batch size.
 */
export async function insertClicks(db: Executor, rows: readonly NewClick[]): Promise<void> {
  if (rows.length > 0) await clicksInsert(db, rows).execute();
}

/** insertClicks' statement, not run (a click batch of one counter row rides it along with its counters). */
function clicksInsert(db: Executor, rows: readonly NewClick[]) {
  const json = JSON.stringify(rows.map((r) => [r.ref_code, r.created_at, r.ip_hash, r.user_agent, r.referer, r.network_click_ids]));
  const values =
    dialectOf(db) === 'postgres'
      ? sql`select e ->> 0, cast(e ->> 1 as bigint), e ->> 2, e ->> 3, e ->> 4, e ->> 5 from json_array_elements(cast(${json} as json)) as e`
      : sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(${json})`;
  return db.insertInto('clicks').columns(['ref_code', 'created_at', 'ip_hash', 'user_agent', 'referer', 'network_click_ids']).expression(values);
}

/** The affiliate and network click ids of click `id` of `refCode` (the svc_click cookie names both). */
export async function findClickNetworkIds(db: Executor, refCode: string, id: number): Promise<{ ref_code: string; network_click_ids: string | null } | undefined> {
  return db.selectFrom('clicks').select(['ref_code', 'network_click_ids']).where('ref_code', '=', refCode).where('id', '=', id).executeTakeFirst();
}

/**
 * PostgreSQL: makes the day partitions of `clicks` for the days holding `times` that do not exist yet, in a
 * transaction of their own; answers how many were new.
 */
export function createClickDays(db: Db, times: readonly number[]): Promise<number> {
  return inTransaction(db, (tx) => createDayPartitions(tx, 'clicks', times));
}

/**
 * The batch writer for the database behind `handle`, the same route on both databases: the clicks, then
 * their counters as plans of the ledger's executor, in one transaction. On PostgreSQL a click of a day whose
 * partition does not exist yet (the days ahead are made daily; a clock far off them) makes that day's
 * partition and the batch is written again.
 */
export function clickBatchWriter(handle: DatabaseHandle): ClickBatchWriter {
  const write: ClickBatchWriter = (batch, counts, slot) => {
    const stripe = slot % COUNTER_STRIPES;
    const only = counts.length === 1 ? counts[0] : undefined;
    if (handle.dialect === 'postgres' && only && batch.every((w) => !w.wantId)) {
      // The common batch (one affiliate's clicks of one day, none needing its id back): the clicks ride along
      // the counters' plan, which PostgreSQL makes as one statement, atomic by itself: one round trip, no
      // BEGIN and COMMIT of their own.
      const clicks = clicksInsert(
        handle.db,
        batch.map((w) => w.click),
      );
      return applyPlan(handle.db, systemClock, { inserts: [clicks], counters: { refCode: only.ref, bumps: [{ day: only.day, deltas: { clicks: only.n } }], stripe } }).then(() => batch.map(() => null));
    }
    return inTransaction(handle.db, async (tx) => {
      await insertClicks(
        tx,
        batch.filter((w) => !w.wantId).map((w) => w.click),
      );
      const ids: (number | null)[] = [];
      for (const w of batch) ids.push(w.wantId ? await insertClick(tx, w.click) : null);
      for (const { ref, day, n } of counts) await bumpDailyStats(tx, ref, day, { clicks: n }, stripe);
      return ids;
    });
  };
  return async (batch, counts, slot) => {
    try {
      return await write(batch, counts, slot);
    } catch (err) {
      if (handle.dialect !== 'postgres' || !isMissingPartition(err)) throw err;
      await createClickDays(
        handle.db,
        batch.map((w) => w.click.created_at),
      );
      return write(batch, counts, slot);
    }
  };
}
