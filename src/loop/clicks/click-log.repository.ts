import type { Executor } from '../../platform/db/database.js';

// The raw click log (docs/api.md#click-log): its day partitions on PostgreSQL, removing old clicks, listing them.

/** SQLite: deletes up to `batch` of the oldest clicks made before `cutoff` (by the created_at index); answers how many. */
export async function deleteClicksBefore(db: Executor, cutoff: number, batch: number): Promise<number> {
  const res = await db
    .deleteFrom('clicks')
    .where('id', 'in', (eb) => eb.selectFrom('clicks').select('id').where('created_at', '<', cutoff).orderBy('created_at').limit(batch))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

export interface ClickFilter {
  readonly refCode?: string;
  /** created_at bounds, from included, to excluded. */
  readonly from?: number;
  readonly to?: number;
  readonly after?: ClickCursor;
  readonly limit: number;
}

/** Where a page of clicks ends: (created_at, id) of its last click. */
export interface ClickCursor {
  readonly createdAt: number;
  readonly id: number;
}

export interface ClickRow {
  readonly id: number;
  readonly ref_code: string;
  readonly created_at: number;
  readonly referer: string | null;
  readonly user_agent: string | null;
}

/** Raw clicks newest first by (created_at, id), limit + 1 of them (the caller cuts the page); never the IP hash. */
export async function listClicks(db: Executor, f: ClickFilter): Promise<ClickRow[]> {
  let q = db.selectFrom('clicks').select(['id', 'ref_code', 'created_at', 'referer', 'user_agent']);
  if (f.refCode !== undefined) q = q.where('ref_code', '=', f.refCode);
  if (f.from !== undefined) q = q.where('created_at', '>=', f.from);
  if (f.to !== undefined) q = q.where('created_at', '<', f.to);
  const after = f.after;
  if (after) {
    q = q.where('created_at', '<=', after.createdAt).where((eb) => eb.or([eb('created_at', '<', after.createdAt), eb('id', '<', after.id)]));
  }
  const rows = await q.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(f.limit + 1).execute();
  return rows.map((r) => ({ ...r, id: Number(r.id), created_at: Number(r.created_at) }));
}
