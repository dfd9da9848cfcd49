import type { Executor } from '../db/database.js';

export async function findAdminByUsername(db: Executor, username: string) {
  return db.selectFrom('admin_users').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function insertAdminIfAbsent(
  db: Executor,
  row: { id: string; username: string; password_hash: string; created_at: number },
): Promise<boolean> {
  const res = await db
    .insertInto('admin_users')
    .values(row)
    .onConflict((oc) => oc.column('username').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function insertSession(
  db: Executor,
  row: { id_hash: string; user_id: string; csrf_token: string; created_at: number; expires_at: number },
): Promise<void> {
  await db.insertInto('admin_sessions').values(row).execute();
}

export async function findLiveSession(db: Executor, idHash: string, now: number) {
  return db
    .selectFrom('admin_sessions')
    .innerJoin('admin_users', 'admin_users.id', 'admin_sessions.user_id')
    .select(['admin_sessions.id_hash', 'admin_sessions.csrf_token', 'admin_sessions.expires_at', 'admin_users.username', 'admin_users.id as user_id'])
    .where('admin_sessions.id_hash', '=', idHash)
    .where('admin_sessions.expires_at', '>', now)
    .executeTakeFirst();
}

export async function deleteSession(db: Executor, idHash: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('id_hash', '=', idHash).execute();
}

export async function deleteExpiredSessions(db: Executor, now: number): Promise<void> {
  await db.deleteFrom('admin_sessions').where('expires_at', '<=', now).execute();
}

/** Failures of one client after `since`: how many, and the time of the oldest (for Retry-After). */
export async function recentLoginFailures(db: Executor, client: string, since: number): Promise<{ count: number; oldest: number | null }> {
  const row = await db
    .selectFrom('login_failures')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('at').as('oldest')])
    .where('client', '=', client)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

/** Records a failure and drops every failure (of any client) that is out of the window. */
export async function recordLoginFailure(db: Executor, client: string, at: number, since: number): Promise<void> {
  await db.deleteFrom('login_failures').where('at', '<=', since).execute();
  await db.insertInto('login_failures').values({ client, at }).execute();
}

export async function clearLoginFailures(db: Executor, client: string): Promise<void> {
  await db.deleteFrom('login_failures').where('client', '=', client).execute();
}
