import { type RawBuilder, sql } from 'kysely';

/**
 * Keyset condition for lists ordered newest first by (created_at, id): rows strictly after the cursor.
 * Written out as OR/AND rather than a row comparison so both dialects use the (created_at, …) index alike.
 */
export function olderThan(after: { readonly createdAt: number; readonly id: string }, idColumn: string): RawBuilder<boolean> {
  return sql<boolean>`(created_at < ${after.createdAt} or (created_at = ${after.createdAt} and ${sql.ref(idColumn)} < ${after.id}))`;
}
