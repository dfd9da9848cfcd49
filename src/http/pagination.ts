import * as listQuery from './list-query.js';

/**
 * Keyset pages of the ledger's lists (orders, commissions, withdrawals), on top of list-query's cursor
 * format so every list in the API pages the same way. Lists are newest first by (created_at, id).
 */
export interface PageCursor {
  readonly createdAt: number;
  readonly id: string;
}

export interface Page<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

/** `limit` and `cursor` of every list (CONTRACT §1: default 50, max 500). */
export const pageQuerySchema = listQuery.listQuerySchema;

export function encodeCursor(cursor: PageCursor): string {
  return listQuery.encodeCursor([cursor.createdAt, cursor.id]);
}

/** A malformed cursor is a 400 naming `cursor`. */
export function decodeCursor(raw: string | undefined): PageCursor | undefined {
  if (raw === undefined || raw === '') return undefined;
  const [createdAt, id] = listQuery.decodeCursor(raw, ['number', 'string'] as const);
  return { createdAt, id };
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
