import PostalMime from 'postal-mime';
import type { SMTPServerSession } from 'smtp-server';
import { ValidationError } from '../errors.js';
import type { IncomingAttachment, IncomingMail } from '../mail/mail.service.js';
import { toMailHeaders } from '../mail/mail-source.js';

export type SmtpError = Error & { responseCode?: number };

export function smtpError(code: number, message: string): SmtpError {
  const err: SmtpError = new Error(message);
  err.responseCode = code;
  return err;
}

function toBuffer(content: ArrayBuffer | Uint8Array | string): Buffer {
  if (typeof content === 'string') return Buffer.from(content, 'base64');
  if (content instanceof Uint8Array) return Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  return Buffer.from(new Uint8Array(content));
}

const MAX_BOUNDARY_LINES = 1000;

/** Lines that begin with `--` (MIME boundaries, among others), counted up to `stopAbove` + 1 in one pass. */
function boundaryLines(raw: Buffer, stopAbove: number): number {
  let n = 0;
  for (let i = raw.indexOf('\n--'); i >= 0; i = raw.indexOf('\n--', i + 3)) if (++n > stopAbove) break;
  return n;
}

export class UnparseableMessage extends Error {
  constructor(cause: unknown) {
    super('unparseable message', { cause });
  }
}

/**
 * Database errors about the data itself, which a retry of the same message would hit again: SQLite
 * values too big or too many, PostgreSQL data exceptions (class 22: invalid bytes, NUL) and program
 * limits (class 54).
 */
export function isPermanentStorageError(err: unknown): boolean {
  const e = err as { code?: unknown; message?: unknown };
  const code = typeof e?.code === 'string' ? e.code : '';
  if (code === 'SQLITE_TOOBIG' || code === 'SQLITE_RANGE' || code === 'SQLITE_MISMATCH') return true;
  if (code === 'SQLITE_ERROR' && typeof e.message === 'string' && /too many SQL variables/i.test(e.message)) return true;
  return /^(22|54)[0-9A-Z]{3}$/.test(code);
}

/**
 * The message as MailService.deliver takes it: parsed with postal-mime (on this thread, so a message
 * with more MIME boundaries than 100 attachments and their text parts need is refused before it is
 * parsed: 20,000 tiny parts blocked the event loop ~2 s). The envelope decides delivery.
 */
/** The message as MailService.deliver takes it from SMTP: parsed with postal-mime, delivered by the envelope. */
export async function parseSmtpMessage(raw: Buffer, envelope: SMTPServerSession['envelope']): Promise<IncomingMail> {
  // postal-mime parses on this thread: 20,000 tiny parts blocked the event loop ~2 s. A message that
  // cannot hold at most 100 attachments plus its text parts is refused before it is parsed.
  if (boundaryLines(raw, MAX_BOUNDARY_LINES) > MAX_BOUNDARY_LINES) {
    throw new ValidationError([{ field: 'attachments', message: `too many MIME parts (more than ${MAX_BOUNDARY_LINES} boundary lines)` }]);
  }
  let parsed: Awaited<ReturnType<typeof PostalMime.parse>>;
  try {
    parsed = await PostalMime.parse(raw);
  } catch (err) {
    throw new UnparseableMessage(err);
  }
  const envelopeFrom = envelope.mailFrom ? envelope.mailFrom.address : '';
  const from = parsed.from && 'address' in parsed.from && parsed.from.address ? parsed.from : undefined;
  const attachments: IncomingAttachment[] = parsed.attachments.map((a) => ({
    filename: a.filename,
    contentType: a.mimeType,
    contentId: a.contentId ?? null,
    content: toBuffer(a.content),
  }));
  return {
    // The envelope decides delivery (it includes Bcc and excludes foreign addresses in To).
    recipients: envelope.rcptTo.map((r) => r.address),
    from: from?.address || envelopeFrom || null,
    fromName: from?.name || null,
    toHeader: (parsed.to ?? []).map((a) => (a.name ? `${a.name} <${a.address ?? ''}>` : (a.address ?? ''))).join(', ') || null,
    subject: parsed.subject ?? null,
    text: parsed.text ?? null,
    html: parsed.html ?? null,
    attachments,
    size: raw.length,
    // Kept as received: GET …/source answers these very bytes.
    source: raw,
    headers: toMailHeaders(parsed.headers),
  };
}

