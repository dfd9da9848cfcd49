import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * SQLite's search index forgets deleted copies in batches (docs/architecture.md#work-that-grows-with-stored-data):
 * 0100's trigger deleted a copy's row from the full-text table with the copy, one at a time, and each such
 * delete rewrote the deleted-rows pages of the index segment holding it: with every mailbox at its
 * `mailbox_max_messages`, each arrival trims one copy, and that delete was about 40% of the intake's SQLite
 * time. Now the trigger only notes the copy's seq in `message_search_gone`, and the intake (and retention)
 * removes the noted rows from the index hundreds at a time (search-index.repository.ts), ~5 times cheaper a
 * row. Until then a noted row is only dead weight: a search joins `messages`, where the copy is gone.
 * PostgreSQL's index rows go with their copy (a foreign key), unchanged.
 */
export function searchDeletesBatched(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      await sql`create table message_search_gone (seq integer primary key)`.execute(db);
      await sql`drop trigger message_search_delete`.execute(db);
      await sql`create trigger message_search_delete after delete on messages begin insert or ignore into message_search_gone (seq) values (old.seq); end`.execute(db);
    },
  };
}
