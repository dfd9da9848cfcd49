import type { Executor } from '../../platform/db/database.js';
import type { Affiliate, AffiliateUpdate, NewAffiliate } from '../../platform/db/schema.js';
import { newestFirst, type PageCursor } from '../../platform/db/keyset.js';

export async function findAffiliate(db: Executor, refCode: string): Promise<Affiliate | undefined> {
  return db.selectFrom('affiliates').selectAll().where('ref_code', '=', refCode).executeTakeFirst();
}

/** Inserts an affiliate; false when the ref_code is taken (no read-then-write race). */
export async function insertAffiliate(db: Executor, row: NewAffiliate): Promise<boolean> {
  const res = await db
    .insertInto('affiliates')
    .values(row)
    .onConflict((oc) => oc.column('ref_code').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Newest first by (created_at, ref_code), strictly after `after` when given; limit + 1 rows so the caller knows whether another page follows. */
export async function listAffiliates(db: Executor, opts: { limit: number; after?: PageCursor }): Promise<Affiliate[]> {
  return newestFirst(db.selectFrom('affiliates').selectAll(), opts, 'ref_code').execute();
}

export async function updateAffiliate(db: Executor, refCode: string, patch: AffiliateUpdate): Promise<Affiliate | undefined> {
  await db.updateTable('affiliates').set(patch).where('ref_code', '=', refCode).execute();
  return findAffiliate(db, refCode);
}
