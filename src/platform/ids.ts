import { randomBytes } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz'; // Crockford base32, lower case

function encodeTime(ms: number): string {
  let out = '';
  let t = ms;
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[t % 32] + out;
    t = Math.floor(t / 32);
  }
  return out;
}

/** Random base32 string from a cryptographic source. */
export function randomToken(length: number): string {
  const bytes = randomBytes(length);
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[(bytes[i] as number) & 31];
  return out;
}

/**
 * Sortable unique id: prefix, creation time and 80 random bits (ULID layout), so ids order by creation
 * and cursors can page on them.
 */
export function newId(prefix: string, nowMs: number): string {
  return `${prefix}_${encodeTime(nowMs)}${randomToken(16)}`;
}
