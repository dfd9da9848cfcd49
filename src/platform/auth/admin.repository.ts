import type { Executor } from '../db/database.js';

export async function findAdminByUsername(db: Executor, username: string) {
  return db.selectFrom('admin_users').selectAll().where('username', '=', username).executeTakeFirst();
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
