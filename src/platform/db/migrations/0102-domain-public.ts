import type { Kysely } from 'kysely';

/**
 * docs/api.md#domains: `public` says whether anonymous clients (POST /mailboxes,
 * the mail.tm `POST /accounts`) may create mailboxes on a domain and see it listed. Every domain that
 * exists already stays public (the default), so nothing changes for them until an admin says otherwise.
 */
export function domainPublic() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('mail_domains').addColumn('public', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    },
  };
}
