import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The commission list filtered by affiliate and status (the admin's filters, the affiliate portal's
 * commissions page, their CSV exports) read every matching row and sorted them for each page: the
 * (ref_code, created_at) and (status, created_at) indexes each cover one filter, and PostgreSQL combined
 * them with a bitmap and a sort. In the list's own order, a page is an index seek whatever the number
 * of an affiliate's commissions.
 */
export function filteredListIndexes(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('commissions_ref_status_created').ifNotExists().on('commissions').columns(['ref_code', 'status', 'created_at', 'id']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropIndex('commissions_ref_status_created').ifExists().execute();
    },
  };
}
