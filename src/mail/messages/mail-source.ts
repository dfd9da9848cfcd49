import { createHash } from 'node:crypto';
import MailComposer from 'nodemailer/lib/mail-composer';
import { decodeWords } from 'postal-mime';
import { cleanText } from './mail-limits.js';

/** One header of a message, as it appears in its source (name as written, value unfolded and decoded). */
export interface MailHeader {
  readonly name: string;
  readonly value: string;
}

/** Bounds of the stored header list: a source may carry any number of headers, the list shown stays small. */
export const HEADER_LIMITS = Object.freeze({ count: 500, name: 200, value: 16 * 1024, total: 256 * 1024 });

/** The parts a message is composed from when it did not arrive as MIME (POST /api/inbound, or stored before 0030). */
export interface SourceParts {
  readonly messageId: string;
  readonly date: number;
  readonly from: string | null;
  readonly fromName: string | null;
  readonly to: string | null;
  readonly subject: string | null;
  readonly text: string | null;
  readonly html: string | null;
  readonly attachments: readonly { filename: string; contentType: string; contentId: string | null; content: Buffer }[];
}

// Text parts above this size are written quoted-printable whatever their content (the composer's own pick
// for them would depend on a scan of the whole part); kept so sources composed before read the same.
const LARGE_TEXT = 64 * 1024;

function textPart(value: string) {
  return value.length <= LARGE_TEXT ? value : { content: value, contentTransferEncoding: 'quoted-printable' };
}

/**
 * The composer of a message given as parts: nodemailer's MailComposer (the MIME library that also writes
 * the mail svc's tests send). It reads nothing but the parts given: file and URL access are off, so no
 * part can make it read a path or fetch an address. Message-ID, Date and the MIME boundaries come from
 * the parts, so the same parts always compose to the same bytes.
 */
function composer(parts: SourceParts): MailComposer {
  return new MailComposer({
    disableFileAccess: true,
    disableUrlAccess: true,
    messageId: parts.messageId,
    date: new Date(parts.date),
    baseBoundary: createHash('sha256').update(parts.messageId).digest('hex').slice(0, 16),
    ...(parts.from ? { from: parts.fromName ? { name: parts.fromName, address: parts.from } : parts.from } : {}),
    ...(parts.to ? { to: parts.to } : {}),
    subject: parts.subject ?? '',
    ...(parts.text !== null ? { text: textPart(parts.text) } : {}),
    ...(parts.html !== null ? { html: textPart(parts.html) } : {}),
    attachments: parts.attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      content: a.content,
      contentTransferEncoding: 'base64',
      ...(a.contentId ? { cid: a.contentId } : {}),
    })),
  });
}

/** The raw RFC 822 source of a message given as parts (in the content pool's worker: content-worker.ts). */
export async function composeSource(parts: SourceParts): Promise<Buffer> {
  return composer(parts).compile().build();
}

/** The headers composeSource would write, without encoding any part (cheap: the intake stores these). */
export function composedHeaders(parts: SourceParts): MailHeader[] {
  return parseHeaderBlock(composer(parts).compile().buildHeaders());
}

/** A header block (the lines before the first empty one): unfolded as RFC 5322 says, encoded words decoded, bounded. */
export function parseHeaderBlock(block: string): MailHeader[] {
  const headers: { key: string; value: string }[] = [];
  for (const line of block.split(/\r?\n/)) {
    if (line === '') break;
    const last = headers[headers.length - 1];
    if ((line.startsWith(' ') || line.startsWith('\t')) && last) {
      last.value += line;
      continue;
    }
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    headers.push({ key: line.slice(0, colon).trim(), value: line.slice(colon + 1).trim() });
  }
  return toMailHeaders(headers);
}

/** Headers as postal-mime (or parseHeaderBlock) reads them: names as written, values unfolded, encoded words decoded, NUL removed, bounded. */
export function toMailHeaders(headers: readonly { originalKey?: string; key: string; value: string }[]): MailHeader[] {
  const out: MailHeader[] = [];
  // The list is stored as JSON and read back with every message: its whole size is bounded too.
  let total = 0;
  for (const h of headers.slice(0, HEADER_LIMITS.count)) {
    const header = { name: cleanText(h.originalKey || h.key, HEADER_LIMITS.name) ?? '', value: cleanText(decodeHeaderValue(h.value), HEADER_LIMITS.value) ?? '' };
    total += header.name.length + header.value.length;
    if (total > HEADER_LIMITS.total) break;
    out.push(header);
  }
  return out;
}

function decodeHeaderValue(value: string): string {
  try {
    return decodeWords(value);
  } catch {
    return value;
  }
}

/** The Message-ID header's value (at most 998 characters, a header line's limit), or null. */
export function messageIdOf(headers: readonly MailHeader[]): string | null {
  const value = headers.find((h) => h.name.toLowerCase() === 'message-id')?.value.trim();
  return value ? value.slice(0, 998) : null;
}

/** Stored as JSON in the content row; a row without (stored before 0030) or unreadable shows none. */
export function parseStoredHeaders(json: string | null): MailHeader[] {
  if (!json) return [];
  try {
    const value = JSON.parse(json) as unknown;
    return Array.isArray(value) ? (value as MailHeader[]) : [];
  } catch {
    return [];
  }
}
