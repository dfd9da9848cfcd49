import { randomFillSync } from 'node:crypto';

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

/**
 * Random bytes come from the system's CSPRNG 4 KiB at a time, not one call per token: every order, withdrawal,
 * event and mailbox makes ids, and the call cost about as much as the rest of newId. The bytes are the same
 * source's, each handed out once.
 */
const pool = Buffer.alloc(4096);
let poolAt = pool.length;

/** Random base32 string from a cryptographic source. */
export function randomToken(length: number): string {
  if (length > pool.length) throw new RangeError(`a random token of at most ${pool.length} characters, not ${length}`);
  if (poolAt + length > pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  let out = '';
  for (let i = 0; i < length; i++) out += ALPHABET[(pool[poolAt + i] as number) & 31];
  poolAt += length;
  return out;
}

/**
 * Sortable unique id: prefix, creation time and 80 random bits (ULID layout), so ids order by creation
 * and cursors can page on them.
 */
export function newId(prefix: string, nowMs: number): string {
  return `${prefix}_${encodeTime(nowMs)}${randomToken(16)}`;
}
