import { sql } from 'kysely';
import type { Executor } from '../db/database.js';

export interface AdminUserRow {
  readonly id: string;
  readonly username: string;
  readonly password_hash: string;
  readonly created_at: number;
}

/** Every admin user, oldest first (there are a handful). */
export async function listAdminUsers(db: Executor): Promise<Pick<AdminUserRow, 'id' | 'username' | 'created_at'>[]> {
  return db.selectFrom('admin_users').select(['id', 'username', 'created_at']).orderBy('created_at').orderBy('username').execute();
}

export async function findAdminUser(db: Executor, username: string): Promise<AdminUserRow | undefined> {
  return db.selectFrom('admin_users').selectAll().where('username', '=', username).executeTakeFirst();
}

export async function findAdminUserById(db: Executor, id: string): Promise<AdminUserRow | undefined> {
  return db.selectFrom('admin_users').selectAll().where('id', '=', id).executeTakeFirst();
}

/** Inserts an admin user; false when the user name is taken (no read-then-write race). */
export async function insertAdminUser(db: Executor, row: AdminUserRow): Promise<boolean> {
  const res = await db
    .insertInto('admin_users')
    .values(row)
    .onConflict((oc) => oc.column('username').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Inserts the first admin user only while there is none, in one statement: instances starting
 * together create it once, and a database whose `admin` user was removed does not get it back.
 */
export async function insertFirstAdminUser(db: Executor, row: AdminUserRow): Promise<boolean> {
  const res = await db
    .insertInto('admin_users')
    .columns(['id', 'username', 'password_hash', 'created_at'])
    .expression(
      db
        .selectNoFrom([
          sql<string>`${row.id}`.as('id'),
          sql<string>`${row.username}`.as('username'),
          sql<string>`${row.password_hash}`.as('password_hash'),
          sql<number>`cast(${row.created_at} as bigint)`.as('created_at'),
        ])
        .where((eb) => eb.not(eb.exists(db.selectFrom('admin_users').select(sql`1`.as('one'))))),
    )
    .onConflict((oc) => oc.column('username').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/**
 * Takes the write lock on every admin user (a no-op UPDATE): row locks on PostgreSQL, the database's
 * write lock on SQLite. Two removals running at once then see each other's result, so the last admin
 * can never be removed by two requests that each saw the other user still there.
 */
export async function lockAdminUsers(tx: Executor): Promise<void> {
  await tx.updateTable('admin_users').set((eb) => ({ created_at: eb.ref('created_at') })).execute();
}

export async function countAdminUsers(db: Executor): Promise<number> {
  const row = await db.selectFrom('admin_users').select((eb) => eb.fn.countAll<number | string>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Deletes the user and its sessions (explicitly: SQLite enforces the ON DELETE CASCADE only with foreign_keys on). */
export async function deleteAdminUser(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('admin_sessions').where('user_id', '=', id).execute();
  await db.deleteFrom('admin_users').where('id', '=', id).execute();
}

export async function updateAdminPassword(db: Executor, id: string, passwordHash: string): Promise<void> {
  await db.updateTable('admin_users').set({ password_hash: passwordHash }).where('id', '=', id).execute();
}

/** Ends every session of the user except `keepIdHash` (the one that changed the password). */
export async function deleteSessionsOfUser(db: Executor, userId: string, keepIdHash?: string): Promise<number> {
  let q = db.deleteFrom('admin_sessions').where('user_id', '=', userId);
  if (keepIdHash !== undefined) q = q.where('id_hash', '<>', keepIdHash);
  const res = await q.executeTakeFirst();
  return Number(res.numDeletedRows ?? 0n);
}
