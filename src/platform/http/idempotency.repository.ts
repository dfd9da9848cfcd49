import type { Executor } from '../db/database.js';
import type { IdempotencyKeysTable } from '../db/schema.js';

/** Claims a key for a request about to run; false when the key is already there. */
export async function claimIdempotencyKey(db: Executor, row: IdempotencyKeysTable): Promise<boolean> {
  const res = await db
    .insertInto('idempotency_keys')
    .values(row)
    .onConflict((oc) => oc.column('key').doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

export async function findIdempotencyKey(db: Executor, key: string): Promise<IdempotencyKeysTable | undefined> {
  return db.selectFrom('idempotency_keys').selectAll().where('key', '=', key).executeTakeFirst();
}

export async function completeIdempotencyKey(db: Executor, key: string, status: number, body: string): Promise<void> {
  await db
    .updateTable('idempotency_keys')
    .set({ state: 'done', response_status: status, response_body: body })
    .where('key', '=', key)
    .execute();
}

export async function releaseIdempotencyKey(db: Executor, key: string): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('key', '=', key).execute();
}

/** Deletes one key if it is still the stale row we saw (another request may have replaced it meanwhile). */
export async function deleteStaleIdempotencyKey(db: Executor, key: string, createdAt: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('key', '=', key).where('created_at', '=', createdAt).execute();
}

export async function purgeIdempotencyKeys(db: Executor, createdBefore: number): Promise<void> {
  await db.deleteFrom('idempotency_keys').where('created_at', '<', createdBefore).execute();
}
