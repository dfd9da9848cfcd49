import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../../platform/logger.js';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Clock } from '../../platform/clock.js';
import type { BackgroundTask } from '../../platform/background-task.js';
import { AppError, OverQuotaError } from '../../platform/errors.js';
import { clientKey } from '../../platform/http/client-address.js';
import { OverloadedError } from '../messages/content-pool.js';
import { UnparseableMessage } from '../messages/raw-message.js';
import type { MailService } from '../messages/mail.service.js';
import { isPermanentStorageError, type SmtpError, smtpError } from './smtp-message.js';

export interface SmtpGatewayOptions {
  readonly port: number;
  readonly host: string;
  /** PEM text or a file path; with both, STARTTLS is offered. */
  readonly tlsKey?: string;
  readonly tlsCert?: string;
  /** Advertised with SIZE and enforced at DATA (552). */
  readonly maxBytes: number;
  /** Greeting host name. */
  readonly hostname: string;
  /** Per client (an IPv6 /64 counts as one, an IPv4-mapped address as its IPv4): default 10. */
  readonly maxConnectionsPerIp?: number;
  readonly messagesPerMinutePerIp?: number;
  /** Per message; further RCPTs get 452 (RFC 5321 4.5.3.1.8). Default 100. */
  readonly maxRecipients?: number;
  /** Refused recipients (550) after which the session is closed with 421. Default 10. */
  readonly maxRefusedRecipients?: number;
  /**
   * A connection that makes no progress for this long is closed with 421 (default 60 s), whatever it
   * sends: only a delivered message or message data arriving count as progress, not NOOP, RSET, HELO,
   * MAIL or RCPT.
   */
  readonly idleTimeoutMs?: number;
}

function pem(value: string): Buffer {
  return value.includes('-----BEGIN') ? Buffer.from(value) : readFileSync(value);
}

/**
 * The SMTP intake: accepts mail only for existing mailboxes on our domains and, on a catch-all domain, for
 * any address under the catch-all cap per client IP and per domain (450 over it; 550 at RCPT otherwise),
 * enforces the size limit (552), parses MIME with postal-mime and hands the result to the same
 * MailService.deliver as POST /api/inbound. README.md#mail-limits: per client (IPv6 /64, IPv4-mapped as IPv4)
 * a cap on connections and messages a minute; at most 100 recipients (452 beyond); after 10 refused
 * recipients 421 and close; a connection without progress for 60 s is closed; anything wrong with the
 * message itself is a 5xx (header fields too long are cut, NUL is stripped, see MailService).
 */
export class SmtpGateway implements BackgroundTask {
  readonly name = 'smtp';
  private readonly server: SMTPServer;
  private readonly connections = new Map<string, number>();
  /** Open sessions that hold a connection slot: their client key and their idle timer. */
  private readonly sessions = new Map<string, { readonly key: string; idle?: NodeJS.Timeout; refused: number }>();
  private readonly recent = new Map<string, number[]>();
  private readonly maxConnectionsPerIp: number;
  private readonly messagesPerMinutePerIp: number;
  private readonly maxRecipients: number;
  private readonly maxRefusedRecipients: number;
  private readonly idleTimeoutMs: number;

  constructor(
    private readonly mail: MailService,
    private readonly options: SmtpGatewayOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.maxConnectionsPerIp = options.maxConnectionsPerIp ?? 10;
    this.messagesPerMinutePerIp = options.messagesPerMinutePerIp ?? 120;
    this.maxRecipients = options.maxRecipients ?? 100;
    this.maxRefusedRecipients = options.maxRefusedRecipients ?? 10;
    this.idleTimeoutMs = options.idleTimeoutMs ?? 60_000;
    const tls = options.tlsKey && options.tlsCert ? { key: pem(options.tlsKey), cert: pem(options.tlsCert) } : undefined;
    this.server = new SMTPServer({
      name: options.hostname,
      banner: 'svc inbound mail',
      size: options.maxBytes,
      authOptional: true,
      disabledCommands: tls ? ['AUTH'] : ['AUTH', 'STARTTLS'],
      ...(tls ?? {}),
      logger: false,
      maxClients: 500,
      // No reverse DNS per connection: it costs a lookup and decides nothing here.
      disableReverseLookup: true,
      socketTimeout: 60_000,
      closeTimeout: 5_000,
      onConnect: (session, cb) => this.onConnect(session, cb),
      onClose: (session) => this.onClose(session),
      onMailFrom: (_address, session, cb) => this.onMailFrom(session, cb),
      onRcptTo: (address, session, cb) => void this.onRcptTo(address, session, cb),
      onData: (stream, session, cb) => this.onData(stream, session, cb),
    });
    // A failure to listen is reported once, by start() (ListenError names address and port); later errors are logged.
    this.server.on('error', (err) => {
      if (this.server.server.listening) this.logger.warn({ err }, 'smtp server error');
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((resolve, reject) => {
      const onError = (err: Error) => reject(err);
      this.server.server.once('error', onError);
      this.server.listen(this.options.port, this.options.host, () => {
        this.server.server.off('error', onError);
        resolve();
      });
    });
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  address(): AddressInfo {
    return this.server.server.address() as AddressInfo;
  }

  private onConnect(session: SMTPServerSession, cb: (err?: Error | null) => void): void {
    const key = clientKey(session.remoteAddress);
    const open = this.connections.get(key) ?? 0;
    if (open >= this.maxConnectionsPerIp) {
      cb(smtpError(421, '4.7.0 Too many connections from your address, try later'));
      return;
    }
    this.connections.set(key, open + 1);
    this.sessions.set(session.id, { key, refused: 0 });
    this.progress(session.id);
    cb();
  }

  private onClose(session: SMTPServerSession): void {
    const state = this.sessions.get(session.id);
    if (!state) return;
    this.sessions.delete(session.id);
    if (state.idle) clearTimeout(state.idle);
    const open = (this.connections.get(state.key) ?? 1) - 1;
    if (open <= 0) this.connections.delete(state.key);
    else this.connections.set(state.key, open);
  }

  /** (Re)starts the session's idle timer: called only for real progress, so chatter cannot hold a connection. */
  private progress(sessionId: string): void {
    const state = this.sessions.get(sessionId);
    if (!state) return;
    if (state.idle) clearTimeout(state.idle);
    state.idle = setTimeout(() => this.closeIdle(sessionId), this.idleTimeoutMs);
    state.idle.unref();
  }

  private closeIdle(sessionId: string): void {
    for (const connection of this.server.connections) {
      // smtp-server closes the connection after a 421
      if (connection.id === sessionId) connection.send(421, '4.4.2 Idle for too long, closing connection');
    }
  }

  /** After too many refused recipients every further command of the session gets 421 and the connection closes. */
  private tooManyRefusals(session: SMTPServerSession): SmtpError | undefined {
    const state = this.sessions.get(session.id);
    if (!state || state.refused < this.maxRefusedRecipients) return undefined;
    return smtpError(421, '4.7.0 Too many refused recipients, closing connection');
  }

  private onMailFrom(session: SMTPServerSession, cb: (err?: Error | null) => void): void {
    const refused = this.tooManyRefusals(session);
    if (refused) {
      cb(refused);
      return;
    }
    const ip = clientKey(session.remoteAddress);
    const now = this.clock.now();
    const times = (this.recent.get(ip) ?? []).filter((t) => now - t < 60_000);
    if (times.length >= this.messagesPerMinutePerIp) {
      this.recent.set(ip, times);
      cb(smtpError(421, '4.7.0 Too many messages from your address, slow down'));
      return;
    }
    times.push(now);
    this.recent.set(ip, times);
    // Forget quiet clients so the map stays as small as the set of active senders.
    if (this.recent.size > 10_000) for (const [k, v] of this.recent) if (now - (v[v.length - 1] ?? 0) >= 60_000) this.recent.delete(k);
    cb();
  }

  private async onRcptTo(address: SMTPServerAddress, session: SMTPServerSession, cb: (err?: Error | null) => void): Promise<void> {
    const refused = this.tooManyRefusals(session);
    if (refused) {
      cb(refused);
      return;
    }
    if (session.envelope.rcptTo.length >= this.maxRecipients) {
      cb(smtpError(452, '4.5.3 Too many recipients'));
      return;
    }
    try {
      // The catch-all cap counts the connecting client, never MAIL FROM, which the sender picks (catch-all-cap.ts).
      const check = await this.mail.acceptsRecipient(address.address, clientKey(session.remoteAddress));
      if (check.kind === 'accepted') {
        cb();
        return;
      }
      const state = this.sessions.get(session.id);
      if (state) state.refused++;
      if (check.kind === 'over_cap') {
        // A rate, not the address: the same mail is taken once the window ends (docs/api.md, "Catch-all").
        const minutes = Math.max(1, Math.ceil((check.retryAt - this.clock.now()) / 60_000));
        cb(smtpError(450, `4.7.1 <${address.address.slice(0, 320)}>: too many new mailboxes on this domain or from your address, try again in ${minutes} min`));
        return;
      }
      cb(smtpError(550, `5.1.1 <${address.address.slice(0, 320)}>: no such mailbox here`));
    } catch (err) {
      this.logger.error({ err }, 'smtp recipient check failed');
      cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
    }
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, cb: (err?: Error | null, message?: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
      // Message data arriving is progress: a large message on a slow link is not idle.
      this.progress(session.id);
      // Past the limit the rest is read and dropped: smtp-server flags it and the answer is 552.
      if (size <= this.options.maxBytes) chunks.push(chunk);
      size += chunk.length;
    });
    stream.on('error', (err) => cb(err));
    stream.on('end', () => {
      if (stream.sizeExceeded || size > this.options.maxBytes) {
        cb(smtpError(552, `5.3.4 Message exceeds the size limit of ${this.options.maxBytes} bytes`));
        return;
      }
      this.intake(Buffer.concat(chunks, size), session).then(
        (id) => {
          this.progress(session.id);
          cb(null, `2.0.0 Ok: queued as ${id}`);
        },
        (err: unknown) => cb(this.refusal(err)),
      );
    });
  }

  /**
   * The answer to a message that was not stored. Only a failure that may pass on a retry (the database
   * unreachable, busy) is a 4xx; anything about the message itself is a 5xx, so senders do not retry
   * the same message forever (README.md#mail-limits).
   */
  private refusal(err: unknown): SmtpError {
    if (err instanceof UnparseableMessage) return smtpError(554, '5.6.0 The message cannot be parsed');
    // The content pool is full: a 4xx for load only, never for the message itself
    // (docs/architecture.md#outsider-bytes-never-run-on-the-event-loop).
    if (err instanceof OverloadedError) return smtpError(451, '4.3.2 Too much mail is being processed, try again later');
    if (err instanceof AppError && err.status === 404) return smtpError(550, '5.1.1 No recipient is a known mailbox');
    // RFC 3463 X.2.3: a per-mailbox limit on message length (docs/mailtm.md#the-quota, a mail.tm account's quota).
    if (err instanceof OverQuotaError) return smtpError(552, `5.2.3 ${err.message}`);
    if (err instanceof AppError && err.status === 400) {
      const detail = (err.details as { message?: string }[] | undefined)?.[0]?.message ?? err.message;
      return smtpError(552, `5.3.4 Message refused: ${detail}`);
    }
    if (isPermanentStorageError(err)) {
      this.logger.warn({ err }, 'smtp message refused: the database cannot store it');
      return smtpError(554, '5.3.0 The message cannot be stored');
    }
    this.logger.error({ err }, 'smtp intake failed');
    return smtpError(451, '4.3.0 Temporary failure, try again later');
  }

  private async intake(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const envelope = { from: session.envelope.mailFrom ? session.envelope.mailFrom.address : null, to: session.envelope.rcptTo.map((r) => r.address) };
    const delivery = await this.mail.receiveRaw(raw, envelope);
    return delivery.id;
  }
}
