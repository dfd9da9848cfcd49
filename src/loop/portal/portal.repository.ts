import type { Executor } from '../../platform/db/database.js';

/** SQL of the affiliate portal (docs/api.md#affiliate-portal): accounts, sessions, invitations. */

export async function findAccount(db: Executor, refCode: string) {
  return db.selectFrom('affiliate_accounts').selectAll().where('ref_code', '=', refCode).executeTakeFirst();
}

/** The account row with its affiliate's status (a login needs both). */
export async function findLoginAccount(db: Executor, refCode: string) {
  return db
    .selectFrom('affiliates')
    .leftJoin('affiliate_accounts', 'affiliate_accounts.ref_code', 'affiliates.ref_code')
    .select(['affiliates.ref_code', 'affiliates.status', 'affiliates.name', 'affiliates.email', 'affiliates.email_confirmed_at', 'affiliate_accounts.password_hash'])
    .where('affiliates.ref_code', '=', refCode)
    .executeTakeFirst();
}

/**
 * The active-or-not affiliates that have this email (lower case) CONFIRMED, with what a login needs: an
 * unconfirmed one is not theirs yet (docs/api.md#email-confirmation), so it neither signs in nor gets a reset,
 * and it never hides the confirmed owner.
 */
export async function findLoginAccountsByEmail(db: Executor, email: string) {
  return db
    .selectFrom('affiliates')
    .leftJoin('affiliate_accounts', 'affiliate_accounts.ref_code', 'affiliates.ref_code')
    .select(['affiliates.ref_code', 'affiliates.status', 'affiliates.name', 'affiliates.email', 'affiliates.email_confirmed_at', 'affiliate_accounts.password_hash'])
    .where((eb) => eb(eb.fn('lower', ['affiliates.email']), '=', email))
    .where('affiliates.email_confirmed_at', 'is not', null)
    .orderBy('affiliates.ref_code')
    .limit(20)
    .execute();
}

/** Creates the account or sets its password. */
export async function upsertPassword(db: Executor, refCode: string, passwordHash: string, now: number): Promise<void> {
  await db
    .insertInto('affiliate_accounts')
    .values({ ref_code: refCode, password_hash: passwordHash, payout_details: null, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('ref_code').doUpdateSet({ password_hash: passwordHash, updated_at: now }))
    .execute();
}

export async function upsertPayoutDetails(db: Executor, refCode: string, payoutDetails: string | null, now: number): Promise<void> {
  await db
    .insertInto('affiliate_accounts')
    .values({ ref_code: refCode, password_hash: null, payout_details: payoutDetails, created_at: now, updated_at: now })
    .onConflict((oc) => oc.column('ref_code').doUpdateSet({ payout_details: payoutDetails, updated_at: now }))
    .execute();
}

/** The affiliate's notification choices; a missing one is left as it is. */
export async function upsertNotify(db: Executor, refCode: string, notify: { commissions?: boolean; payouts?: boolean }, now: number): Promise<void> {
  const set = {
    ...(notify.commissions === undefined ? {} : { notify_commissions: notify.commissions ? 1 : 0 }),
    ...(notify.payouts === undefined ? {} : { notify_payouts: notify.payouts ? 1 : 0 }),
  };
  await db
    .insertInto('affiliate_accounts')
    .values({ ref_code: refCode, password_hash: null, payout_details: null, created_at: now, updated_at: now, ...set })
    .onConflict((oc) => oc.column('ref_code').doUpdateSet({ ...set, updated_at: now }))
    .execute();
}

/** Payout details of the given affiliates (those that have an account). */
export async function payoutDetailsOf(db: Executor, refCodes: readonly string[]) {
  if (refCodes.length === 0) return [];
  return db.selectFrom('affiliate_accounts').select(['ref_code', 'payout_details']).where('ref_code', 'in', refCodes).execute();
}

export async function insertPortalSession(
  db: Executor,
  row: { id_hash: string; ref_code: string; csrf_token: string; created_at: number; expires_at: number },
): Promise<void> {
  await db.insertInto('affiliate_sessions').values(row).execute();
}

/** A live session of an ACTIVE affiliate: a disabled or pending affiliate has none, whatever rows remain. */
export async function findLivePortalSession(db: Executor, idHash: string, now: number) {
  return db
    .selectFrom('affiliate_sessions')
    .innerJoin('affiliates', 'affiliates.ref_code', 'affiliate_sessions.ref_code')
    .select(['affiliate_sessions.id_hash', 'affiliate_sessions.ref_code', 'affiliate_sessions.csrf_token'])
    .where('affiliate_sessions.id_hash', '=', idHash)
    .where('affiliate_sessions.expires_at', '>', now)
    .where('affiliates.status', '=', 'active')
    .executeTakeFirst();
}

export async function deletePortalSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('affiliate_sessions').where('id_hash', '=', idHash).execute();
}

/** Ends every session of an affiliate, but `keep` (the one changing its password). */
export async function deletePortalSessionsOf(db: Executor, refCode: string, keep?: string): Promise<void> {
  let q = db.deleteFrom('affiliate_sessions').where('ref_code', '=', refCode);
  if (keep !== undefined) q = q.where('id_hash', '!=', keep);
  await q.execute();
}

export async function deleteExpiredPortalSessions(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('affiliate_sessions').where('expires_at', '<=', now).execute();
}

export type TokenKind = 'invite' | 'reset' | 'confirm';

export async function insertInvite(
  db: Executor,
  row: { token_hash: string; ref_code: string; created_at: number; expires_at: number; kind: TokenKind; email?: string },
): Promise<void> {
  await db.insertInto('affiliate_invites').values({ ...row, email: row.email ?? null, used_at: null }).execute();
}

/** Marks an unused, unexpired confirmation token used (one conditional UPDATE); answers whom and which address it confirms. */
export async function consumeConfirmToken(db: Executor, tokenHash: string, now: number): Promise<{ ref_code: string; email: string } | undefined> {
  const res = await db
    .updateTable('affiliate_invites')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', 'confirm')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  const row = await db.selectFrom('affiliate_invites').select(['ref_code', 'email']).where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.email ? { ref_code: row.ref_code, email: row.email } : undefined;
}

/** The ref_code of an unused, unexpired invitation (a read: consumeInvite is what uses it). */
export async function findOpenInvite(db: Executor, tokenHash: string, now: number, kind: 'invite' | 'reset'): Promise<string | undefined> {
  const row = await db
    .selectFrom('affiliate_invites')
    .select('ref_code')
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row?.ref_code;
}

/** Marks an unused, unexpired invitation used, in one conditional UPDATE; answers its ref_code, or undefined. */
export async function consumeInvite(db: Executor, tokenHash: string, now: number, kind: 'invite' | 'reset'): Promise<string | undefined> {
  const res = await db
    .updateTable('affiliate_invites')
    .set({ used_at: now })
    .where('token_hash', '=', tokenHash)
    .where('kind', '=', kind)
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  if (Number(res.numUpdatedRows) === 0) return undefined;
  const row = await db.selectFrom('affiliate_invites').select('ref_code').where('token_hash', '=', tokenHash).executeTakeFirst();
  return row?.ref_code;
}

/** Deletes every unused invitation and reset link of an affiliate (expired or not): none of them can set a password any more. Confirmation links stay. */
export async function deleteUnusedInvites(db: Executor, refCode: string): Promise<void> {
  await db.deleteFrom('affiliate_invites').where('ref_code', '=', refCode).where('used_at', 'is', null).where('kind', 'in', ['invite', 'reset']).execute();
}

/** The latest open invitation of each affiliate given (for the admin's list). */
export async function openInvitesOf(db: Executor, refCodes: readonly string[], now: number) {
  if (refCodes.length === 0) return [];
  return db
    .selectFrom('affiliate_invites')
    .select(['ref_code', (eb) => eb.fn.max('expires_at').as('expires_at')])
    .where('ref_code', 'in', refCodes)
    .where('kind', '=', 'invite')
    .where('used_at', 'is', null)
    .where('expires_at', '>', now)
    .groupBy('ref_code')
    .execute();
}
