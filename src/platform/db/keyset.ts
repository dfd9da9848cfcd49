import { type Expression, type RawBuilder, type SqlBool, sql } from 'kysely';
import { ValidationError } from '../errors.js';

/**
 * Keyset pagination, for every list of the service (orders, commissions, withdrawals, affiliates,
 * deliveries, a mailbox's messages). Pages are cut by the sort key of the last item, never an offset,
 * so they stay stable while rows are added and never skip or repeat one. Cursors are opaque to clients:
 * base64url JSON of the list's name and that key. The name makes another list's cursor (or one from
 * before names were added) a 400, not a page of the wrong list. Lists are newest first unless one says
 * otherwise.
 */

export type KeyPart = 'string' | 'number';
export type KeyOf<T extends readonly KeyPart[]> = { [K in keyof T]: T[K] extends 'number' ? number : string };

/** One page of a list (docs/api.md#conventions: `{success, items, next_cursor}` without `success`). */
export interface Page<T> {
  readonly items: T[];
  readonly next_cursor: string | null;
}

/** The same page with each item mapped (the edge turns rows into bodies). */
export function mapPage<R, T>(page: Page<R>, shape: (row: R) => T): Page<T> {
  return { items: page.items.map(shape), next_cursor: page.next_cursor };
}

/** Longest string a cursor may carry (ids and ref codes are far shorter). */
const MAX_CURSOR_STRING = 400;

export function encodeKey(key: readonly (string | number)[], list?: string): string {
  return Buffer.from(JSON.stringify(list === undefined ? key : [list, ...key])).toString('base64url');
}

/**
 * The key of a cursor this service issued, or a 400 naming `cursor` (README.md#limits): not base64url JSON,
 * another list's, the wrong shape, a number that is not a safe integer (times and sequence numbers
 * are), a string with a NUL or longer than any key. Given `list`, the cursor must carry that name;
 * without one (a list that does not name its cursors) a named cursor is read too.
 */
export function decodeKey<T extends readonly KeyPart[]>(cursor: string, types: T, list?: string): KeyOf<T> {
  let key: unknown;
  try {
    key = /^[A-Za-z0-9_-]*$/.test(cursor) ? JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) : undefined;
  } catch {
    key = undefined;
  }
  if (Array.isArray(key)) {
    if (list !== undefined) key = key[0] === list ? key.slice(1) : undefined;
    else if (key.length === types.length + 1 && typeof key[0] === 'string') key = key.slice(1);
  }
  const valid =
    Array.isArray(key) &&
    key.length === types.length &&
    key.every((v, i) =>
      types[i] === 'number' ? Number.isSafeInteger(v) : typeof v === 'string' && v.length <= MAX_CURSOR_STRING && !v.includes('\u0000'),
    );
  if (!valid) throw new ValidationError([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
  return key as KeyOf<T>;
}

/**
 * Repositories fetch limit + 1 rows; this cuts the extra row off and turns the key of the last kept one
 * into the next cursor, so a page that ends exactly at the end of the list has no next_cursor.
 */
export function keysetPage<R, T>(rows: readonly R[], limit: number, key: (row: R) => readonly (string | number)[], shape: (row: R) => T, list?: string): Page<T> {
  const more = rows.length > limit;
  const kept = more ? rows.slice(0, limit) : rows;
  const last = kept[kept.length - 1];
  return { items: kept.map(shape), next_cursor: more && last !== undefined ? encodeKey(key(last), list) : null };
}

/** The key most lists are ordered by, newest first: (created_at, id). */
export interface PageCursor {
  readonly createdAt: number;
  readonly id: string;
}

/** `list` names the list (`orders`, …) so that its cursors are refused by every other list. */
export function encodeCursor(cursor: PageCursor, list?: string): string {
  return encodeKey([cursor.createdAt, cursor.id], list);
}

/** No cursor (or an empty one) is the first page; a cursor this list did not issue is a 400 naming `cursor`. */
export function decodeCursor(raw: string | undefined, list?: string): PageCursor | undefined {
  if (raw === undefined || raw === '') return undefined;
  const [createdAt, id] = decodeKey(raw, ['number', 'string'] as const, list);
  return { createdAt, id };
}

/** keysetPage for lists keyed by (created_at, id). */
export function toPage<R, T>(rows: readonly R[], limit: number, position: (row: R) => PageCursor, shape: (row: R) => T, list?: string): Page<T> {
  return keysetPage(
    rows,
    limit,
    (row) => {
      const p = position(row);
      return [p.createdAt, p.id];
    },
    shape,
    list,
  );
}

/**
 * Keyset condition for lists ordered newest first by (created_at, id): rows strictly after the cursor.
 * Written out rather than as a row comparison so both dialects use the (created_at, …) index alike, and
 * led by the plain bound `created_at <= x`: with only the OR, SQLite walked the index from the newest row
 * on every page, so a page deep in a large list cost as much as all the pages before it (the CSV exports
 * read every page: 1,000,000 rows took minutes). The bound makes every page an index seek.
 */
export function olderThan(after: PageCursor, idColumn: string): RawBuilder<boolean> {
  return sql<boolean>`(created_at <= ${after.createdAt} and (created_at < ${after.createdAt} or ${sql.ref(idColumn)} < ${after.id}))`;
}

/** The part of a Kysely select that a newest-first page needs (any table's select satisfies it). */
interface Pageable<Q> {
  where(condition: Expression<SqlBool>): Q;
  orderBy(expression: Expression<unknown>, direction: 'desc'): Q;
  limit(count: number): Q;
}

/**
 * A select cut to one page newest first by (created_at, idColumn): strictly after `page.after` when
 * given, limit + 1 rows so the caller knows whether another page follows.
 */
export function newestFirst<Q extends Pageable<Q>>(q: Q, page: { readonly after?: PageCursor; readonly limit: number }, idColumn: string): Q {
  const from = page.after ? q.where(olderThan(page.after, idColumn)) : q;
  return from.orderBy(sql.ref('created_at'), 'desc').orderBy(sql.ref(idColumn), 'desc').limit(page.limit + 1);
}

/** The equality filters of a list that were given (for `eb.and(...)`): undefined, null or empty is no filter. */
export function given<T extends Record<string, unknown>>(filters: T): { [K in keyof T]: Exclude<T[K], undefined | null> } {
  return Object.fromEntries(Object.entries(filters).filter(([, v]) => v !== undefined && v !== null && v !== '')) as {
    [K in keyof T]: Exclude<T[K], undefined | null>;
  };
}
