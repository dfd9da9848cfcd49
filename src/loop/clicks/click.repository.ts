import { type DatabaseHandle, type Executor, inTransaction } from '../../platform/db/database.js';
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

/** Inserts many clicks in one statement (the caller keeps batches small enough for bind limits). */
export async function insertClicks(db: Executor, rows: readonly NewClick[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('clicks').values(rows as NewClick[]).execute();
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
