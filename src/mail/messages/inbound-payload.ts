import type { z } from 'zod';
import { type FieldIssue, ValidationError } from '../../platform/errors.js';
import { type ContentPool, ContentJobFailed } from './content-pool.js';
import type { inboundSchema } from './mail.schemas.js';
import type { IncomingAttachment, IncomingMail } from './raw-message.js';
import { parseRecipients, parseSender } from './recipients.js';

/** The `POST /api/inbound` payload after schema validation (README.md#mail). */
export type InboundPayload = z.infer<typeof inboundSchema>;

/** Decodes the HTTP payload (strict base64, in the content pool; details name the attachment) into the mail to deliver. */
export async function incomingOfPayload(content: ContentPool, payload: InboundPayload): Promise<IncomingMail> {
  const recipients = parseRecipients(payload.to);
  if (recipients.length === 0) throw new ValidationError([{ field: 'to', message: 'names no valid email address' }]);
  const issues: FieldIssue[] = [];
  const attachments: IncomingAttachment[] = [];
  const given = payload.attachments ?? [];
  const decoded = given.length > 0 ? await decodeAttachments(content, given.map((a) => a.content_base64)) : [];
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
  return {
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
  };
}

/** 10 MB of base64 took the event loop 170–260 ms to check and decode: it is outsider bytes like any other. */
async function decodeAttachments(content: ContentPool, texts: readonly string[]): Promise<(Buffer | null)[]> {
  try {
    return await content.decodeAttachments(texts);
  } catch (err) {
    // Decoding is linear and bounded by the body limit: over its time or heap limit, the attachments cannot be taken.
    if (err instanceof ContentJobFailed) throw new ValidationError([{ field: 'attachments', message: 'could not be decoded within the time limit' }]);
    throw err;
  }
}
