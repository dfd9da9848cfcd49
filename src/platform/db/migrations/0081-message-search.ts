import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Mailbox search (src/mail/messages/search-text.ts): one full-text row per mailbox copy, keyed by the copy's seq,
 * holding its subject, sender and text as `searchText` writes them. SQLite: an FTS5 table (rowid = seq)
 * and a trigger that deletes the row with its copy. PostgreSQL: a `tsvector` of the `simple` configuration
 * with a GIN index, deleted with its copy by the foreign key. Either way every path that deletes copies
 * (delete, trim, byte quota, retention) keeps the index in step. Copies stored before are indexed here,
 * lower-cased by the database (in the C locale, ASCII letters only).
 */
export function messageSearch(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      const document = sql`coalesce(m.subject, '') || ' ' || coalesce(m.from_address, '') || ' ' || coalesce(m.from_name, '') || ' ' || coalesce(substr(c.text, 1, 32000), '')`;
      if (dialect === 'sqlite') {
        await sql`create virtual table message_search using fts5(document, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
        await sql`create trigger message_search_delete after delete on messages begin delete from message_search where rowid = old.seq; end`.execute(db);
        await sql`insert into message_search (rowid, document) select m.seq, ${document} from messages m join message_contents c on c.id = m.id`.execute(db);
        return;
      }
      await sql`create table message_search (seq bigint primary key references messages (seq) on delete cascade, document tsvector not null)`.execute(db);
      await sql`create index message_search_document on message_search using gin (document)`.execute(db);
      await sql`insert into message_search (seq, document)
        select m.seq, to_tsvector('simple', lower(regexp_replace(${document}, '[[:punct:][:space:]]+', ' ', 'g'))) from messages m join message_contents c on c.id = m.id`.execute(db);
    },
  };
}
