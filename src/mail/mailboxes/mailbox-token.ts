import { randomBytes } from 'node:crypto';
import { safeEqual, sha256Hex } from '../../platform/auth/secrets.js';

/** The bearer token that reads a mailbox: shown once at creation, stored only as its sha256. */
export function newMailboxToken(): { token: string; hash: string } {
  const token = randomBytes(24).toString('base64url');
  return { token, hash: sha256Hex(token) };
}

/** The token_hash of a mailbox with no token (created by a catch-all domain): no token reads it. */
export const NO_TOKEN = '';

export function mailboxTokenMatches(presented: string | undefined, storedHash: string): boolean {
  return !!presented && storedHash !== NO_TOKEN && safeEqual(sha256Hex(presented), storedHash);
}
