import type SqliteDatabase from 'better-sqlite3';
import { type DatabaseHandle, type Executor, inTransaction } from '../../platform/db/database.js';
import { bumpDailyStats } from '../ledger/counters.repository.js';

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
 * The batch writer for the database behind `handle`. On SQLite it runs prepared statements on the one
 * connection directly (no query building or statement preparation per batch: /go is the hottest path);
 * elsewhere it goes through Kysely.
 */
export function clickBatchWriter(handle: DatabaseHandle): ClickBatchWriter {
  return handle.sqlite ? sqliteClickBatchWriter(handle, handle.sqlite) : kyselyClickBatchWriter(handle);
}

function kyselyClickBatchWriter(handle: DatabaseHandle): ClickBatchWriter {
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

function sqliteClickBatchWriter(handle: DatabaseHandle, sqlite: SqliteDatabase.Database): ClickBatchWriter {
  // Prepared on first use: the tables exist only once migrations have run.
  let write: ((batch: readonly ClickWrite[], counts: readonly ClickCount[]) => (number | null)[]) | undefined;
  const prepare = () => {
    const insert = sqlite.prepare(
      'insert into clicks (ref_code, created_at, ip_hash, user_agent, referer, network_click_ids) values (?, ?, ?, ?, ?, ?)',
    );
    // The counters bumpDailyStats keeps (all-time row first, then the day), for clicks only.
    const bumpAllTime = sqlite.prepare(
      'insert into affiliate_stats (ref_code, clicks) values (?, ?) on conflict (ref_code, stripe) do update set clicks = affiliate_stats.clicks + excluded.clicks',
    );
    const bumpDay = sqlite.prepare(
      'insert into daily_stats (ref_code, day, clicks) values (?, ?, ?) on conflict (ref_code, day, stripe) do update set clicks = daily_stats.clicks + excluded.clicks',
    );
    const txn = sqlite.transaction((batch: readonly ClickWrite[], counts: readonly ClickCount[]) => {
      const ids: (number | null)[] = [];
      for (const { click: c, wantId } of batch) {
        const { lastInsertRowid } = insert.run(c.ref_code, c.created_at, c.ip_hash, c.user_agent, c.referer, c.network_click_ids);
        ids.push(wantId ? Number(lastInsertRowid) : null);
      }
      for (const { ref, day, n } of counts) {
        bumpAllTime.run(ref, n);
        bumpDay.run(ref, day, n);
      }
      return ids;
    });
    // IMMEDIATE takes the write lock up front: a writer in another process makes us wait (busy_timeout),
    // never fail half way through.
    return txn.immediate;
  };
  // Holding Kysely's connection (its mutex) guarantees that no Kysely transaction is open on it meanwhile.
  return (batch, counts) =>
    handle.db.connection().execute(async () => {
      write ??= prepare();
      return write(batch, counts);
    });
}
