import type { Executor } from '../db/database.js';

export interface NewClick {
  readonly ref_code: string;
  readonly created_at: number;
  readonly ip_hash: string | null;
  readonly user_agent: string | null;
  readonly referer: string | null;
  readonly network_click_ids: string | null;
}

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
