import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Inbound mail. One `messages` row per receiving mailbox (a delete in one mailbox never touches the
 * copy in another); the same public id is shared by the copies. `seq` orders arrivals for the SSE
 * poll fallback. Attachment bytes live in the database (blob / bytea) and go with their message.
 */
export function mail(dialect: Dialect) {
  const autoId = dialect === 'sqlite' ? ('integer' as const) : sql`bigserial`;
  const bytes = dialect === 'sqlite' ? ('blob' as const) : sql`bytea`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('messages')
        .addColumn('seq', autoId, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('mailbox_address', 'text', (c) => c.notNull())
        .addColumn('from_address', 'text')
        .addColumn('from_name', 'text')
        .addColumn('to_header', 'text')
        .addColumn('subject', 'text')
        .addColumn('text', 'text')
        .addColumn('html', 'text')
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('attachments_count', 'integer', (c) => c.notNull())
        .addColumn('received_at', 'bigint', (c) => c.notNull())
        .addUniqueConstraint('messages_mailbox_id', ['mailbox_address', 'id'])
        .execute();
      // Listing pages by (mailbox, seq desc); reading finds (mailbox, id) by the unique constraint; retention scans by time.
      await db.schema.createIndex('messages_mailbox_seq').on('messages').columns(['mailbox_address', 'seq']).execute();
      await db.schema.createIndex('messages_received').on('messages').column('received_at').execute();

      await db.schema
        .createTable('attachments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('message_seq', 'bigint', (c) => c.notNull().references('messages.seq').onDelete('cascade'))
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('content_id', 'text')
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content', bytes, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('attachments_message').on('attachments').columns(['message_seq', 'position']).execute();
    },
    async down(db: Kysely<unknown>): Promise<void> {
      await db.schema.dropTable('attachments').execute();
      await db.schema.dropTable('messages').execute();
    },
  };
}
