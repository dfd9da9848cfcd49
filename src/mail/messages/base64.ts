/**
 * Strict base64: the standard alphabet, correct padding, length a multiple of four. Line breaks and
 * spaces are tolerated because MIME wraps base64 at 76 columns. Answers undefined when the text is
 * not base64, rather than letting Buffer.from silently drop the bad characters.
 */
export function decodeBase64Strict(text: string): Buffer | undefined {
  const compact = text.replace(/[\r\n\t ]+/g, '');
  if (compact.length % 4 !== 0) return undefined;
  if (!/^[A-Za-z0-9+/]*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/.test(compact)) return undefined;
  return Buffer.from(compact, 'base64');
}
