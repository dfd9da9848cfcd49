import { type Kysely, sql } from 'kysely';

/**
 * Mail domains live in the database (docs/api.md, "Domains"): every instance reads the same list, so a
 * domain added or retired takes effect everywhere at once. `position` keeps the order they were added
 * (the default for a new mailbox is the first active one). The list is seeded from SVC_MAIL_DOMAINS by the
 * first start that finds it empty (DomainService.seed), not here: the variable is the start's, not the
 * migration's. `mailboxes_without_token` serves the admin's mail browser;
 * `mailboxes_domain` makes "does this domain have mailboxes" (delete: 409) an index probe.
 */
export function mailDomains() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mail_domains')
        .addColumn('domain', 'text', (c) => c.primaryKey())
        .addColumn('position', 'bigint', (c) => c.notNull().unique())
        .addColumn('active', 'integer', (c) => c.notNull())
        .addColumn('catch_all', 'integer', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mailboxes_domain').on('mailboxes').columns(['domain', 'created_at']).execute();
      // the admin's mail browser: mailboxes with no token (caught by a catch-all domain), newest first
      await db.schema
        .createIndex('mailboxes_without_token')
        .on('mailboxes')
        .columns(['created_at', 'address'])
        .where(sql.ref('token_hash'), '=', '')
        .execute();
    },
  };
}
