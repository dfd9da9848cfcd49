import type { Clock } from '../../platform/clock.js';
import { toIso } from '../../platform/clock.js';
import { type Db, type Dialect, type Executor, inTransaction, type Tx } from '../../platform/db/database.js';
import type { Mailbox } from '../../platform/db/schema.js';
import { NotFoundError, RateLimitedError, ValidationError } from '../../platform/errors.js';
import { newId } from '../../platform/ids.js';
import { LoopSlices, nextTurn } from '../../platform/loop-slices.js';
import { mailboxesAt as findMailboxesByAddresses, normalizeAddress } from '../mailboxes/mailbox.service.js';
import type { MailboxService } from '../mailboxes/mailbox.service.js';
import type { DomainService } from '../domains/domain.service.js';
import { eventsInsert, type OutboxSignal, pendingEvent } from '../../platform/events/outbox.js';
import { messageReceivedPayload, type ReceivedCopy } from './message.events.js';
import type { CatchAllCap } from './catch-all-cap.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import { type AtomicWriter, atomicWriter } from '../../platform/db/write-batcher.js';
import { ByteQuotas } from './byte-quota.js';
import { type MailEvents, type MailNotice, type MailSubscriber, noticeOf, type StreamsEnd } from './mail-events.js';
import { type ContentPool, ContentJobFailed } from './content-pool.js';
import { degradedInspected, type Inspected } from './content-jobs.js';
import { normalizeContentId } from './mail-html.js';
import { cleanText, MAIL_LIMITS, safeFilename } from './mail-limits.js';
import { normalizeContentType } from './stored-html.js';
import { messageIdOf } from './mail-source.js';
import { searchText } from './search-text.js';
import { deleteReceivedBefore, releaseContents, trimMailbox } from './mail-retention.repository.js';
import { insertAttachments, insertContent, insertMessage, type NewAttachment } from './mail.repository.js';
import { insertSearchDocument } from './mail-search.repository.js';
import { messagesAfterId, notifyChannel } from './mail-feed.repository.js';
import { incomingOfPayload, type InboundPayload } from './inbound-payload.js';
import { type RecipientCheck, RecipientMailboxes } from './recipient-mailboxes.js';
import { cleanMail, type Envelope, type IncomingMail, parseRawMessage } from './raw-message.js';
import { domainOf } from './recipients.js';

export interface Delivery {
  readonly id: string;
  readonly mailboxes: string[];
  readonly received_at: string;
}

const RETENTION_BATCH = 500;
/**
 * Inbound mail: the one intake shared by `POST /api/inbound` and the SMTP gateway, the live notices of
 * arrivals, and retention. Reading is MailReader's (mail-reader.service.ts).
 */
export class MailService {
  private readonly recipients: RecipientMailboxes;
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
    domains: DomainService,
    mailboxes: MailboxService,
    catchAllCap: CatchAllCap,
    private readonly outbox: OutboxSignal,
    private readonly content: ContentPool,
  ) {
    this.writer = atomicWriter(db, dialect);
    this.byteQuotas = new ByteQuotas(dialect);
    this.recipients = new RecipientMailboxes(db, domains, mailboxes, catchAllCap);
  }

  /** Decodes the HTTP payload (inbound-payload.ts) and delivers it. */
  async receiveInbound(payload: InboundPayload): Promise<Delivery> {
    return this.deliver(await incomingOfPayload(this.content, payload));
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

  /** SMTP's RCPT TO (RecipientMailboxes.accepts): `accepted`, `over_cap` (retry at `retryAt`) or `unknown` (550). */
  acceptsRecipient(address: string, client: string): Promise<RecipientCheck> {
    return this.recipients.accepts(address, client);
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
    const { addresses, overCap } = await this.recipients.storedFor(incoming.recipients, capCounted);
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
