import type { Executor } from '../db/database.js';
import type { Affiliate, AffiliateUpdate, NewAffiliate } from '../db/schema.js';

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

/** One page ordered by (created_at, ref_code), strictly after `after` when given. */
export async function listAffiliates(
  db: Executor,
  opts: { limit: number; after?: readonly [number, string] },
): Promise<Affiliate[]> {
  let q = db.selectFrom('affiliates').selectAll();
  if (opts.after) {
    const [createdAt, refCode] = opts.after;
    q = q.where((eb) =>
      eb.or([eb('created_at', '>', createdAt), eb.and([eb('created_at', '=', createdAt), eb('ref_code', '>', refCode)])]),
    );
  }
  return q.orderBy('created_at').orderBy('ref_code').limit(opts.limit).execute();
}

export async function updateAffiliate(db: Executor, refCode: string, patch: AffiliateUpdate): Promise<Affiliate | undefined> {
  await db.updateTable('affiliates').set(patch).where('ref_code', '=', refCode).execute();
  return findAffiliate(db, refCode);
}
