import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

export function sha256Hex(value: string): string {
  return createHash('sha256').update(value).digest('hex');
}

/** Constant-time comparison of two strings of any length (hashing first equalises the lengths). */
export function safeEqual(a: string, b: string): boolean {
  const da = createHash('sha256').update(a).digest();
  const db = createHash('sha256').update(b).digest();
  return timingSafeEqual(da, db) && a.length === b.length;
}

export function generateApiKey(): string {
  return `svc_${randomBytes(24).toString('base64url')}`;
}

export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}
