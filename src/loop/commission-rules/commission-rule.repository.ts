import type { Executor } from '../../platform/db/database.js';
import type { CommissionRule } from '../../platform/db/schema.js';
import { given, newestFirst, type PageCursor } from '../../platform/db/keyset.js';

export async function insertRule(db: Executor, row: CommissionRule): Promise<void> {
  await db.insertInto('commission_rules').values(row).execute();
}

export async function findRule(db: Executor, id: string): Promise<CommissionRule | undefined> {
  return db.selectFrom('commission_rules').selectAll().where('id', '=', id).executeTakeFirst();
}

export async function replaceRule(db: Executor, row: CommissionRule): Promise<boolean> {
  const { id, created_at: _created, ...rest } = row;
  const res = await db.updateTable('commission_rules').set(rest).where('id', '=', id).executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

export async function deleteRule(db: Executor, id: string): Promise<boolean> {
  const res = await db.deleteFrom('commission_rules').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Newest first; fetches limit + 1 rows so the caller knows whether another page follows. */
export async function listRules(db: Executor, f: { refCode?: string; after?: PageCursor; limit: number }): Promise<CommissionRule[]> {
  const q = db
    .selectFrom('commission_rules')
    .selectAll()
    .where((eb) => eb.and(given({ ref_code: f.refCode })));
  return newestFirst(q, f, 'id').execute();
}

/** The flat amounts of every rule (to rescale them to another currency's minor unit). */
export async function flatRules(db: Executor): Promise<{ id: string; flat_cents: number }[]> {
  const rows = await db.selectFrom('commission_rules').select(['id', 'flat_cents']).where('flat_cents', 'is not', null).execute();
  return rows.map((r) => ({ id: r.id, flat_cents: Number(r.flat_cents) }));
}

export async function setRuleFlat(db: Executor, id: string, flatMinor: number): Promise<void> {
  await db.updateTable('commission_rules').set({ flat_cents: flatMinor }).where('id', '=', id).execute();
}
