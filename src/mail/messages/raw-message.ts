import { ValidationError } from '../../platform/errors.js';
import type { Inspected } from './content-jobs.js';
import { ContentJobFailed, type ContentPool, TooManyMimeParts } from './content-pool.js';
import { cleanContent, cleanText, MAIL_LIMITS } from './mail-limits.js';
import type { MailHeader } from './mail-source.js';

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
  /** The raw source as received (SMTP); null: composed from the parts when stored (POST /api/inbound). */
  readonly source: Buffer | null;
  /** The headers of `source` when the intake parsed them already (SMTP); null: read from the source when stored. */
  readonly headers: readonly MailHeader[] | null;
}

export interface IncomingAttachment {
  readonly filename: string | null;
  readonly contentType: string | null;
  readonly contentId?: string | null;
  readonly content: Buffer;
}

/** Who the SMTP envelope says the message is from and for. */
export interface Envelope {
  readonly from: string | null;
  readonly to: readonly string[];
}

export class UnparseableMessage extends Error {
  constructor(cause: unknown) {
    super('unparseable message', { cause });
  }
}

/**
 * A raw message (SMTP) as MailService.deliver takes it: parsed and inspected (code found, HTML measured) in
 * one job of the content pool (CONTRACT §16), delivered by the envelope. Too many MIME parts: 400 (552 over
 * SMTP); a parse over its time or memory limit, or one that fails: UnparseableMessage (554).
 */
export async function parseRawMessage(content: ContentPool, raw: Buffer, envelope: Envelope): Promise<{ mail: IncomingMail; inspected: Inspected }> {
  let parsed: Awaited<ReturnType<ContentPool['receive']>>['parsed'];
  let inspected: Inspected;
  try {
    ({ parsed, inspected } = await content.receive(raw));
  } catch (err) {
    if (err instanceof TooManyMimeParts) throw new ValidationError([{ field: 'attachments', message: err.message }]);
    if (err instanceof ContentJobFailed) throw new UnparseableMessage(err);
    throw err;
  }

  const attachments: IncomingAttachment[] = parsed.attachments.map((a) => ({
    filename: a.filename,
    contentType: a.contentType,
    contentId: a.contentId,
    content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength),
  }));
  const mail: IncomingMail = {
    // The envelope decides delivery (it includes Bcc and excludes foreign addresses in To).
    recipients: envelope.to,
    from: parsed.from?.address || envelope.from || null,
    fromName: parsed.from?.name || null,
    toHeader: parsed.toHeader,
    subject: parsed.subject,
    text: parsed.text,
    html: parsed.html,
    attachments,
    size: raw.length,
    // Kept as received: GET …/source answers these very bytes.
    source: raw,
    headers: parsed.headers,
  };
  return { mail, inspected };
}

/** Every text field without NUL and within its bound (CONTRACT §11); over SMTP this is where long headers are cut. */
export function cleanMail(mail: IncomingMail): IncomingMail {
  return {
    ...cleanContent(mail),
    from: cleanText(mail.from, MAIL_LIMITS.storedAddress),
    fromName: cleanText(mail.fromName, MAIL_LIMITS.fromName),
    toHeader: cleanText(mail.toHeader, MAIL_LIMITS.to),
  };
}
