import { sql } from 'kysely';
import type { Executor } from '../db/database.js';
import type { AttachmentRow, MessageRow } from '../db/schema.js';

export type NewMessage = Omit<MessageRow, 'seq'>;
export type NewAttachment = AttachmentRow;
export type MessageSummaryRow = Pick<
  MessageRow,
  'seq' | 'id' | 'mailbox_address' | 'from_address' | 'from_name' | 'subject' | 'size' | 'attachments_count' | 'received_at'
>;
export type AttachmentMetaRow = Omit<AttachmentRow, 'content' | 'message_seq'>;

const SUMMARY = ['seq', 'id', 'mailbox_address', 'from_address', 'from_name', 'subject', 'size', 'attachments_count', 'received_at'] as const;

/** Inserts one mailbox copy of a message and answers its seq (the key its attachments hang on). */
export async function insertMessage(db: Executor, row: NewMessage): Promise<number> {
  const res = await db.insertInto('messages').values(row).returning('seq').executeTakeFirstOrThrow();
  return Number(res.seq);
}

export async function insertAttachments(db: Executor, rows: readonly NewAttachment[]): Promise<void> {
  if (rows.length === 0) return;
  await db.insertInto('attachments').values([...rows]).execute();
}

/** Newest first by arrival order (seq), which, unlike the id, is strict within one millisecond. */
export async function listMessages(db: Executor, address: string, limit: number, beforeSeq?: number): Promise<MessageSummaryRow[]> {
  let q = db.selectFrom('messages').select(SUMMARY).where('mailbox_address', '=', address);
  if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
  return q.orderBy('seq', 'desc').limit(limit).execute();
}

export async function findMessage(db: Executor, address: string, id: string): Promise<MessageRow | undefined> {
  return db.selectFrom('messages').selectAll().where('mailbox_address', '=', address).where('id', '=', id).executeTakeFirst();
}

export async function listAttachmentMeta(db: Executor, messageSeq: number): Promise<AttachmentMetaRow[]> {
  return db
    .selectFrom('attachments')
    .select(['id', 'position', 'filename', 'content_type', 'content_id', 'size'])
    .where('message_seq', '=', messageSeq)
    .orderBy('position')
    .execute();
}

export async function findAttachment(db: Executor, address: string, messageId: string, attachmentId: string): Promise<AttachmentRow | undefined> {
  return db
    .selectFrom('attachments')
    .innerJoin('messages', 'messages.seq', 'attachments.message_seq')
    .selectAll('attachments')
    .where('messages.mailbox_address', '=', address)
    .where('messages.id', '=', messageId)
    .where('attachments.id', '=', attachmentId)
    .executeTakeFirst();
}

/** Deletes one mailbox's copy (its attachments go by cascade); false when there was none. */
export async function deleteMessage(db: Executor, address: string, id: string): Promise<boolean> {
  const res = await db.deleteFrom('messages').where('mailbox_address', '=', address).where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/**
 * Deletes up to `batch` messages received before `cutoff`; answers how many went. Idempotent, so
 * instances running it at the same time only share the work.
 */
export async function deleteReceivedBefore(db: Executor, cutoff: number, batch: number): Promise<number> {
  const res = await db
    .deleteFrom('messages')
    .where('seq', 'in', (qb) => qb.selectFrom('messages').select('seq').where('received_at', '<', cutoff).orderBy('received_at').limit(batch))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

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
