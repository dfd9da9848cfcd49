import type { HtmlState } from '../db/schema.js';
import type { HtmlSanitizerPool } from './html-sanitizer-pool.js';
import type { InlineImages } from './mail-html.js';

/** Images a message's HTML may show inline (`cid:`), as data: URIs: these types, at most this size. */
const INLINE_IMAGE_MAX = 512 * 1024;
const INLINE_IMAGE_TYPE = /^image\/(png|jpeg|gif|webp|bmp)$/;

/** Whether an attachment (content type already normalised) can stand in for a `cid:` image. */
export function inlinable(contentType: string, size: number): boolean {
  return INLINE_IMAGE_TYPE.test(contentType) && size <= INLINE_IMAGE_MAX;
}

export function dataUri(contentType: string, content: Uint8Array): string {
  return `data:${contentType};base64,${Buffer.from(content.buffer, content.byteOffset, content.byteLength).toString('base64')}`;
}

/**
 * Sanitises HTML for storage in the worker pool: at most its time limit, then the HTML is dropped
 * (the text stays) and the message reads with `html_dropped: true` (CONTRACT §11). Used at intake, and
 * once for a message stored before migration 0007 (its HTML kept as received) when it is first read.
 */
export async function sanitizeForStorage(sanitizer: HtmlSanitizerPool, html: string, inline: InlineImages): Promise<{ html: string | null; state: HtmlState }> {
  const result = await sanitizer.sanitize(html, inline);
  return result.dropped ? { html: null, state: 'dropped' } : { html: result.html, state: 'clean' };
}
