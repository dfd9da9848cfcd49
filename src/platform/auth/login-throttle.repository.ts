import type { Executor } from '../db/database.js';

/**
 * Takes the lock of one throttled key for the rest of the transaction: an upsert, which locks the row
 * (PostgreSQL) or the database (SQLite) whether it inserts or updates, so that the attempts on this key
 * are counted one after the other on every instance.
 */
export async function lockThrottleKey(tx: Executor, scope: string, key: string, now: number): Promise<void> {
  await tx
    .insertInto('login_throttle_keys')
    .values({ scope, key, touched_at: now })
    .onConflict((oc) => oc.columns(['scope', 'key']).doUpdateSet({ touched_at: now }))
    .execute();
}

/** Attempts on a key after `since`: how many, and the time of the oldest (for Retry-After). */
export async function attemptsSince(tx: Executor, scope: string, key: string, since: number): Promise<{ count: number; oldest: number | null }> {
  const row = await tx
    .selectFrom('login_attempts')
    .select((eb) => [eb.fn.countAll<number | string>().as('count'), eb.fn.min('at').as('oldest')])
    .where('scope', '=', scope)
    .where('key', '=', key)
    .where('at', '>', since)
    .executeTakeFirstOrThrow();
  return { count: Number(row.count), oldest: row.oldest === null ? null : Number(row.oldest) };
}

/** Drops a key's attempts that have left the window (the per-minute purge catches keys nobody tries again). */
export async function deleteExpiredAttempts(tx: Executor, scope: string, key: string, upTo: number): Promise<void> {
  await tx.deleteFrom('login_attempts').where('scope', '=', scope).where('key', '=', key).where('at', '<=', upTo).execute();
}

export async function insertAttempt(tx: Executor, row: { scope: string; key: string; pair_key: string; at: number }): Promise<void> {
  await tx.insertInto('login_attempts').values(row).execute();
}

/** Forgives a key's attempts: all of them, or only those whose other key was `pairKey`. */
export async function deleteAttempts(db: Executor, scope: string, key: string, pairKey?: string): Promise<void> {
  let q = db.deleteFrom('login_attempts').where('scope', '=', scope).where('key', '=', key);
  if (pairKey !== undefined) q = q.where('pair_key', '=', pairKey);
  await q.execute();
}

/** Deletes attempts, and keys nobody tried, up to `upTo`; answers how many rows went. */
export async function purgeLoginThrottle(db: Executor, upTo: number): Promise<number> {
  const attempts = await db.deleteFrom('login_attempts').where('at', '<=', upTo).executeTakeFirst();
  // A key touched after upTo may have attempts after it too; one touched before has none left.
  const keys = await db.deleteFrom('login_throttle_keys').where('touched_at', '<=', upTo).executeTakeFirst();
  return Number(attempts.numDeletedRows ?? 0n) + Number(keys.numDeletedRows ?? 0n);
}
