import { createHash } from 'node:crypto';
import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/** Rows copied per statement while the index is rebuilt. */
const REBUILD_BATCH = 2000;
const KEY_CHARS = 12;
const SPACES = / {2,}/g;
const NOT_A_WORD_CHAR = /[^\p{L}\p{N}\p{M}]+/gu;
const CJK_CHAR = /([\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}])/gu;

/**
 * SQLite's mailbox search scoped to the mailbox (docs/architecture.md#work-that-grows-with-stored-data): 0081's
 * index answered a query from every mailbox's entries and filtered by address afterwards (~100 ms per search
 * of an empty mailbox at 25,000 stored messages, growing with svc's mail). Here every word of a copy is
 * indexed glued to its mailbox's key (src/mail/messages/search-text.ts, mailboxSearchKey, repeated below as a
 * migration must not change with later code), so a query reads that mailbox's entries only. The table is
 * contentless (nothing reads a document back; a trim deletes a row without re-reading its text), rebuilt from
 * 0081's documents in batches. PostgreSQL keeps 0081's layout: its search runs in the database server, off
 * svc's event loop, and answers a page at a time.
 */
export function scopedMessageSearch(dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      if (dialect !== 'sqlite') return;
      const keyOf = (address: string) => createHash('sha256').update(address).digest('hex').slice(0, KEY_CHARS);
      await sql`create virtual table message_search_scoped using fts5(document, content = '', contentless_delete = 1, tokenize = 'unicode61 remove_diacritics 2')`.execute(db);
      for (let after = 0; ; ) {
        const rows = await sql<{ seq: number; mailbox_address: string; document: string | null }>`
          select m.seq, m.mailbox_address, s.document from messages m join message_search s on s.rowid = m.seq
          where m.seq > ${after} order by m.seq limit ${REBUILD_BATCH}`.execute(db);
        if (rows.rows.length === 0) break;
        for (const row of rows.rows) {
          // 0081's documents of older copies were written by SQL (punctuation kept): made words as search-text.ts makes them.
          const words = (row.document ?? '').normalize('NFKC').toLowerCase().replace(NOT_A_WORD_CHAR, ' ').replace(CJK_CHAR, ' $1 ').replace(SPACES, ' ').trim();
          if (words === '') continue;
          const key = keyOf(row.mailbox_address);
          await sql`insert into message_search_scoped (rowid, document) values (${row.seq}, ${key + words.replaceAll(' ', ` ${key}`)})`.execute(db);
        }
        after = Number(rows.rows[rows.rows.length - 1]!.seq);
      }
      await sql`drop trigger message_search_delete`.execute(db);
      await sql`drop table message_search`.execute(db);
      await sql`alter table message_search_scoped rename to message_search`.execute(db);
      await sql`create trigger message_search_delete after delete on messages begin delete from message_search where rowid = old.seq; end`.execute(db);
    },
  };
}
