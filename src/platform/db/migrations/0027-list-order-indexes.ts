import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The unfiltered commission and withdrawal lists (the admin pages' default view, and their CSV exports)
 * are ordered newest first by (created_at, id): without an index in that order every page sorted the whole
 * table, so reading all pages of a large table took time quadratic in its size. The orders list has had
 * its (created_at, order_id) index since 0001.
 */
export function listOrderIndexes(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('commissions_created').ifNotExists().on('commissions').columns(['created_at', 'id']).execute();
      await db.schema.createIndex('withdrawals_created').ifNotExists().on('withdrawals').columns(['created_at', 'id']).execute();
    },
  };
}
