import { z } from 'zod';
import { ValidationError } from '../errors.js';

/** `limit` and `cursor` of every list (CONTRACT §1: default 50, max 500). */
export const listQuerySchema = z.object({
  limit: z.coerce.number().int('must be an integer').min(1).max(500).default(50),
  cursor: z.string().max(1000).optional(),
});

/**
 * Cursors are opaque to clients: the sort key of the last item, base64url JSON. Keyset paging keeps
 * pages stable while rows are added and never skips or repeats one.
 */
export function encodeCursor(key: readonly (string | number)[]): string {
  return Buffer.from(JSON.stringify(key)).toString('base64url');
}

/** The key of a cursor, checked against the expected element types; a malformed one is a 400. */
export function decodeCursor<T extends readonly ('string' | 'number')[]>(cursor: string, types: T): { [K in keyof T]: T[K] extends 'number' ? number : string } {
  let key: unknown;
  try {
    key = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    key = undefined;
  }
  if (!Array.isArray(key) || key.length !== types.length || key.some((v, i) => typeof v !== types[i])) {
    throw new ValidationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
  }
  return key as { [K in keyof T]: T[K] extends 'number' ? number : string };
}
