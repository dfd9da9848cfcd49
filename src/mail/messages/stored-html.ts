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

export function normalizeContentType(value: string | null): string {
  const type = (value ?? '').split(';')[0]!.trim().toLowerCase();
  return /^[a-z0-9!#$&^_.+-]+\/[a-z0-9!#$&^_.+-]+$/.test(type) ? type : 'application/octet-stream';
}
