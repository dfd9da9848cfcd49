import { randomBytes } from 'node:crypto';
import { safeEqual, sha256Hex } from '../auth/secrets.js';

/** The bearer token that reads a mailbox: shown once at creation, stored only as its sha256. */
export function newMailboxToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

export function mailboxTokenMatches(presented: string | undefined, storedHash: string): boolean {
  return !!presented && safeEqual(sha256Hex(presented), storedHash);
}
