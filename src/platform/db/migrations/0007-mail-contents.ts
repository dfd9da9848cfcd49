import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * CONTRACT §11: a message's content is stored once, whatever the number of recipient mailboxes.
 * `message_contents` holds the text, the HTML (sanitised when stored) and, through `message_attachments`,
 * the attachment bytes of one public message id; `refs` counts the `messages` rows (mailbox copies)
 * that share it, and the content goes with the last of them.
 *
 * Existing rows: each message id gets one content row (from its first copy) with its HTML marked `raw`,
 * sanitised once, off the main thread, the first time it is read. Existing attachments keep their ids
 * and their copy (`copy_seq`), so every link handed out before still works; only new ones are shared.
 */
export function mailContents(dialect: Dialect) {
  const bytes = dialect === 'sqlite' ? ('blob' as const) : sql`bytea`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.createIndex('messages_id').on('messages').column('id').execute();
      await db.schema
        .createTable('message_contents')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('refs', 'integer', (c) => c.notNull())
        .addColumn('text', 'text')
        .addColumn('html', 'text')
        // none | clean (sanitised) | dropped (could not be sanitised in time) | raw (stored before 0007)
        .addColumn('html_state', 'text', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('message_attachments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('message_id', 'text', (c) => c.notNull().references('message_contents.id').onDelete('cascade'))
        // null: shared by every copy; set: an attachment stored before 0007 for that one copy only
        .addColumn('copy_seq', 'bigint')
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('filename', 'text', (c) => c.notNull())
        .addColumn('content_type', 'text', (c) => c.notNull())
        .addColumn('content_id', 'text')
        .addColumn('size', 'bigint', (c) => c.notNull())
        .addColumn('content', bytes, (c) => c.notNull())
        .execute();
      await db.schema.createIndex('message_attachments_message').on('message_attachments').columns(['message_id', 'position']).execute();

      await sql`
        insert into message_contents (id, refs, text, html, html_state)
        select m.id, (select count(*) from messages c where c.id = m.id), m.text, m.html,
               case when m.html is null then 'none' else 'raw' end
        from messages m
        where m.seq = (select min(c.seq) from messages c where c.id = m.id)`.execute(db);
      await sql`
        insert into message_attachments (id, message_id, copy_seq, position, filename, content_type, content_id, size, content)
        select a.id, m.id, a.message_seq, a.position, a.filename, a.content_type, a.content_id, a.size, a.content
        from attachments a join messages m on m.seq = a.message_seq`.execute(db);
      await db.schema.dropTable('attachments').execute();
      // Only the copy above needed it; every later lookup by id also names the mailbox (unique key).
      await db.schema.dropIndex('messages_id').execute();
      await db.schema.alterTable('messages').dropColumn('text').execute();
      await db.schema.alterTable('messages').dropColumn('html').execute();
    },
    async down(): Promise<void> {
      throw new Error('0007-mail-contents cannot be undone (attachments were merged)');
    },
  };
}
