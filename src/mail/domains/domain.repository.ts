import { sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
import type { MailDomainsTable } from '../../platform/db/schema.js';

export type DomainRow = MailDomainsTable;

/** Every domain, in the order they were added; from after `afterPosition`, at most `limit` when given. */
export async function listDomains(db: Executor, page?: { afterPosition?: number; limit: number }): Promise<DomainRow[]> {
  let q = db.selectFrom('mail_domains').selectAll().orderBy('position');
  if (page?.afterPosition !== undefined) q = q.where('position', '>', page.afterPosition);
  if (page) q = q.limit(page.limit);
  return q.execute();
}

export async function findDomains(db: Executor, domains: readonly string[]): Promise<DomainRow[]> {
  if (domains.length === 0) return [];
  return db.selectFrom('mail_domains').selectAll().where('domain', 'in', domains).execute();
}

/**
 * The domain a new mailbox goes to: `domain` if it is active (and public, for an anonymous client), or the
 * first active public one when none is named (a non-public domain is only ever named, never picked);
 * undefined when there is none. On PostgreSQL the row is locked FOR KEY SHARE until the transaction ends
 * (what a foreign key check takes), so a concurrent delete of the domain waits for the mailbox and then
 * sees it (deleteDomainWithoutMailboxes): a domain is never deleted under a mailbox being created on it.
 */
export async function activeDomainForNewMailbox(tx: Executor, domain: string | null, anonymous: boolean): Promise<string | undefined> {
  let q = tx.selectFrom('mail_domains').select('domain').where('active', '=', 1);
  q = domain === null ? q.where('public', '=', 1).orderBy('position').limit(1) : q.where('domain', '=', domain);
  if (domain !== null && anonymous) q = q.where('public', '=', 1);
  if (dialectOf(tx) === 'postgres') q = q.forKeyShare();
  return (await q.executeTakeFirst())?.domain;
}

/** The domain if it is active and catches all, locked like activeDomainForNewMailbox's. */
export async function catchAllDomain(tx: Executor, domain: string): Promise<string | undefined> {
  let q = tx.selectFrom('mail_domains').select('domain').where('domain', '=', domain).where('active', '=', 1).where('catch_all', '=', 1);
  if (dialectOf(tx) === 'postgres') q = q.forKeyShare();
  return (await q.executeTakeFirst())?.domain;
}

/** Adds a domain after every other; false when it exists. */
export async function insertDomain(tx: Executor, row: Omit<DomainRow, 'position'>): Promise<boolean> {
  const res = await tx
    .insertInto('mail_domains')
    .values((eb) => ({
      ...row,
      position: eb.selectFrom('mail_domains').select(sql<number>`coalesce(max(position), 0) + 1`.as('p')),
    }))
    .onConflict((oc) => oc.doNothing())
    .executeTakeFirst();
  return Number(res.numInsertedOrUpdatedRows ?? 0n) > 0;
}

/** Seeds the list when it is empty (the first start): true when it did. */
export async function seedDomains(tx: Executor, domains: readonly string[], now: number): Promise<boolean> {
  const any = await tx.selectFrom('mail_domains').select('domain').limit(1).executeTakeFirst();
  if (any) return false;
  await tx
    .insertInto('mail_domains')
    .values(domains.map((domain, i) => ({ domain, position: i + 1, active: 1, catch_all: 0, public: 1, created_at: now })))
    .onConflict((oc) => oc.doNothing())
    .execute();
  return true;
}

export async function updateDomain(tx: Executor, domain: string, set: Partial<Pick<DomainRow, 'active' | 'catch_all' | 'public'>>): Promise<DomainRow | undefined> {
  if (Object.keys(set).length === 0) return tx.selectFrom('mail_domains').selectAll().where('domain', '=', domain).executeTakeFirst();
  return tx.updateTable('mail_domains').set(set).where('domain', '=', domain).returningAll().executeTakeFirst();
}

/**
 * Deletes a domain that has no mailbox: 'deleted', 'missing', or 'has_mailboxes'. The row is locked first
 * (PostgreSQL), which waits for every mailbox creation that holds it (activeDomainForNewMailbox); the check
 * for mailboxes then runs with a fresh snapshot and sees them.
 */
export async function deleteDomainWithoutMailboxes(tx: Executor, domain: string): Promise<'deleted' | 'missing' | 'has_mailboxes'> {
  let lock = tx.selectFrom('mail_domains').select('domain').where('domain', '=', domain);
  if (dialectOf(tx) === 'postgres') lock = lock.forUpdate();
  if (!(await lock.executeTakeFirst())) return 'missing';
  const mailbox = await tx.selectFrom('mailboxes').select('address').where('domain', '=', domain).limit(1).executeTakeFirst();
  if (mailbox) return 'has_mailboxes';
  await tx.deleteFrom('mail_domains').where('domain', '=', domain).execute();
  return 'deleted';
}
