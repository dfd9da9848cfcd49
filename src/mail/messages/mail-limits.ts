/**
 * The bounds of one inbound message (README.md#mail-limits), shared by both intakes: `POST /api/inbound` refuses
 * a longer field with 400 (its schema carries these as maxLength); the SMTP gateway cuts header fields
 * to these lengths and refuses more attachments with 552.
 */
export const MAIL_LIMITS = Object.freeze({
  attachments: 100,
  /** A From header as written: `"Name" <address>`. */
  from: 1000,
  fromName: 320,
  /** The To header; it may list many recipients. */
  to: 10_000,
  subject: 2000,
  filename: 255,
  contentType: 255,
  /** text, html, content_base64: only the message size limit (SVC_INBOUND_MAX_BYTES, at most 1 GiB) bounds them. */
  body: 1024 * 1024 * 1024,
  /** Stored lengths (longer values are cut when stored). */
  storedAddress: 320,
  storedFilename: 200,
});

// biome-ignore lint/suspicious/noControlCharactersInRegex: NUL is the point
const NUL = /\u0000/g;

/**
 * PostgreSQL cannot store NUL in text, and no mail needs it: over SMTP it is removed from every text
 * field (over HTTP a NUL anywhere in the JSON is already a 400). Then cut to `max` characters.
 */
export function cleanText(value: string | null | undefined, max = Number.POSITIVE_INFINITY): string | null {
  if (value === null || value === undefined) return null;
  const stripped = value.includes('\u0000') ? value.replace(NUL, '') : value;
  return stripped.length > max ? stripped.slice(0, max) : stripped;
}

/** A message's content as stored (README.md#mail-limits): subject, text and HTML and the attachments' names and types, each cleaned (cleanText). */
export function cleanContent<
  A extends { readonly filename: string | null; readonly contentType: string | null; readonly contentId?: string | null },
  M extends { readonly subject: string | null; readonly text: string | null; readonly html: string | null; readonly attachments: readonly A[] },
>(mail: M): M {
  return {
    ...mail,
    subject: cleanText(mail.subject, MAIL_LIMITS.subject),
    text: cleanText(mail.text),
    html: cleanText(mail.html),
    attachments: mail.attachments.map((a) => ({
      ...a,
      filename: cleanText(a.filename, MAIL_LIMITS.filename),
      contentType: cleanText(a.contentType, MAIL_LIMITS.contentType),
      contentId: cleanText(a.contentId, MAIL_LIMITS.contentType),
    })),
  };
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
    .slice(0, MAIL_LIMITS.storedFilename);
  return base || `attachment-${position + 1}`;
}
