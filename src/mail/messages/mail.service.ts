import type { Clock } from '../../platform/clock.js';
import { toIso } from '../../platform/clock.js';
import { type Db, type Dialect, type Executor, inTransaction, type Tx } from '../../platform/db/database.js';
import type { Mailbox } from '../../platform/db/schema.js';
import { type FieldIssue, NotFoundError, RateLimitedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { LoopSlices, nextTurn } from '../../platform/loop-slices.js';
import { mailboxesAt as findMailboxesByAddresses, normalizeAddress } from '../mailboxes/mailbox.service.js';
import type { MailboxService } from '../mailboxes/mailbox.service.js';
import type { DomainService } from '../domains/domain.service.js';
import { eventsInsert, type OutboxSignal, pendingEvent } from '../../platform/events/outbox.js';
import { messageReceivedPayload, type ReceivedCopy } from './message.events.js';
import type { CatchAllCap } from './catch-all-cap.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import type { z } from 'zod';
import { type AtomicWriter, atomicWriter } from '../../platform/db/write-batcher.js';
import { ByteQuotas } from './byte-quota.js';
import { type MailEvents, type MailNotice, type MailSubscriber, noticeOf, type StreamsEnd } from './mail-events.js';
import type { inboundSchema } from './mail.schemas.js';
import { type ContentPool, ContentJobFailed, degradedInspected } from './content-pool.js';
import type { Inspected } from './content-jobs.js';
import { normalizeContentId } from './mail-html.js';
import { cleanText, MAIL_LIMITS } from './mail-limits.js';
import { normalizeContentType } from './stored-html.js';
import { messageIdOf } from './mail-source.js';
import { searchText } from './search-text.js';
import {
  deleteReceivedBefore,
  insertAttachments,
  insertContent,
  insertMessage,
  insertSearchDocument,
  messagesAfterId,
  type NewAttachment,
  notifyChannel,
  releaseContents,
  trimMailbox,
} from './mail.repository.js';
import { cleanMail, type Envelope, type IncomingAttachment, type IncomingMail, parseRawMessage } from './raw-message.js';
import { domainOf, isAddress, parseRecipients, parseSender } from './recipients.js';

/** The `POST /api/inbound` payload after schema validation (README.md#mail). */
export type InboundPayload = z.infer<typeof inboundSchema>;

export interface Delivery {
  readonly id: string;
  readonly mailboxes: string[];
  readonly received_at: string;
}

const RETENTION_BATCH = 500;
const KNOWN_MAILBOX_CACHE = 100_000;
/**
 * Inbound mail: the one intake shared by `POST /api/inbound` and the SMTP gateway, the live notices of
 * arrivals, and retention. Reading is MailReader's (mail-reader.service.ts).
 */
export class MailService {
  private readonly knownMailboxes = new Set<string>();
  /** Each message atomically; on SQLite, messages arriving together share one commit. */
  private readonly writer: AtomicWriter;
  /** The byte quotas of the recipient mailboxes (mail.tm accounts, docs/mailtm.md#the-quota), and their locks. */
  private readonly byteQuotas: ByteQuotas;

  constructor(
    private readonly db: Db,
    private readonly dialect: Dialect,
    private readonly clock: Clock,
    private readonly settings: SettingsService,
    private readonly events: MailEvents,
    private readonly domains: DomainService,
    private readonly mailboxes: MailboxService,
    private readonly catchAllCap: CatchAllCap,
    private readonly outbox: OutboxSignal,
    private readonly content: ContentPool,
  ) {
    this.writer = atomicWriter(db, dialect);
    this.byteQuotas = new ByteQuotas(dialect);
  }

  /** Decodes the HTTP payload (strict base64, in the content pool; details name the attachment) and delivers it. */
  async receiveInbound(payload: InboundPayload): Promise<Delivery> {
    const recipients = parseRecipients(payload.to);
    if (recipients.length === 0) throw new ValidationError([{ field: 'to', message: 'names no valid email address' }]);
    const issues: FieldIssue[] = [];
    const attachments: IncomingAttachment[] = [];
    const given = payload.attachments ?? [];
    const decoded = given.length > 0 ? await this.decodeAttachments(given.map((a) => a.content_base64)) : [];
    given.forEach((a, i) => {
      const content = decoded[i];
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
      source: null,
      headers: null,
    });
  }

  /** 10 MB of base64 took the event loop 170–260 ms to check and decode: it is outsider bytes like any other. */
  private async decodeAttachments(texts: readonly string[]): Promise<(Buffer | null)[]> {
    try {
      return await this.content.decodeAttachments(texts);
    } catch (err) {
      // Decoding is linear and bounded by the body limit: over its time or heap limit, the attachments cannot be taken.
      if (err instanceof ContentJobFailed) throw new ValidationError([{ field: 'attachments', message: 'could not be decoded within the time limit' }]);
      throw err;
    }
  }

  /** A raw message (SMTP): parsed in the content pool, delivered by its envelope. */
  async receiveRaw(raw: Buffer, envelope: Envelope): Promise<Delivery> {
    const { mail, inspected } = await parseRawMessage(this.content, raw, envelope);
    // Its catch-all recipients were counted against the cap when RCPT TO accepted them (acceptsRecipient).
    return this.deliver(mail, inspected, true);
  }

  /** SSE reconnect: what arrived in the mailbox after the message the client saw last (at most `limit`, oldest first). */
  async arrivedAfter(mailbox: Mailbox, lastId: string, limit = 100): Promise<MailNotice[]> {
    const rows = await messagesAfterId(this.db, mailbox.address, lastId, limit);
    return rows.map(noticeOf);
  }

  /** SSE: `mail` is called for every arrival in the mailbox, on this instance or another, `end` when its streams end (endingStreams); answers unsubscribe. */
  subscribe(address: string, listener: MailSubscriber): () => void {
    return this.events.subscribe(normalizeAddress(address), listener);
  }

  /** In `tx`, after copies of messages were deleted (the ids of the copies gone): each gives up its share of the content, which goes with the last copy. */
  releaseContents(tx: Tx, deletedIds: readonly string[]): Promise<void> {
    return releaseContents(tx, deletedIds);
  }

  /**
   * Runs `work` in one transaction, then ends every live stream of the mailbox
   * (docs/mailtm.md#deleting-an-account-ends-its-streams: its mail.tm account is deleted in `work`): this
   * instance's as soon as it commits, before the caller answers; the other instances' on PostgreSQL through a
   * NOTIFY sent with the commit, which each hears before the notice of any later arrival. Instances sharing a
   * SQLite file only stop sending (see mailtm-mercure.ts). Proved by test/integration/mailtm-limits.test.ts,
   * with real streams on both databases.
   */
  async endingStreams<T>(address: string, work: (tx: Tx) => Promise<T>): Promise<T> {
    const normalized = normalizeAddress(address);
    const result = await inTransaction(this.db, async (tx) => {
      const value = await work(tx);
      if (this.dialect === 'postgres') await notifyChannel(tx, this.events.channel, JSON.stringify({ end: normalized } satisfies StreamsEnd));
      return value;
    });
    this.events.end(normalized);
    return result;
  }

  /**
   * SMTP's RCPT TO: `accepted` for a mailbox on one of our domains (active or not), or for an unknown
   * address on an active catch-all domain while the connecting client (`client`, a clientKey of the SMTP
   * client's address) and the domain are under the catch-all cap (counted here: the mailbox is created
   * when the message is delivered); `over_cap` (retry at `retryAt`) when the cap refuses it; else
   * `unknown` (550).
   */
  async acceptsRecipient(address: string, client: string): Promise<RecipientCheck> {
    const normalized = normalizeAddress(address);
    if (!isAddress(normalized)) return { kind: 'unknown' };
    if ((await this.knownAddresses([normalized])).length > 0) return { kind: 'accepted' };
    const domain = (await this.domains.lookup([domainOf(normalized)])).get(domainOf(normalized));
    if (!domain?.active || !domain.catch_all || !this.mailboxes.catchable(normalized)) return { kind: 'unknown' };
    const refused = await this.catchAllCap.take(client, domain.domain);
    return refused ? { kind: 'over_cap', retryAt: refused.retryAt } : { kind: 'accepted' };
  }

  /**
   * Stores the message for every known mailbox among the recipients: its content (text, HTML as received,
   * sanitised the first time it is read, and attachments) once, and one small row per mailbox, all in one
   * transaction, so a failure leaves nothing behind. Each mailbox then keeps only its newest
   * `mailbox_max_messages`, and one with a byte quota (a mail.tm account) its newest that fit in it
   * (byte-quota.ts). None known: 404 mailbox_not_found; over 100 attachments: 400; larger than the
   * quota of every recipient: 413 (OverQuotaError).
   */
  async deliver(incoming: IncomingMail, inspectedAtIntake?: Inspected, capCounted = false): Promise<Delivery> {
    if (incoming.attachments.length > MAIL_LIMITS.attachments) {
      throw new ValidationError([
        { field: 'attachments', message: `at most ${MAIL_LIMITS.attachments} attachments per message (got ${incoming.attachments.length})` },
      ]);
    }
    const now = this.clock.now();
    const id = newId('msg', now);
    const { addresses, overCap } = await this.recipientMailboxes(incoming.recipients, capCounted);
    if (addresses.length === 0 && overCap) throw new RateLimitedError(Math.max(1, Math.ceil((overCap.retryAt - now) / 1000)));
    if (addresses.length === 0) throw new NotFoundError('mailbox_not_found', 'No recipient is a known mailbox');
    const mail = cleanMail(incoming);
    const { mailbox_max_messages, message_events } = await this.settings.get();
    const attachments: NewAttachment[] = mail.attachments.map((a, position) => ({
      id: newId('att', now),
      message_id: id,
      copy_seq: null,
      position,
      filename: safeFilename(a.filename, position),
      content_type: normalizeContentType(a.contentType),
      content_id: a.contentId ? normalizeContentId(a.contentId) : null,
      size: a.content.length,
      content: a.content,
    }));
    const composedId = mail.headers ? null : `<${id}@${domainOf(addresses[0]!)}>`;
    const msgid = mail.headers ? messageIdOf(mail.headers) : composedId;
    // The code and (mail given as parts) the headers of its composed source, in the content pool. A raw
    // message (SMTP) was inspected by the job that parsed it (parseRawMessage), from the same cleaned fields.
    const inspected = inspectedAtIntake ?? (await this.inspect(mail, attachments, composedId, now));
    const code = inspected.code;
    // The source as received (SMTP) is kept once per message with its headers. The source of a message
    // given as parts (HTTP) is composed from the stored parts when asked for (the same bytes each time;
    // composing every message at intake cost about half the intake rate): only the HTML as given is kept
    // now, beside the sanitised one, with the headers that source will have.
    const source = mail.source;
    const headers = mail.headers ?? inspected.headers;
    let receivers: readonly string[] = addresses;
    let newestSeq = 0;
    await this.writer.run(async (tx) => {
      // One message to many mailboxes is sliced (docs/architecture.md#work-that-grows-with-stored-data): a turn of
      // the event loop whenever a slice has run SLICE_BUDGET_MS, between mailboxes. Still one transaction, so the
      // copies are stored together or not at all, and SMTP's 250 follows the commit
      // (test/integration/data-size.test.ts: 100 mailboxes, each copy stored once, searchable, trimmed). SQLite only:
      // PostgreSQL's statements wait for the server, and a turn would only hold its row locks longer.
      const slices = this.dialect === 'sqlite' ? new LoopSlices() : undefined;
      // Locks first (PostgreSQL): every mailbox in address order (byteQuotas), then content rows in id order (releaseContents).
      const room = await this.byteQuotas.makeRoom(tx, addresses, mail.size, slices);
      receivers = room.receivers;
      await insertContent(
        tx,
        {
          id,
          refs: receivers.length,
          text: mail.text,
          html: inspected.state === 'raw' ? mail.html : null,
          html_state: inspected.state,
          headers: headers ? JSON.stringify(headers) : null,
          msgid,
          source_html: source ? null : mail.html,
          links: JSON.stringify(inspected.links),
          verification_link: inspected.verificationLink,
        },
        source,
      );
      await insertAttachments(tx, attachments);
      const trimmed = room.trimmed;
      // The sender is short and bounded (cleanMail); the subject and text were made search text in the content pool.
      const searchDocument = `${inspected.searchText ?? searchText(mail.subject)} ${searchText(`${mail.from ?? ''} ${mail.fromName ?? ''}`)}`;
      for (const address of receivers) {
        await slices?.next();
        const copy = await this.storeCopy(tx, mail, code, id, address, now, mailbox_max_messages, searchDocument);
        newestSeq = copy.seq;
        trimmed.push(...copy.trimmed);
      }
      await releaseContents(tx, trimmed, slices);
      await slices?.next();
      if (message_events) await this.recordReceived(tx, receivers, { id, from: mail.from, subject: mail.subject, code, verification_link: inspected.verificationLink, received_at: now });
    }, mail.size + (source?.length ?? 0));
    this.events.committed(newestSeq);
    if (message_events) this.outbox.kick();
    return { id, mailboxes: [...receivers], received_at: toIso(now) };
  }

  /**
   * The work on the message's own bytes at intake, in the content pool. A job over its time or memory limit
   * stores the message degraded, never loses it (docs/architecture.md): text kept, HTML dropped
   * (`html_dropped: true`), no code. A full pool is OverloadedError (HTTP 503, SMTP 451): nothing stored.
   */
  private async inspect(mail: IncomingMail, attachments: readonly NewAttachment[], composedId: string | null, now: number): Promise<Inspected> {
    const headersOf =
      composedId === null
        ? null
        : {
          messageId: composedId,
          date: now,
          from: mail.from,
          fromName: mail.fromName,
          to: mail.toHeader,
          attachments: attachments.map((a) => ({ filename: a.filename, contentType: a.content_type, contentId: a.content_id })),
        };
    try {
      return await this.content.inspect({ subject: mail.subject, text: mail.text, html: mail.html, headersOf });
    } catch (err) {
      if (!(err instanceof ContentJobFailed)) throw err;
      return degradedInspected(mail.html);
    }
  }

  /** `message.received` for each mailbox copy, in the message's transaction (docs/api.md, "Events"). */
  private async recordReceived(tx: Executor, receivers: readonly string[], copy: Omit<ReceivedCopy, 'mailbox'>): Promise<void> {
    if (receivers.length === 0) return;
    const refCodes = new Map((await findMailboxesByAddresses(tx, receivers)).map((m) => [m.address, m.ref_code]));
    const events = receivers.map((mailbox) => pendingEvent('message.received', messageReceivedPayload({ ...copy, mailbox }, refCodes.get(mailbox) ?? null)));
    await eventsInsert(tx, this.clock, events).execute();
  }

  /**
   * The recipients the message is stored for: the known mailboxes on our domains, and the unknown
   * addresses on active catch-all domains, whose mailboxes are created now (each counted against the
   * catch-all cap unless the SMTP RCPT already counted it per client: POST /api/inbound counts against
   * the domain's cap only, see catch-all-cap.ts). `overCap`: a recipient the cap refused.
   */
  private async recipientMailboxes(
    recipients: readonly string[],
    capCounted: boolean,
  ): Promise<{ addresses: string[]; overCap?: { retryAt: number } }> {
    const wanted = [...new Set(recipients.map(normalizeAddress))];
    const known = new Set(await this.knownAddresses(wanted));
    const unknown = wanted.filter((a) => !known.has(a) && isAddress(a));
    let overCap: { retryAt: number } | undefined;
    if (unknown.length > 0) {
      const domains = await this.domains.lookup(unknown.map(domainOf));
      for (const address of unknown) {
        const domain = domains.get(domainOf(address));
        if (!domain?.active || !domain.catch_all || !this.mailboxes.catchable(address)) continue;
        if (!capCounted) {
          const refused = await this.catchAllCap.take(null, domain.domain);
          if (refused) {
            overCap = refused;
            continue;
          }
        }
        if (await this.mailboxes.createCaught(address)) {
          known.add(address);
          this.knownMailboxes.add(address);
        }
      }
    }
    return { addresses: wanted.filter((a) => known.has(a)), overCap };
  }

  /**
   * The recipients that are mailboxes on one of our domains, in recipient order. Mailboxes are never deleted (attribution
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
    const known: string[] = [];
    // A mailbox on a domain that is not (or no longer, for one that predates the list) ours takes no mail.
    for (const a of wanted) if (this.knownMailboxes.has(a) && (await this.domains.hasMailboxDomain(domainOf(a)))) known.push(a);
    return known;
  }

  /**
   * One mailbox's copy, and the quota: answers its seq and the ids of the copies trimmed away (their contents
   * still to release). `mail` is cleaned already (cleanMail): its fields are within their bounds and free of NUL.
   */
  private async storeCopy(
    db: Executor,
    mail: IncomingMail,
    code: string | null,
    id: string,
    address: string,
    now: number,
    quota: number,
    searchDocument: string,
  ): Promise<{ seq: number; trimmed: string[] }> {
    const seq = await insertMessage(db, {
      id,
      mailbox_address: address,
      from_address: mail.from,
      from_name: mail.fromName,
      to_header: mail.toHeader,
      subject: mail.subject,
      size: mail.size,
      attachments_count: mail.attachments.length,
      received_at: now,
      seen: 0,
      code,
    });
    await insertSearchDocument(db, this.dialect, seq, address, searchDocument);
    const trimmed = await trimMailbox(db, address, quota);
    if (this.dialect === 'postgres') {
      // Queued in the transaction: listeners hear of the message exactly when it is committed.
      const notice: MailNotice = { address, id, from: mail.from, subject: cleanText(mail.subject, 200), received_at: now, code };
      await notifyChannel(db, this.events.channel, JSON.stringify(notice));
    }
    return { seq, trimmed };
  }

  /**
   * Deletes messages (and the contents and attachments no copy shares any more) older than `mailbox_ttl_hours`, in batches so
   * no transaction grows large. Mailboxes and their ref_code stay: attribution needs them.
   */
  async purgeExpired(): Promise<number> {
    const { mailbox_ttl_hours } = await this.settings.get();
    const cutoff = this.clock.now() - mailbox_ttl_hours * 3_600_000;
    let total = 0;
    // A backlog of any size in batches, a turn of the event loop between them and inside one when it runs long
    // (docs/architecture.md#work-that-grows-with-stored-data): on SQLite the statements run on the event loop.
    const slices = this.dialect === 'sqlite' ? new LoopSlices() : undefined;
    for (;;) {
      const n = await inTransaction(this.db, (tx) => deleteReceivedBefore(tx, cutoff, RETENTION_BATCH, slices));
      total += n;
      if (n < RETENTION_BATCH) return total;
      if (slices) await nextTurn();
    }
  }
}


/** What SMTP answers a recipient (MailService.acceptsRecipient). */
export type RecipientCheck = { readonly kind: 'accepted' | 'unknown' } | { readonly kind: 'over_cap'; readonly retryAt: number };

/** A display name only: no directories, no control characters; never used as a path. */
export function safeFilename(name: string | null, position: number): string {
  const base = (name ?? '')
    .split(/[\\/]/)
    .pop()!
    // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control characters is the point
    .replace(/[\u0000-\u001f\u007f]/g, '')
    .replace(/^\.+/, '')
    .trim()
    .slice(0, MAIL_LIMITS.storedFilename);
  return base || `attachment-${position + 1}`;
}

