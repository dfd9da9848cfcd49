import { sql } from 'kysely';
import { type DatabaseHandle, dialectOf, type Executor, inTransaction } from '../../platform/db/database.js';
import { bumpDailyStats } from '../ledger/executor.js';

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
 * Returns, position by position, the click's id where `wantId`, else null.
 */
export type ClickBatchWriter = (batch: readonly ClickWrite[], counts: readonly ClickCount[]) => Promise<(number | null)[]>;

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
  if (rows.length === 0) return;
  const json = JSON.stringify(rows.map((r) => [r.ref_code, r.created_at, r.ip_hash, r.user_agent, r.referer, r.network_click_ids]));
  const values =
    dialectOf(db) === 'postgres'
      ? sql`select e ->> 0, cast(e ->> 1 as bigint), e ->> 2, e ->> 3, e ->> 4, e ->> 5 from json_array_elements(cast(${json} as json)) as e`
      : sql`select value ->> 0, value ->> 1, value ->> 2, value ->> 3, value ->> 4, value ->> 5 from json_each(${json})`;
  await db.insertInto('clicks').columns(['ref_code', 'created_at', 'ip_hash', 'user_agent', 'referer', 'network_click_ids']).expression(values).execute();
}

export async function findClickNetworkIds(db: Executor, id: number): Promise<{ ref_code: string; network_click_ids: string | null } | undefined> {
  return db.selectFrom('clicks').select(['ref_code', 'network_click_ids']).where('id', '=', id).executeTakeFirst();
}

/**
 * The batch writer for the database behind `handle`, the same route on both databases: the clicks, then
 * their counters as plans of the ledger's executor, in one transaction.
 */
export function clickBatchWriter(handle: DatabaseHandle): ClickBatchWriter {
  return (batch, counts) =>
    inTransaction(handle.db, async (tx) => {
      await insertClicks(
        tx,
        batch.filter((w) => !w.wantId).map((w) => w.click),
      );
      const ids: (number | null)[] = [];
      for (const w of batch) ids.push(w.wantId ? await insertClick(tx, w.click) : null);
      for (const { ref, day, n } of counts) await bumpDailyStats(tx, ref, day, { clicks: n });
      return ids;
    });
}
