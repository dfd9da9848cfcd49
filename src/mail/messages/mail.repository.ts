import { sql } from 'kysely';
import type { Dialect, Executor } from '../../platform/db/database.js';
import { type LoopSlices, nextTurn } from '../../platform/loop-slices.js';
import { keyedDocument, mailboxSearchKey, type SearchTerm } from './search-text.js';
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

const SUMMARY = ['seq', 'id', 'mailbox_address', 'from_address', 'from_name', 'subject', 'size', 'attachments_count', 'received_at', 'code', 'seen'] as const;

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

/**
 * Copies that were deleted give up their share of the content: `refs` goes down by the number of
 * copies gone, and a content nobody shares any more is deleted with its attachments (cascade).
 */
export async function releaseContents(db: Executor, deletedIds: readonly string[], slices?: LoopSlices): Promise<void> {
  const counts = new Map<string, number>();
  for (const id of deletedIds) counts.set(id, (counts.get(id) ?? 0) + 1);
  // In id order: every transaction takes content row locks in the same order (no deadlock between two
  // that release the same shared contents).
  for (const [id, n] of [...counts].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) {
    await slices?.next();
    // Usually the last copy went: one statement.
    const gone = await db.deleteFrom('message_contents').where('id', '=', id).where('refs', '<=', n).executeTakeFirst();
    if (Number(gone.numDeletedRows) > 0) continue;
    // Shared: the UPDATE locks the row (PostgreSQL), so of two copies released at once the second sees the
    // first's decrement and deletes at zero.
    const left = await db
      .updateTable('message_contents')
      .set((eb) => ({ refs: eb('refs', '-', n) }))
      .where('id', '=', id)
      .returning('refs')
      .executeTakeFirst();
    if (left && Number(left.refs) <= 0) await db.deleteFrom('message_contents').where('id', '=', id).execute();
  }
}

/** Deletes one mailbox's copy (the content goes with the last copy); false when there was none. Run in a transaction. */
export async function deleteMessage(db: Executor, address: string, id: string): Promise<boolean> {
  const gone = await db.deleteFrom('messages').where('mailbox_address', '=', address).where('id', '=', id).returning('id').execute();
  await releaseContents(
    db,
    gone.map((r) => r.id),
  );
  return gone.length > 0;
}

/**
 * Deletes up to `batch` messages received before `cutoff` and the contents no copy shares any more;
 * answers how many copies went. Run in a transaction. Idempotent, so instances running it at the same
 * time only share the work.
 */
export async function deleteReceivedBefore(db: Executor, cutoff: number, batch: number, slices?: LoopSlices): Promise<number> {
  const gone = await db
    .deleteFrom('messages')
    .where('seq', 'in', (qb) => qb.selectFrom('messages').select('seq').where('received_at', '<', cutoff).orderBy('received_at').limit(batch))
    .returning('id')
    .execute();
  await releaseContents(
    db,
    gone.map((r) => r.id),
    slices,
  );
  return gone.length;
}

/**
 * The mailbox quota: deletes the copies of `address` beyond the newest `keep` and answers their
 * message ids, whose contents the caller releases (releaseContents) once all mailbox locks are held
 * and every mailbox is trimmed. Run in the intake's transaction, after lockMailboxes.
 */
export async function trimMailbox(db: Executor, address: string, keep: number): Promise<string[]> {
  const gone = await db
    .deleteFrom('messages')
    .where('mailbox_address', '=', address)
    .where('seq', '<', (eb) =>
      eb.selectFrom('messages').select('seq').where('mailbox_address', '=', address).orderBy('seq', 'desc').limit(1).offset(keep - 1),
    )
    .returning('id')
    .execute();
  return gone.map((r) => r.id);
}

/**
 * The byte quota (docs/mailtm.md#the-quota) of each mailbox (null: none), read one at a time in address order. With
 * `lock` (PostgreSQL) each row is also locked until commit: that serialises the intakes of a mailbox, so
 * both of its quotas hold under concurrency, and two intakes to overlapping mailboxes wait for each other
 * at the first shared mailbox, never in a cycle. Run before any other write of the intake.
 */
export async function lockMailboxes(db: Executor, addresses: readonly string[], lock: boolean, slices?: LoopSlices): Promise<MailboxQuota[]> {
  const quotas: MailboxQuota[] = [];
  for (const address of [...addresses].sort()) {
    await slices?.next();
    const row = await db
      .selectFrom('mailboxes')
      .select(['address', 'max_bytes', 'bytes_bound'])
      .where('address', '=', address)
      .$if(lock, (q) => q.forUpdate())
      .executeTakeFirst();
    if (row) quotas.push({ address: row.address, maxBytes: nullableNumber(row.max_bytes), bytesBound: nullableNumber(row.bytes_bound) });
  }
  return quotas;
}

export interface MailboxQuota {
  readonly address: string;
  /** The byte quota; null: none. */
  readonly maxBytes: number | null;
  /** Never below the bytes its messages hold (null: not kept, they must be summed). */
  readonly bytesBound: number | null;
}

function nullableNumber(value: number | null): number | null {
  return value === null ? null : Number(value);
}

/** The new bound of a mailbox with a quota; run in the intake's transaction, under lockMailboxes. */
export async function setBytesBound(db: Executor, address: string, bytes: number): Promise<void> {
  await db.updateTable('mailboxes').set({ bytes_bound: bytes }).where('address', '=', address).execute();
}

/**
 * The bytes each mailbox's messages hold: the sum of their `size`, the measure of the byte quota and of
 * a mail.tm account's `used`. Mailboxes without messages are absent (0).
 */
export async function storedBytes(db: Executor, addresses: readonly string[]): Promise<Map<string, number>> {
  if (addresses.length === 0) return new Map();
  const rows = await db
    .selectFrom('messages')
    .select((eb) => ['mailbox_address', eb.fn.sum<number>('size').as('bytes')])
    .where('mailbox_address', 'in', [...addresses])
    .groupBy('mailbox_address')
    .execute();
  return new Map(rows.map((r) => [r.mailbox_address, Number(r.bytes)]));
}

/**
 * The byte quota: deletes the copies of `address` beyond the newest ones whose sizes add up to at most
 * `keepBytes` (the oldest go first) and answers their message ids, whose contents the caller releases,
 * and the bytes they held. It sums the sizes as they are when it runs, so a copy deleted meanwhile never
 * leaves the mailbox over.
 */
export async function trimMailboxBytes(db: Executor, address: string, keepBytes: number): Promise<{ ids: string[]; bytes: number }> {
  const gone = await db
    .deleteFrom('messages')
    .where('mailbox_address', '=', address)
    .where('seq', 'in', (eb) =>
      eb
        .selectFrom((inner) =>
          inner
            .selectFrom('messages')
            .select((w) => ['seq', w.fn.sum<number>('size').over((o) => o.orderBy('seq', 'desc')).as('newer_bytes')])
            .where('mailbox_address', '=', address)
            .as('copies'),
        )
        .select('copies.seq')
        .where('copies.newer_bytes', '>', keepBytes),
    )
    .returning(['id', 'size'])
    .execute();
  return { ids: gone.map((r) => r.id), bytes: gone.reduce((n, r) => n + Number(r.size), 0) };
}

/** Rows and bytes of stored attachment content (tests and operators: stored once per message). */
export async function attachmentStorage(db: Executor): Promise<{ rows: number; bytes: number }> {
  const row = await db
    .selectFrom('message_attachments')
    .select((eb) => [eb.fn.countAll().as('rows'), eb.fn.sum('size').as('bytes')])
    .executeTakeFirst();
  return { rows: Number(row?.rows ?? 0), bytes: Number(row?.bytes ?? 0) };
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

/**
 * The search row of one copy, in the intake's transaction; it goes with the copy. SQLite (migration 0100): its
 * words glued to its mailbox's key (search-text.ts, mailboxSearchKey). PostgreSQL (0081): a tsvector.
 */
export async function insertSearchDocument(db: Executor, dialect: Dialect, seq: number, address: string, document: string): Promise<void> {
  if (dialect === 'sqlite') await sql`insert into message_search (rowid, document) values (${seq}, ${keyedDocument(mailboxSearchKey(address), document)})`.execute(db);
  else await sql`insert into message_search (seq, document) values (${seq}, to_tsvector('simple', ${document}))`.execute(db);
}

/**
 * The query of mailbox search in the database's full-text language: every term must match; a one-word
 * term as a prefix, a run of CJK characters as a phrase. Terms hold letters, digits and marks only
 * (search-text.ts), so quoting them is enough.
 */
function fullTextQuery(dialect: Dialect, address: string, terms: readonly SearchTerm[]): string {
  if (dialect === 'sqlite') {
    // Each word glued to the mailbox's key, as indexed: the terms read that mailbox's index entries only.
    const key = mailboxSearchKey(address);
    return terms.map((t) => `"${t.tokens.map((k) => key + k).join(' ')}"${t.prefix ? '*' : ''}`).join(' AND ');
  }
  return terms.map((t) => (t.prefix ? `'${t.tokens[0]}':*` : `(${t.tokens.map((k) => `'${k}'`).join(' <-> ')})`)).join(' & ');
}

/**
 * A mailbox's copies that match every term, newest first (seq), a page at a time like listMessages. On SQLite
 * the full-text part reads only the mailbox's own index entries (its key), so its cost is what the mailbox
 * holds, not what svc holds (test/integration/data-size.test.ts, bench/data-size.mjs).
 */
export async function searchMessages(
  db: Executor,
  dialect: Dialect,
  address: string,
  terms: readonly SearchTerm[],
  limit: number,
  beforeSeq?: number,
): Promise<MessageSummaryRow[]> {
  const query = fullTextQuery(dialect, address, terms);
  let q = db.selectFrom('messages').select(SUMMARY).where('mailbox_address', '=', address);
  q =
    dialect === 'sqlite'
      ? q.where(sql<boolean>`seq in (select rowid from message_search where message_search match ${query})`)
      : q.where(sql<boolean>`exists (select 1 from message_search s where s.seq = messages.seq and s.document @@ to_tsquery('simple', ${query}))`);
  if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
  return q.orderBy('seq', 'desc').limit(limit).execute();
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
