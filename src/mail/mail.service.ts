import { createHash } from 'node:crypto';
import type { Clock } from '../clock.js';
import { toIso } from '../clock.js';
import { type Db, type Dialect, type Executor, inTransaction } from '../db/database.js';
import type { Mailbox } from '../db/schema.js';
import { type FieldIssue, NotFoundError, UnauthorizedError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import { mailboxTokenMatches } from '../mailboxes/mailbox-token.js';
import { findMailbox, findMailboxesByAddresses, normalizeAddress } from '../mailboxes/mailbox.repository.js';
import type { SettingsService } from '../settings/settings.service.js';
import { decodeBase64Strict } from './base64.js';
import type { MailEvents, MailNotice } from './mail-events.js';
import { type InlineImages, mailHtmlDocument, normalizeContentId, sanitizeMailHtml } from './mail-html.js';
import {
  deleteMessage,
  deleteReceivedBefore,
  findAttachment,
  findMessage,
  insertAttachments,
  insertMessage,
  listAttachmentMeta,
  listMessages,
  messagesAfterId,
  type NewAttachment,
  notifyChannel,
} from './mail.repository.js';
import { domainOf, isAddress, parseRecipients, parseSender } from './recipients.js';

/** A message as both intakes (HTTP and SMTP) hand it over, already decoded. */
export interface IncomingMail {
  readonly recipients: readonly string[];
  readonly from: string | null;
  readonly fromName: string | null;
  readonly toHeader: string | null;
  readonly subject: string | null;
  readonly text: string | null;
  readonly html: string | null;
  readonly attachments: readonly IncomingAttachment[];
  /** Bytes the message counts for (raw size over SMTP; decoded parts over HTTP). */
  readonly size: number;
}

export interface IncomingAttachment {
  readonly filename: string | null;
  readonly contentType: string | null;
  readonly contentId?: string | null;
  readonly content: Buffer;
}

/** The `POST /api/inbound` payload after schema validation (seed §2). */
export interface InboundPayload {
  to: string;
  from?: string | null;
  from_name?: string | null;
  subject?: string | null;
  text?: string | null;
  html?: string | null;
  attachments?: { filename?: string | null; content_type?: string | null; content_base64: string }[] | null;
}

export interface Delivery {
  readonly id: string;
  readonly mailboxes: string[];
  readonly received_at: string;
}

export interface MessageSummary {
  id: string;
  from: string | null;
  from_name: string | null;
  subject: string | null;
  received_at: string;
  size: number;
  attachments_count: number;
}

export interface AttachmentDownload {
  readonly filename: string;
  readonly contentType: string;
  readonly content: Buffer;
}

const RETENTION_BATCH = 500;
const KNOWN_MAILBOX_CACHE = 100_000;
const INLINE_IMAGE_MAX = 512 * 1024;
// Compared against when a mailbox does not exist, so a miss costs the same as a wrong token.
const DUMMY_HASH = createHash('sha256').update('no-such-mailbox').digest('hex');

/**
 * Inbound mail: the one intake shared by `POST /api/inbound` and the SMTP gateway, reading with the
 * mailbox token or the API key, and retention.
 */
export class MailService {
  private readonly knownMailboxes = new Set<string>();

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly events: MailEvents,
    private readonly mailDomains: readonly string[],
  ) {}

  /** Decodes the HTTP payload (strict base64, details name the attachment) and delivers it. */
  async receiveInbound(payload: InboundPayload): Promise<Delivery> {
    const recipients = parseRecipients(payload.to);
    if (recipients.length === 0) throw new ValidationError([{ field: 'to', message: 'names no valid email address' }]);
    const issues: FieldIssue[] = [];
    const attachments: IncomingAttachment[] = [];
    (payload.attachments ?? []).forEach((a, i) => {
      const content = decodeBase64Strict(a.content_base64);
      if (!content) {
        issues.push({ field: `attachments.${i}.content_base64`, message: `is not valid base64 (attachment "${a.filename ?? i}")` });
        return;
      }
      attachments.push({ filename: a.filename ?? null, contentType: a.content_type ?? null, content });
    });
    if (issues.length > 0) throw new ValidationError(issues);
    const text = payload.text ?? null;
    const html = payload.html ?? null;
    const size =
      Buffer.byteLength(payload.subject ?? '') +
      Buffer.byteLength(text ?? '') +
      Buffer.byteLength(html ?? '') +
      attachments.reduce((n, a) => n + a.content.length, 0);
    const sender = payload.from ? parseSender(payload.from) : null;
    return this.deliver({
      recipients,
      from: sender?.address || null,
      fromName: payload.from_name?.trim() || sender?.name || null,
      toHeader: payload.to,
      subject: payload.subject ?? null,
      text,
      html,
      attachments,
      size,
    });
  }

  /** SSE reconnect: what arrived in the mailbox after the message the client saw last (at most `limit`, oldest first). */
  async arrivedAfter(mailbox: Mailbox, lastId: string, limit = 100): Promise<MailNotice[]> {
    const rows = await messagesAfterId(this.db, mailbox.address, lastId, limit);
    return rows.map((r) => ({ address: r.mailbox_address, id: r.id, from: r.from_address, subject: r.subject, received_at: r.received_at }));
  }

  /** SSE: called for every arrival in the mailbox, on this instance or another; answers unsubscribe. */
  subscribe(address: string, listener: (notice: MailNotice) => void): () => void {
    return this.events.subscribe(normalizeAddress(address), listener);
  }

  /** True when SMTP should accept RCPT TO for this address: one of our domains and an existing mailbox. */
  async acceptsRecipient(address: string): Promise<boolean> {
    const normalized = normalizeAddress(address);
    if (!isAddress(normalized) || !this.mailDomains.includes(domainOf(normalized))) return false;
    return (await this.knownAddresses([normalized])).length > 0;
  }

  /**
   * Stores the message once per known mailbox among the recipients, all in one transaction, so a
   * failure leaves nothing behind. None known: 404 mailbox_not_found.
   */
  async deliver(mail: IncomingMail): Promise<Delivery> {
    const now = this.clock.now();
    const id = newId('msg', now);
    const addresses = await this.knownAddresses(mail.recipients);
    if (addresses.length === 0) throw new NotFoundError('mailbox_not_found', 'No recipient is a known mailbox');
    const store = async (db: Executor) => {
      for (const address of addresses) await this.storeCopy(db, mail, id, address, now);
    };
    // One row and no attachments is a single atomic statement; anything more is one transaction,
    // so an error leaves nothing half-stored. (The common case skips BEGIN/COMMIT round trips.)
    if (addresses.length === 1 && mail.attachments.length === 0 && this.dialect === 'sqlite') await store(this.db);
    else await inTransaction(this.db, store);
    this.events.committed();
    return { id, mailboxes: addresses, received_at: toIso(now) };
  }

  /**
   * The recipients that are mailboxes, in recipient order. Mailboxes are never deleted (attribution
   * keeps them), so an address once found is remembered; only unknown ones are looked up, and a miss
   * is not remembered (the mailbox may be created a moment later).
   */
  private async knownAddresses(recipients: readonly string[]): Promise<string[]> {
    const wanted = [...new Set(recipients.map(normalizeAddress))];
    const missing = wanted.filter((a) => !this.knownMailboxes.has(a));
    if (missing.length > 0) {
      if (this.knownMailboxes.size > KNOWN_MAILBOX_CACHE) this.knownMailboxes.clear();
      for (const m of await findMailboxesByAddresses(this.db, missing)) this.knownMailboxes.add(m.address);
    }
    return wanted.filter((a) => this.knownMailboxes.has(a));
  }

  private async storeCopy(db: Executor, mail: IncomingMail, id: string, address: string, now: number): Promise<void> {
    const seq = await insertMessage(db, {
      id,
      mailbox_address: address,
      from_address: clip(mail.from, 320),
      from_name: clip(mail.fromName, 320),
      to_header: clip(mail.toHeader, 4000),
      subject: clip(mail.subject, 2000),
      text: mail.text,
      html: mail.html,
      size: mail.size,
      attachments_count: mail.attachments.length,
      received_at: now,
    });
    const rows: NewAttachment[] = mail.attachments.map((a, position) => ({
      id: newId('att', now),
      message_seq: seq,
      position,
      filename: safeFilename(a.filename, position),
      content_type: normalizeContentType(a.contentType),
      content_id: a.contentId ? normalizeContentId(a.contentId) : null,
      size: a.content.length,
      content: a.content,
    }));
    await insertAttachments(db, rows);
    if (this.dialect === 'postgres') {
      // Queued in the transaction: listeners hear of the message exactly when it is committed.
      const notice = { address, id, from: clip(mail.from, 320), subject: clip(mail.subject, 200), received_at: now };
      await notifyChannel(db, this.events.channel, JSON.stringify(notice));
    }
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

  async list(mailbox: Mailbox, limit: number, cursor?: string): Promise<{ items: MessageSummary[]; next_cursor: string | null }> {
    const rows = await listMessages(this.db, mailbox.address, limit + 1, decodeCursor(cursor));
    const page = rows.slice(0, limit);
    return {
      items: page.map((r) => ({
        id: r.id,
        from: r.from_address,
        from_name: r.from_name,
        subject: r.subject,
        received_at: toIso(r.received_at),
        size: r.size,
        attachments_count: r.attachments_count,
      })),
      next_cursor: rows.length > limit && page.length > 0 ? encodeCursor(page[page.length - 1]!.seq) : null,
    };
  }

  async read(mailbox: Mailbox, id: string) {
    const row = await this.getMessageRow(mailbox, id);
    const attachments = await listAttachmentMeta(this.db, row.seq);
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
      text: row.text,
      html: row.html === null ? null : sanitizeMailHtml(row.html, await this.inlineImages(mailbox, row.id, attachments)),
      attachments: attachments.map((a) => ({ id: a.id, filename: a.filename, content_type: a.content_type, size: a.size })),
    };
  }

  /** The sanitised HTML as a whole document, for a sandboxed iframe. */
  async htmlDocument(mailbox: Mailbox, id: string): Promise<string> {
    const row = await this.getMessageRow(mailbox, id);
    if (row.html === null) return mailHtmlDocument('');
    const attachments = await listAttachmentMeta(this.db, row.seq);
    return mailHtmlDocument(sanitizeMailHtml(row.html, await this.inlineImages(mailbox, row.id, attachments)));
  }

  async attachment(mailbox: Mailbox, messageId: string, attachmentId: string): Promise<AttachmentDownload> {
    const row = await findAttachment(this.db, mailbox.address, messageId, attachmentId);
    if (!row) throw new NotFoundError('not_found', 'No such attachment');
    return { filename: row.filename, contentType: row.content_type, content: Buffer.from(row.content) };
  }

  async remove(mailbox: Mailbox, id: string): Promise<void> {
    if (!(await deleteMessage(this.db, mailbox.address, id))) throw new NotFoundError('not_found', 'No such message');
  }

  /**
   * Deletes messages (and by cascade their attachments) older than `mailbox_ttl_hours`, in batches so
   * no transaction grows large. Mailboxes and their ref_code stay: attribution needs them.
   */
  async purgeExpired(): Promise<number> {
    const { mailbox_ttl_hours } = await this.settings.get();
    const cutoff = this.clock.now() - mailbox_ttl_hours * 3_600_000;
    let total = 0;
    for (;;) {
      const n = await deleteReceivedBefore(this.db, cutoff, RETENTION_BATCH);
      total += n;
      if (n < RETENTION_BATCH) return total;
    }
  }

  private async getMessageRow(mailbox: Mailbox, id: string) {
    const row = await findMessage(this.db, mailbox.address, id);
    if (!row) throw new NotFoundError('not_found', 'No such message');
    return row;
  }

  private async inlineImages(
    mailbox: Mailbox,
    messageId: string,
    attachments: readonly { id: string; content_id: string | null; content_type: string; size: number }[],
  ): Promise<InlineImages> {
    const map = new Map<string, string>();
    for (const a of attachments) {
      if (!a.content_id || !/^image\/(png|jpeg|gif|webp|bmp)$/.test(a.content_type) || a.size > INLINE_IMAGE_MAX) continue;
      const row = await findAttachment(this.db, mailbox.address, messageId, a.id);
      if (row) map.set(a.content_id, `data:${a.content_type};base64,${Buffer.from(row.content).toString('base64')}`);
    }
    return map;
  }
}

/** Cursors are opaque to clients: the arrival sequence of the last item shown. */
function encodeCursor(seq: number): string {
  return Buffer.from(`s${seq}`).toString('base64url');
}

function decodeCursor(cursor: string | undefined): number | undefined {
  if (!cursor) return undefined;
  const m = /^s(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString());
  if (!m) throw new ValidationError([{ field: 'cursor', message: 'is not a cursor from this list' }]);
  return Number(m[1]);
}

function clip(value: string | null, max: number): string | null {
  if (value === null) return null;
  return value.length > max ? value.slice(0, max) : value;
}

/** A display name only: no directories, no control characters; never used as a path. */
export function safeFilename(name: string | null, position: number): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, 200);
  return base || `attachment-${position + 1}`;
}

export function normalizeContentType(value: string | null): string {
  const type = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : 'application/octet-stream';
}
