import { sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
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

/**
 * Marks `email` confirmed for `refCode` in one conditional UPDATE, only while it is still that affiliate's
 * email, unconfirmed, and no other affiliate has it confirmed (docs/api.md#email-confirmation); true when it did.
 * On PostgreSQL a transaction lock on the address comes first, so two confirmations of one address at once
 * (each blind to the other's uncommitted row) run one after the other and the second sees the first.
 */
export async function confirmAffiliateEmail(db: Executor, refCode: string, email: string, now: number): Promise<boolean> {
  if (dialectOf(db) === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`svc-email-confirm:${email.toLowerCase()}`}, 0))`.execute(db);
  const res = await db
    .updateTable('affiliates')
    .set({ email_confirmed_at: now, updated_at: now })
    .where('ref_code', '=', refCode)
    .where('email', '=', email)
    .where('email_confirmed_at', 'is', null)
    .where(({ not, exists, selectFrom }) =>
      not(exists(selectFrom('affiliates as other').select('other.ref_code').where((eb) => eb(eb.fn('lower', ['other.email']), '=', email.toLowerCase())).where('other.email_confirmed_at', 'is not', null).where('other.ref_code', '!=', refCode))),
    )
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Whether an affiliate other than `refCode` has `email` confirmed. */
export async function emailConfirmedByAnother(db: Executor, refCode: string, email: string): Promise<boolean> {
  const row = await db
    .selectFrom('affiliates')
    .select('ref_code')
    .where((eb) => eb(eb.fn('lower', ['email']), '=', email.toLowerCase()))
    .where('email_confirmed_at', 'is not', null).where('ref_code', '!=', refCode).limit(1).executeTakeFirst();
  return row !== undefined;
}
