import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import { nextTurn } from '../../platform/loop-slices.js';
import type { AttachmentRow, HtmlState, MessageContentRow, MessageRow } from '../../platform/db/schema.js';

export type NewMessage = Omit<MessageRow, 'seq'>;
export type NewContent = MessageContentRow;
export type NewAttachment = AttachmentRow;
export type MessageSummaryRow = Pick<
  MessageRow,
  'seq' | 'id' | 'mailbox_address' | 'from_address' | 'from_name' | 'subject' | 'size' | 'attachments_count' | 'received_at' | 'code' | 'seen'
>;
export type FullMessageRow = MessageRow & Pick<MessageContentRow, 'text' | 'html' | 'html_state' | 'headers' | 'msgid' | 'source_html' | 'links' | 'verification_link'>;
export type AttachmentMetaRow = Omit<AttachmentRow, 'content' | 'message_id' | 'copy_seq'>;

/** The columns of a message in a list (MessageSummaryRow). */
export const SUMMARY = ['seq', 'id', 'mailbox_address', 'from_address', 'from_name', 'subject', 'size', 'attachments_count', 'received_at', 'code', 'seen'] as const;

// Both databases cap the parameters of one statement (SQLite 32766, PostgreSQL 65535); one statement
// also stays under a few MB so a write never holds SQLite's (synchronous) connection for long.
const ATTACHMENT_ROWS_PER_STATEMENT = 50;
const ATTACHMENT_BYTES_PER_STATEMENT = 1024 * 1024;

/**
 * After a statement that wrote this many bytes, one turn of the event loop before the next: better-sqlite3
 * writes on the main thread (about 10 ms per MB here), so an 8 MB message written in one go held it for
 * 100–180 ms (hostile-content.test.ts, case (e)). The transaction keeps the connection meanwhile; other
 * requests that need no database write are answered.
 */
const YIELD_AFTER_BYTES = 256 * 1024;

/** A source is stored in chunks of this size: the first in the content row, the rest in message_source_chunks. */
export const SOURCE_CHUNK_BYTES = 1024 * 1024;

/**
 * The shared content of one message id (`refs` is the number of mailbox copies about to be inserted)
 * with its source, one chunk per statement, so no single write holds SQLite's connection for long.
 */
export async function insertContent(db: Executor, row: Omit<NewContent, 'source'>, source: Buffer | null): Promise<void> {
  await db
    .insertInto('message_contents')
    .values({ ...row, source: source ? source.subarray(0, SOURCE_CHUNK_BYTES) : null })
    .execute();
  if (!source) return;
  for (let position = 1; position * SOURCE_CHUNK_BYTES < source.length; position++) {
    await nextTurn();
    const bytes = source.subarray(position * SOURCE_CHUNK_BYTES, (position + 1) * SOURCE_CHUNK_BYTES);
    await db.insertInto('message_source_chunks').values({ message_id: row.id, position, bytes }).execute();
  }
  if (source.length >= YIELD_AFTER_BYTES) await nextTurn();
}

/** Inserts one mailbox copy of a message and answers its seq. */
export async function insertMessage(db: Executor, row: NewMessage): Promise<number> {
  const res = await db.insertInto('messages').values(row).returning('seq').executeTakeFirstOrThrow();
  return Number(res.seq);
}

/** In statements small enough for both databases' parameter limits, and a few MB at most each. */
export async function insertAttachments(db: Executor, rows: readonly NewAttachment[]): Promise<void> {
  let batch: NewAttachment[] = [];
  let bytes = 0;
  const flush = async () => {
    if (batch.length > 0) await db.insertInto('message_attachments').values(batch).execute();
    if (bytes >= YIELD_AFTER_BYTES) await nextTurn();
    batch = [];
    bytes = 0;
  };
  for (const row of rows) {
    if (batch.length >= ATTACHMENT_ROWS_PER_STATEMENT || (batch.length > 0 && bytes + row.content.length > ATTACHMENT_BYTES_PER_STATEMENT)) await flush();
    batch.push(row);
    bytes += row.content.length;
  }
  await flush();
}

/** Newest first by arrival order (seq), which, unlike the id, is strict within one millisecond. */
export async function listMessages(db: Executor, address: string, limit: number, beforeSeq?: number): Promise<MessageSummaryRow[]> {
  let q = db.selectFrom('messages').select(SUMMARY).where('mailbox_address', '=', address);
  if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
  return q.orderBy('seq', 'desc').limit(limit).execute();
}

export async function findMessage(db: Executor, address: string, id: string): Promise<FullMessageRow | undefined> {
  return db
    .selectFrom('messages')
    .innerJoin('message_contents', 'message_contents.id', 'messages.id')
    .selectAll('messages')
    .select([
      'message_contents.links',
      'message_contents.verification_link',
      'message_contents.text',
      'message_contents.html',
      'message_contents.html_state',
      'message_contents.headers',
      'message_contents.msgid',
      'message_contents.source_html',
    ])
    .where('messages.mailbox_address', '=', address)
    .where('messages.id', '=', id)
    .executeTakeFirst();
}

/** Sets one copy's seen flag; false when this mailbox has no such message. */
export async function setSeen(db: Executor, address: string, id: string, seen: boolean): Promise<boolean> {
  const res = await db
    .updateTable('messages')
    .set({ seen: seen ? 1 : 0 })
    .where('mailbox_address', '=', address)
    .where('id', '=', id)
    .executeTakeFirst();
  return Number(res.numUpdatedRows) > 0;
}

/** Marks one copy read unless it is already (no write then). */
export async function markSeen(db: Executor, address: string, id: string): Promise<void> {
  await db.updateTable('messages').set({ seen: 1 }).where('mailbox_address', '=', address).where('id', '=', id).where('seen', '=', 0).execute();
}

/**
 * The stored raw source of one copy's message, read a chunk per statement: undefined when this mailbox
 * has no such message; null when it is composed from the parts (POST /api/inbound, or stored before 0030).
 */
export async function findSource(db: Executor, address: string, id: string): Promise<Buffer | null | undefined> {
  const row = await db
    .selectFrom('messages')
    .innerJoin('message_contents', 'message_contents.id', 'messages.id')
    .select('message_contents.source')
    .where('messages.mailbox_address', '=', address)
    .where('messages.id', '=', id)
    .executeTakeFirst();
  if (!row) return undefined;
  if (!row.source) return null;
  // Both drivers answer Buffers: kept as they are, not copied again before the one concat.
  const asBuffer = (bytes: Uint8Array) => (Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes));
  const chunks = [asBuffer(row.source)];
  for (let position = 1; ; position++) {
    // A turn of the event loop between MB-sized reads, as between writes (YIELD_AFTER_BYTES).
    await nextTurn();
    const next = await db
      .selectFrom('message_source_chunks')
      .select('bytes')
      .where('message_id', '=', id)
      .where('position', '=', position)
      .executeTakeFirst();
    if (!next) break;
    chunks.push(asBuffer(next.bytes));
  }
  return Buffer.concat(chunks);
}

/**
 * Every attachment of one copy with its bytes, in order (composing the source of a message that has none
 * stored: /api/inbound's, and those stored before 0030). The bytes are read in slices, like one
 * attachment's (attachmentContent), never as one multi-megabyte row.
 */
export async function listAttachmentsWithContent(db: Executor, messageId: string, copySeq: number): Promise<AttachmentRow[]> {
  const rows = await db
    .selectFrom('message_attachments')
    .select(['id', 'message_id', 'copy_seq', 'position', 'filename', 'content_type', 'content_id', 'size'])
    .where('message_id', '=', messageId)
    .where((eb) => eb.or([eb('copy_seq', 'is', null), eb('copy_seq', '=', copySeq)]))
    .orderBy('position')
    .execute();
  const withContent: AttachmentRow[] = [];
  for (const row of rows) withContent.push({ ...row, content: await attachmentContent(db, row.id) });
  return withContent;
}

/** The attachments one copy shows: the shared ones, and those stored before 0007 for that copy. */
export async function listAttachmentMeta(db: Executor, messageId: string, copySeq: number): Promise<AttachmentMetaRow[]> {
  return db
    .selectFrom('message_attachments')
    .select(['id', 'position', 'filename', 'content_type', 'content_id', 'size'])
    .where('message_id', '=', messageId)
    .where((eb) => eb.or([eb('copy_seq', 'is', null), eb('copy_seq', '=', copySeq)]))
    .orderBy('position')
    .execute();
}

export async function findAttachment(db: Executor, address: string, messageId: string, attachmentId: string): Promise<AttachmentRow | undefined> {
  const meta = await db
    .selectFrom('message_attachments as a')
    .innerJoin('messages as m', 'm.id', 'a.message_id')
    .select(['a.id', 'a.message_id', 'a.copy_seq', 'a.position', 'a.filename', 'a.content_type', 'a.content_id', 'a.size'])
    .where('m.mailbox_address', '=', address)
    .where('m.id', '=', messageId)
    .where('a.id', '=', attachmentId)
    .where((eb) => eb.or([eb('a.copy_seq', 'is', null), eb('a.copy_seq', '=', eb.ref('m.seq'))]))
    .executeTakeFirst();
  if (!meta) return undefined;
  return { ...meta, content: await attachmentContent(db, meta.id) };
}

/**
 * An attachment's bytes in slices of ATTACHMENT_BYTES_PER_STATEMENT, a turn of the event loop between
 * them: the drivers decode what they read on the main thread, and PostgreSQL's bytea comes as hex text
 * (one 6 MB row held the event loop 74-109 ms; hostile-content.test.ts, case (e)).
 */
async function attachmentContent(db: Executor, id: string): Promise<Buffer> {
  const slices: Buffer[] = [];
  for (let start = 0; ; start += ATTACHMENT_BYTES_PER_STATEMENT) {
    if (start > 0) await nextTurn();
    // substr counts from 1 in both databases, and takes bytes of a blob or bytea
    const row = await db
      .selectFrom('message_attachments')
      .select(sql<Uint8Array | null>`substr(content, ${start + 1}, ${ATTACHMENT_BYTES_PER_STATEMENT})`.as('bytes'))
      .where('id', '=', id)
      .executeTakeFirst();
    // SQLite's substr of an empty blob is NULL
    const bytes = row?.bytes ? (Buffer.isBuffer(row.bytes) ? row.bytes : Buffer.from(row.bytes)) : Buffer.alloc(0);
    slices.push(bytes);
    // A short slice is the last (the stored size is not trusted to end the loop)
    if (bytes.length < ATTACHMENT_BYTES_PER_STATEMENT) break;
  }
  return slices.length === 1 ? slices[0]! : Buffer.concat(slices);
}

/** Stores the HTML of a message stored before 0007 once it has been sanitised (first read). */
export async function updateHtml(db: Executor, messageId: string, html: string | null, state: HtmlState): Promise<void> {
  await db.updateTable('message_contents').set({ html, html_state: state }).where('id', '=', messageId).where('html_state', '=', 'raw').execute();
}
