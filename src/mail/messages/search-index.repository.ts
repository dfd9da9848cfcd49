import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { LoopSlices } from '../../platform/loop-slices.js';

/**
 * SQLite: the full-text rows of deleted copies, noted in `message_search_gone` by the delete trigger
 * (migration 0104), are removed from the index in batches: removing rows one by one rewrote an index page
 * per row. A noted row is dead weight until then, never a result (a search joins `messages`).
 */

/** The intake sweeps once this many rows are noted: at most this many dead rows, and a batch large enough to be cheap. */
export const SEARCH_SWEEP_AT = 512;
/** Rows per statement: a turn of the event loop may come between two (LoopSlices). */
const SWEEP_CHUNK = 128;

/**
 * Removes noted rows from the index: with `all`, every one (retention, after deleting a batch); else
 * (an intake) none until SEARCH_SWEEP_AT are noted, then up to twice that, so a backlog (deletions
 * without arrivals) shrinks with every sweep. Run in the caller's transaction. Answers how many went.
 */
export async function sweepSearchIndex(db: Executor, slices: LoopSlices | undefined, all = false): Promise<number> {
  if (!all) {
    const noted = await sql<{ n: number }>`select count(*) as n from message_search_gone`.execute(db);
    if (Number(noted.rows[0]!.n) < SEARCH_SWEEP_AT) return 0;
  }
  let swept = 0;
  for (;;) {
    const chunk = await sql<{ seq: number }>`
      delete from message_search_gone where seq in (select seq from message_search_gone order by seq limit ${SWEEP_CHUNK}) returning seq`.execute(db);
    if (chunk.rows.length > 0) await sql`delete from message_search where rowid in (${sql.join(chunk.rows.map((r) => r.seq))})`.execute(db);
    swept += chunk.rows.length;
    if (chunk.rows.length < SWEEP_CHUNK || (!all && swept >= 2 * SEARCH_SWEEP_AT)) return swept;
    await slices?.next();
  }
}
