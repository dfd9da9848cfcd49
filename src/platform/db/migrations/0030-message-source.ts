import type { Kysely } from 'kysely';
import { sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * CONTRACT §14: every message has its raw source and its headers, and each mailbox copy its own
 * `seen` flag. The source (as received over SMTP; for /api/inbound see 0032) and the
 * headers (JSON, parsed once at intake) live in the shared content row, once per message whatever the
 * number of mailboxes; `seen` is per copy (one mailbox reading a message does not mark it read in
 * another). Messages stored before have no source: it is composed from their parts when asked for.
 *
 * A source is written and read in chunks of 1 MiB: the first in the content row, the rest in
 * `message_source_chunks` (going with the content row). One statement with a 10 MB blob held SQLite's
 * synchronous connection, and so the event loop, for up to 800 ms (CONTRACT §11).
 */
export function messageSource(dialect: Dialect) {
  const bytes = dialect === 'sqlite' ? ('blob' as const) : sql`bytea`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      // 0/1 on both databases: one column type, one mapping in the repository.
      await db.schema.alterTable('messages').addColumn('seen', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await db.schema.alterTable('message_contents').addColumn('source', bytes).execute();
      await db.schema.alterTable('message_contents').addColumn('headers', 'text').execute();
      // The Message-ID header on its own, for lists that show it (the mail.tm API's `msgid`).
      await db.schema.alterTable('message_contents').addColumn('msgid', 'text').execute();
      await db.schema
        .createTable('message_source_chunks')
        .addColumn('message_id', 'text', (c) => c.notNull().references('message_contents.id').onDelete('cascade'))
        // 1, 2, …: chunk 0 is message_contents.source
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('bytes', bytes, (c) => c.notNull())
        .addPrimaryKeyConstraint('message_source_chunks_pk', ['message_id', 'position'])
        .execute();
    },
  };
}
