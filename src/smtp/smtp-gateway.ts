import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import type { Logger } from 'pino';
import PostalMime from 'postal-mime';
import { SMTPServer, type SMTPServerAddress, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import type { Clock } from '../clock.js';
import type { BackgroundTask } from '../context.js';
import { AppError } from '../errors.js';
import type { IncomingAttachment, MailService } from '../mail/mail.service.js';

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
  readonly maxConnectionsPerIp?: number;
  readonly messagesPerMinutePerIp?: number;
  readonly maxRecipients?: number;
}

type SmtpError = Error & { responseCode?: number };

function smtpError(code: number, message: string): SmtpError {
  const err: SmtpError = new Error(message);
  err.responseCode = code;
  return err;
}

function pem(value: string): Buffer {
  return value.includes('-----BEGIN') ? Buffer.from(value) : readFileSync(value);
}

function toBuffer(content: ArrayBuffer | Uint8Array | string): Buffer {
  if (typeof content === 'string') return Buffer.from(content, 'base64');
  if (content instanceof Uint8Array) return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return Buffer.from(new Uint8Array(content));
}

/**
 * The SMTP intake: accepts mail only for existing mailboxes on our domains (550 at RCPT otherwise),
 * enforces the size limit (552), parses MIME with postal-mime and hands the result to the same
 * MailService.deliver as POST /api/inbound. Limits connections and messages per client IP.
 */
export class SmtpGateway implements BackgroundTask {
  readonly name = 'smtp';
  private readonly server: SMTPServer;
  private readonly connections = new Map<string, number>();
  private readonly counted = new Set<string>();
  private readonly recent = new Map<string, number[]>();
  private readonly maxConnectionsPerIp: number;
  private readonly messagesPerMinutePerIp: number;
  private readonly maxRecipients: number;

  constructor(
    private readonly mail: MailService,
    private readonly options: SmtpGatewayOptions,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {
    this.maxConnectionsPerIp = options.maxConnectionsPerIp ?? 10;
    this.messagesPerMinutePerIp = options.messagesPerMinutePerIp ?? 120;
    this.maxRecipients = options.maxRecipients ?? 100;
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
      socketTimeout: 60_000,
      closeTimeout: 5_000,
      onConnect: (session, cb) => this.onConnect(session, cb),
      onClose: (session) => this.onClose(session),
      onMailFrom: (_address, session, cb) => this.onMailFrom(session, cb),
      onRcptTo: (address, session, cb) => void this.onRcptTo(address, session, cb),
      onData: (stream, session, cb) => this.onData(stream, session, cb),
    });
    this.server.on('error', (err) => this.logger.warn({ err }, 'smtp server error'));
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
    this.logger.info({ port: this.address().port }, 'SMTP gateway listening');
  }

  async stop(): Promise<void> {
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  address(): AddressInfo {
    return this.server.server.address() as AddressInfo;
  }

  private onConnect(session: SMTPServerSession, cb: (err?: Error | null) => void): void {
    const ip = session.remoteAddress;
    const open = this.connections.get(ip) ?? 0;
    if (open >= this.maxConnectionsPerIp) {
      cb(smtpError(421, '4.7.0 Too many connections from your address, try later'));
      return;
    }
    this.connections.set(ip, open + 1);
    this.counted.add(session.id);
    cb();
  }

  private onClose(session: SMTPServerSession): void {
    if (!this.counted.delete(session.id)) return;
    const ip = session.remoteAddress;
    const open = (this.connections.get(ip) ?? 1) - 1;
    if (open <= 0) this.connections.delete(ip);
    else this.connections.set(ip, open);
  }

  private onMailFrom(session: SMTPServerSession, cb: (err?: Error | null) => void): void {
    const ip = session.remoteAddress;
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
    if (session.envelope.rcptTo.length >= this.maxRecipients) {
      cb(smtpError(452, '4.5.3 Too many recipients'));
      return;
    }
    try {
      if (await this.mail.acceptsRecipient(address.address)) {
        cb();
        return;
      }
      cb(smtpError(550, `5.1.1 <${address.address}>: no such mailbox here`));
    } catch (err) {
      this.logger.error({ err }, 'smtp recipient check failed');
      cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
    }
  }

  private onData(stream: SMTPServerDataStream, session: SMTPServerSession, cb: (err?: Error | null, message?: string) => void): void {
    const chunks: Buffer[] = [];
    let size = 0;
    stream.on('data', (chunk: Buffer) => {
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
        (id) => cb(null, `2.0.0 Ok: queued as ${id}`),
        (err: unknown) => {
          if (err instanceof AppError && err.status === 404) {
            cb(smtpError(550, '5.1.1 No recipient is a known mailbox'));
            return;
          }
          this.logger.error({ err }, 'smtp intake failed');
          cb(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    });
  }

  private async intake(raw: Buffer, session: SMTPServerSession): Promise<string> {
    const parsed = await PostalMime.parse(raw);
    const envelopeFrom = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
    const from = parsed.from && 'address' in parsed.from && parsed.from.address ? parsed.from : undefined;
    const attachments: IncomingAttachment[] = parsed.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.mimeType,
      contentId: a.contentId ?? null,
      content: toBuffer(a.content),
    }));
    const delivery = await this.mail.deliver({
      // The envelope decides delivery (it includes Bcc and excludes foreign addresses in To).
      recipients: session.envelope.rcptTo.map((r) => r.address),
      from: from?.address || envelopeFrom || null,
      fromName: from?.name || null,
      toHeader: (parsed.to ?? []).map((a) => (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? ''))).join(', ') || null,
      subject: parsed.subject ?? null,
      text: parsed.text ?? null,
      html: parsed.html ?? null,
      attachments,
      size: raw.length,
    });
    return delivery.id;
  }
}
