import type { FastifyReply } from 'fastify';

/* Stored bytes sent as downloads (a message's source, its attachments), by the mailbox and the mail.tm routes. */


// Only types a browser will not run as a document; everything else downloads as opaque bytes.
export const SAFE_DOWNLOAD_TYPE =
  /^(image\/(png|jpeg|gif|webp|bmp)|application\/(pdf|zip|gzip|octet-stream|msword|rtf|vnd\.[a-z0-9.+-]+)|text\/(plain|csv|calendar)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+)$/;

/** `Content-Disposition` with an ASCII fallback and the exact name as RFC 5987 UTF-8. */
export function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

/** The disposition of a message's source: `<id>.eml`, the id cut to safe characters. */
export function sourceDisposition(kind: 'inline' | 'attachment', messageId: string): string {
  return `${kind}; filename="${messageId.replace(/[^A-Za-z0-9_.-]/g, '_')}.eml"`;
}

/**
 * Bytes from outside sent as a download: never sniffed, never run as a page (a sandbox with nothing
 * allowed), never cached by anyone but the reader.
 */
export function sendDownload(reply: FastifyReply, disposition: string, type: string, bytes: Buffer | string): FastifyReply {
  return reply
    .header('content-disposition', disposition)
    .header('x-content-type-options', 'nosniff')
    .header('content-security-policy', "sandbox; default-src 'none'")
    .header('cache-control', 'private, no-store')
    .type(type)
    .send(bytes);
}
