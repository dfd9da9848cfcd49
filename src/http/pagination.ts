import { z } from 'zod';
import { ValidationError } from '../errors.js';

/** Position after the last item of a page: lists are ordered newest first by (created_at, id). */
export interface PageCursor {
  readonly createdAt: number;
  readonly id: string;
}

export interface Page<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

/** `limit` and `cursor` of every list (CONTRACT §1: default 50, max 500). */
export const pageQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(500).optional(),
});

/** Opaque to clients: base64url of the last item's (created_at, id). */
export function encodeCursor(cursor: PageCursor): string {
  return Buffer.from(JSON.stringify([cursor.createdAt, cursor.id]), 'utf8').toString('base64url');
}

export function decodeCursor(raw: string | undefined): PageCursor | undefined {
  if (raw === undefined || raw === '') return undefined;
  try {
    const value: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isSafeInteger(value[0]) && typeof value[1] === 'string') {
      return { createdAt: value[0] as number, id: value[1] };
    }
  } catch {
    // fall through to the validation error
  }
  throw new ValidationError([{ field: 'cursor', message: 'is not a cursor from this list' }]);
}

/**
 * Repositories fetch limit + 1 rows; this cuts the extra row off and turns the last kept one into the
 * next cursor, so a page that ends exactly at the end of the list has no next_cursor.
 */
export function toPage<R, T>(rows: R[], limit: number, position: (row: R) => PageCursor, shape: (row: R) => T): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return { items: kept.map(shape), next_cursor: more && last !== undefined ? encodeCursor(position(last)) : null };
}
