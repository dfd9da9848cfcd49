import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { type MessageSummaryRow, SUMMARY } from './mail.repository.js';

/* Arrivals read in order: the live streams' replay and poll (mail-events.ts), waits, and PostgreSQL's notices. */
/**
 * Arrivals in one mailbox after the message `afterId`, oldest first (SSE Last-Event-ID replay). None when
 * that message is gone (deleted or expired): the client then reloads the list, as on a first connect.
 */
export async function messagesAfterId(db: Executor, address: string, afterId: string, limit: number): Promise<MessageSummaryRow[]> {
  return db
    .selectFrom('messages')
    .select(SUMMARY)
    .where('mailbox_address', '=', address)
    .where('seq', '>', (eb) => eb.selectFrom('messages').select('seq').where('mailbox_address', '=', address).where('id', '=', afterId))
    .orderBy('seq')
    .limit(limit)
    .execute();
}

export async function maxMessageSeq(db: Executor): Promise<number> {
  const row = await db.selectFrom('messages').select((eb) => eb.fn.max('seq').as('max')).executeTakeFirst();
  return Number(row?.max ?? 0);
}

/** Arrivals in (afterSeq, upToSeq] in the given mailboxes, oldest first (the SSE poll fallback). */
export async function messagesAfterSeq(
  db: Executor,
  afterSeq: number,
  upToSeq: number,
  addresses: readonly string[],
  limit: number,
): Promise<MessageSummaryRow[]> {
  if (addresses.length === 0) return [];
  return db
    .selectFrom('messages')
    .select(SUMMARY)
    .where('seq', '>', afterSeq)
    .where('seq', '<=', upToSeq)
    .where('mailbox_address', 'in', [...addresses])
    .orderBy('seq')
    .limit(limit)
    .execute();
}

/** PostgreSQL only: queued in the transaction, delivered to every listener when it commits. */
export async function notifyChannel(db: Executor, channel: string, payload: string): Promise<void> {
  await sql`select pg_notify(${channel}, ${payload})`.execute(db);
}

/** The newest copies of a mailbox, newest first: what a wait may answer (MailReader.newestMatching). */
export async function newestMessages(db: Executor, address: string, limit: number): Promise<MessageSummaryRow[]> {
  return db.selectFrom('messages').select(SUMMARY).where('mailbox_address', '=', address).orderBy('seq', 'desc').limit(limit).execute();
}

/**
 * Where a wait's `after` stands in a mailbox: the seq of that copy, or of one no longer there (deleted, expired)
 * the seq of the newest copy before it by id (ids order by creation time), else 0. A wait answers copies above it.
 */
export async function seqOfAfter(db: Executor, address: string, afterId: string): Promise<number> {
  const row = await db
    .selectNoFrom(
      sql<number>`coalesce(
        (select seq from messages where mailbox_address = ${address} and id = ${afterId}),
        (select max(seq) from messages where mailbox_address = ${address} and id < ${afterId}),
        0)`.as('seq'),
    )
    .executeTakeFirst();
  return Number(row?.seq ?? 0);
}
