import { sql } from 'kysely';
import { compiledPerDialect } from '../db/compiled-per-dialect.js';
import type { Executor } from '../db/database.js';

type WindowRole = 'scope' | 'key' | 'now' | 'resetsAt' | 'max';
type WindowValues = Readonly<Record<WindowRole, string | number>>;

/** Stand-ins the statement is compiled with once, each telling which value goes in its parameter's place. */
const STAND_INS: WindowValues = { scope: '\u0000scope', key: '\u0000key', now: -1, resetsAt: -2, max: -3 };

/**
 * countInWindow's statement: its text depends only on the dialect, so it is built through Kysely once per
 * dialect and then only takes its values. Building this upsert costs several times what SQLite takes to
 * run it, on the path of every public mailbox creation (measured with bench/mailbox-create.mjs).
 */
const countInWindowQuery = compiledPerDialect<WindowRole, { n: number; resets_at: number }>(
  'countInWindow',
  STAND_INS,
  (db, { scope, key, now, resetsAt, max }) =>
    db
      .insertInto('rate_limit_windows')
      .values({ scope: scope as string, key: key as string, n: sql.lit(1), resets_at: resetsAt as number })
      .onConflict((oc) =>
        oc
          .columns(['scope', 'key'])
          .doUpdateSet((eb) => {
            const expired = eb('rate_limit_windows.resets_at', '<=', now as number);
            return {
              n: eb.case().when(expired).then(sql.lit(1)).else(eb('rate_limit_windows.n', '+', sql.lit(1))).end(),
              resets_at: eb.case().when(eb('rate_limit_windows.resets_at', '<=', now as number)).then(resetsAt as number).else(eb.ref('rate_limit_windows.resets_at')).end(),
            };
          })
          .where((eb) => eb.or([eb('rate_limit_windows.n', '<=', max as number), eb('rate_limit_windows.resets_at', '<=', now as number)])),
      )
      .returning(['n', 'resets_at']),
  { constants: false, once: false },
);

/**
 * Counts one request in the window of `(scope, key)`, atomically on every instance: a missing or
 * expired window starts again at 1 (ending at `resetsAt`), a live one under the limit goes up by one.
 * Answers the count and when the window ends, or undefined when the window is live and already over
 * `max`: then nothing is written (a flood of refused requests adds no row versions).
 */
export async function countInWindow(
  db: Executor,
  values: { scope: string; key: string; now: number; resetsAt: number; max: number },
): Promise<{ n: number; resets_at: number } | undefined> {
  const { rows } = await db.executeQuery(countInWindowQuery(db, values));
  const row = rows[0];
  return row && { n: Number(row.n), resets_at: Number(row.resets_at) };
}

/** When the window of `(scope, key)` ends (a refused request's Retry-After), or undefined without one. */
export async function windowEnd(db: Executor, scope: string, key: string): Promise<number | undefined> {
  const row = await db.selectFrom('rate_limit_windows').select('resets_at').where('scope', '=', scope).where('key', '=', key).executeTakeFirst();
  return row?.resets_at;
}

/** Deletes the windows that ended by `now`; answers how many. */
export async function purgeWindows(db: Executor, now: number): Promise<number> {
  const r = await db.deleteFrom('rate_limit_windows').where('resets_at', '<=', now).executeTakeFirst();
  return Number(r.numDeletedRows ?? 0n);
}

/**
 * Takes the lock of one lease key for the rest of the transaction: an upsert locks the row (PostgreSQL)
 * or the database (SQLite) whether it inserts or updates, so the leases of a key are counted and added
 * one transaction after another, on every instance.
 */
export async function lockLeaseKey(tx: Executor, key: string, now: number): Promise<void> {
  await tx
    .insertInto('limit_lease_keys')
    .values({ key, touched_at: now })
    .onConflict((oc) => oc.column('key').doUpdateSet({ touched_at: now }))
    .execute();
}

/** Leases of a key that have not expired at `now`. */
export async function liveLeases(tx: Executor, key: string, now: number): Promise<number> {
  const row = await tx
    .selectFrom('limit_leases')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('key', '=', key)
    .where('expires_at', '>', now)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function insertLease(tx: Executor, rows: { id: string; key: string; instance: string; expires_at: number }[]): Promise<void> {
  await tx.insertInto('limit_leases').values(rows).execute();
}

export async function deleteLease(db: Executor, id: string): Promise<void> {
  await db.deleteFrom('limit_leases').where('id', '=', id).execute();
}

/** An instance's heartbeat: every lease it holds lives until `expiresAt`. */
export async function renewLeases(db: Executor, instance: string, expiresAt: number): Promise<void> {
  await db.updateTable('limit_leases').set({ expires_at: expiresAt }).where('instance', '=', instance).execute();
}

/** An instance stopping gives back every lease it holds. */
export async function deleteInstanceLeases(db: Executor, instance: string): Promise<void> {
  await db.deleteFrom('limit_leases').where('instance', '=', instance).execute();
}

/** Deletes expired leases (a crashed instance's) and lock rows untouched since `keysUpTo`; answers how many rows went. */
export async function purgeLeases(db: Executor, now: number, keysUpTo: number): Promise<number> {
  const leases = await db.deleteFrom('limit_leases').where('expires_at', '<=', now).executeTakeFirst();
  const keys = await db.deleteFrom('limit_lease_keys').where('touched_at', '<=', keysUpTo).executeTakeFirst();
  return Number(leases.numDeletedRows ?? 0n) + Number(keys.numDeletedRows ?? 0n);
}
