import { createHash } from 'node:crypto';
import { toIso } from '../../platform/clock.js';
import { isFollowableUrl } from '../../platform/safe-url.js';
import { type Db, type Dialect, inTransaction } from '../../platform/db/database.js';
import { nextTurn } from '../../platform/loop-slices.js';
import { decodeKey, keysetPage, type Page } from '../../platform/db/keyset.js';
import type { Mailbox } from '../../platform/db/schema.js';
import { NotFoundError, UnauthorizedError } from '../../platform/errors.js';
import { mailboxTokenMatches } from '../mailboxes/mailbox-token.js';
import { mailboxAt as findMailbox } from '../mailboxes/mailbox.service.js';
import type { ContentPool } from './content-pool.js';
import { blockedRemoteImages, mailHtmlDocument } from './mail-html.js';
import { findAttachment, findMessage, findSource, listAttachmentMeta, listAttachmentsWithContent, listMessages, markSeen, type MessageSummaryRow, setSeen, } from './mail.repository.js';
import { deleteMessage, storedBytes } from './mail-retention.repository.js';
import { newestMessages, seqOfAfter } from './mail-feed.repository.js';
import { searchMessages } from './mail-search.repository.js';
import { parseStoredHeaders } from './mail-source.js';
import { sourceParts, StoredContent } from './stored-content.js';
import { searchTerms } from './search-text.js';

export interface MessageSummary {
  id: string;
  from: string | null;
  from_name: string | null;
  subject: string | null;
  received_at: string;
  size: number;
  attachments_count: number;
  seen: boolean;
  code: string | null;
}

export interface AttachmentDownload {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

/** A wait answers from the newest this many messages after its `after` (filters applied to them). */
const WAIT_LOOKBACK = 500;

function summaryOf(r: MessageSummaryRow): MessageSummary {
  return {
    id: r.id,
    from: r.from_address,
    from_name: r.from_name,
    subject: r.subject,
    received_at: toIso(r.received_at),
    size: r.size,
    attachments_count: r.attachments_count,
    seen: Number(r.seen) !== 0,
    code: r.code,
  };
}

// Compared against when a mailbox does not exist, so a miss costs the same as a wrong token.
const DUMMY_HASH = createHash('sha256').update('no-such-mailbox').digest('hex');

/**
 * Reading a mailbox's messages: with its token (public routes) or the API key, one by one, HTML,
 * attachments, deletion. A message's first read sanitises its HTML, in the content pool, and stores it (stored-content.ts).
 */
export class MailReader {
  /** The pending read of each mailbox's newest copies that waits share (newestForWaits). */
  private readonly waitReads = new Map<string, Promise<MessageSummaryRow[]>>();
  /** The HTML and headers of stored messages, made in the content pool. */
  private readonly stored: StoredContent;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly content: ContentPool,
  ) {
    this.stored = new StoredContent(db, content);
  }

  /**
   * The public reading routes: the mailbox token, compared in constant time. An unknown mailbox also
   * answers 401 (not 404), so the public routes are no oracle for which addresses exist.
   */
  async authorizeToken(address: string, token: string | undefined): Promise<Mailbox> {
    const mailbox = await findMailbox(this.db, address);
    const ok = mailboxTokenMatches(token, mailbox?.token_hash ?? DUMMY_HASH);
    if (!mailbox || !ok) throw new UnauthorizedError('Missing or wrong mailbox token');
    return mailbox;
  }

  /** The API-key routes: the key holder may know which mailboxes exist, so a miss is 404. */
  async getMailbox(address: string): Promise<Mailbox> {
    const mailbox = await findMailbox(this.db, address);
    if (!mailbox) throw new NotFoundError('mailbox_not_found', 'No such mailbox');
    return mailbox;
  }

  /** The bytes the mailbox's messages hold, as its byte quota counts them (docs/mailtm.md#the-quota: a mail.tm account's `used`). */
  async storedBytes(mailbox: Mailbox): Promise<number> {
    return (await storedBytes(this.db, [mailbox.address])).get(mailbox.address) ?? 0;
  }

  /**
   * Newest first by arrival order (seq); the cursor is the seq of the last message shown. With `q`, only the
   * messages whose subject, sender or text hold every word of it (search-text.ts), in any order.
   */
  async list(mailbox: Mailbox, limit: number, cursor?: string, q?: string): Promise<Page<MessageSummary>> {
    const beforeSeq = cursor ? decodeKey(cursor, ['number'] as const, 'messages')[0] : undefined;
    const terms = q === undefined ? [] : searchTerms(q);
    const rows =
      terms.length > 0
        ? await searchMessages(this.db, this.dialect, mailbox.address, terms, limit + 1, beforeSeq)
        : await listMessages(this.db, mailbox.address, limit + 1, beforeSeq);
    return keysetPage(rows, limit, (r) => [r.seq], summaryOf, 'messages');
  }

  /**
   * The newest message of the mailbox after `afterId` (any when null) that passes `matches`, read as by `read`,
   * or null. Looks at the newest WAIT_LOOKBACK after `afterId`.
   */
  async newestMatching(mailbox: Mailbox, afterId: string | null, matches: (m: MessageSummary) => boolean) {
    const rows = await this.newestForWaits(mailbox.address);
    let above = 0;
    if (afterId !== null) {
      // Usually the copy the client saw last is among the newest: placed without a query.
      const seen = rows.find((r) => r.id === afterId);
      above = seen ? Number(seen.seq) : await seqOfAfter(this.db, mailbox.address, afterId);
    }
    // The newest WAIT_LOOKBACK above `afterId` are the newest WAIT_LOOKBACK's part above it (both newest first).
    const found = rows.find((r) => Number(r.seq) > above && matches(summaryOf(r)));
    return found ? this.read(mailbox, found.id) : null;
  }

  /**
   * The newest WAIT_LOOKBACK copies of a mailbox, read once for every wait that looks in the same turn
   * (docs/architecture.md#work-that-grows-with-stored-data): an arrival wakes all of a mailbox's waits at once,
   * and before this each re-read the mailbox. A read starts one turn after its first asker and takes no askers
   * once started, so a wait woken by an arrival always gets a read begun after that arrival's commit.
   */
  private newestForWaits(address: string): Promise<MessageSummaryRow[]> {
    let read = this.waitReads.get(address);
    if (!read) {
      read = nextTurn().then(() => {
        this.waitReads.delete(address);
        return newestMessages(this.db, address, WAIT_LOOKBACK);
      });
      this.waitReads.set(address, read);
    }
    return read;
  }

  /**
   * One message. Reading it marks it read in this mailbox (docs/api.md#seen-and-source: unread until read; mail.tm
   * clients likewise see `seen` once they fetched a message), so the answer says `seen: true`;
   * `markRead: false` reads it as it is (the answer of PATCH).
   */
  async read(mailbox: Mailbox, id: string, markRead = true) {
    const row = await this.getMessageRow(mailbox, id);
    if (markRead && Number(row.seen) === 0) await markSeen(this.db, mailbox.address, id);
    const attachments = await listAttachmentMeta(this.db, row.id, row.seq);
    const html = await this.stored.storedHtml(mailbox, row, attachments);
    return {
      id: row.id,
      mailbox: row.mailbox_address,
      from: row.from_address,
      from_name: row.from_name,
      to: row.to_header,
      subject: row.subject,
      received_at: toIso(row.received_at),
      size: row.size,
      attachments_count: row.attachments_count,
      seen: markRead || Number(row.seen) !== 0,
      code: row.code,
      // Filtered again as read: links stored before docs/api.md#links left out inward hosts (migration 0080 kept every http(s) link) may point inward.
      links: row.links ? (JSON.parse(row.links) as string[]).filter(isFollowableUrl) : [],
      verification_link: row.verification_link !== null && isFollowableUrl(row.verification_link) ? row.verification_link : null,
      text: row.text,
      html: html.html,
      remote_images: blockedRemoteImages(html.html),
      html_dropped: html.state === 'dropped',
      attachments: attachments.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, size: a.size })),
      // Stored at intake; a message stored without them (before 0030, or its intake job over its limit) gets its composed source's.
      headers: row.headers ? parseStoredHeaders(row.headers) : await this.stored.composedHeaders(mailbox, row, attachments),
    };
  }

  /** The content id (inline or attached) of each of a message's attachments, by attachment id; none when the message is gone. */
  async attachmentContentIds(mailbox: Mailbox, id: string): Promise<Map<string, string | null>> {
    const row = await findMessage(this.db, mailbox.address, id);
    const meta = row ? await listAttachmentMeta(this.db, row.id, row.seq) : [];
    return new Map(meta.map((a) => [a.id, a.content_id]));
  }

  /** PATCH: marks one message read or unread in this mailbox and answers it (not marking it read again). */
  async setSeen(mailbox: Mailbox, id: string, seen: boolean) {
    if (!(await setSeen(this.db, mailbox.address, id, seen))) throw new NotFoundError('not_found', 'No such message');
    return this.read(mailbox, id, false);
  }

  /**
   * The raw RFC 822 source: the SMTP bytes as stored at intake, or composed from the stored parts (the
   * parts of /api/inbound with the HTML as given; the same bytes on every read). A message stored before
   * sources were kept gets its own composed the same way, from its sanitised HTML.
   */
  async source(mailbox: Mailbox, id: string): Promise<Buffer> {
    const stored = await findSource(this.db, mailbox.address, id);
    if (stored === undefined) throw new NotFoundError('not_found', 'No such message');
    if (stored) return stored;
    const row = await this.getMessageRow(mailbox, id);
    const attachments = await listAttachmentsWithContent(this.db, row.id, row.seq);
    return this.content.compose(sourceParts(mailbox, row, attachments));
  }

  /**
   * The sanitised HTML as a whole document, for a sandboxed iframe; with `showRemoteImages` (the reader
   * allowed them for this message) its remote images get their sources back.
   */
  async htmlDocument(mailbox: Mailbox, id: string, showRemoteImages = false): Promise<string> {
    const row = await this.getMessageRow(mailbox, id);
    if (row.html === null) return mailHtmlDocument('');
    const html = await this.stored.storedHtml(mailbox, row, row.html_state === 'raw' ? await listAttachmentMeta(this.db, row.id, row.seq) : []);
    const body = html.html ?? '';
    return mailHtmlDocument(showRemoteImages ? await this.stored.withRemoteImages(body) : body);
  }

  async attachment(mailbox: Mailbox, messageId: string, attachmentId: string): Promise<AttachmentDownload> {
    const row = await findAttachment(this.db, mailbox.address, messageId, attachmentId);
    if (!row) throw new NotFoundError('not_found', 'No such attachment');
    return { filename: row.filename, contentType: row.content_type, content: Buffer.from(row.content) };
  }

  /** Deletes this mailbox's copy only; the content (attachments included) goes with the last copy. */
  async remove(mailbox: Mailbox, id: string): Promise<void> {
    if (!(await inTransaction(this.db, (tx) => deleteMessage(tx, mailbox.address, id)))) throw new NotFoundError('not_found', 'No such message');
  }

  private async getMessageRow(mailbox: Mailbox, id: string) {
    const row = await findMessage(this.db, mailbox.address, id);
    if (!row) throw new NotFoundError('not_found', 'No such message');
    return row;
  }
}
