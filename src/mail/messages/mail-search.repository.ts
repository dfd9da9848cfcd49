import { sql } from 'kysely';
import type { Dialect, Executor } from '../../platform/db/database.js';
import { type MessageSummaryRow, SUMMARY } from './mail.repository.js';
import { keyedDocument, mailboxSearchKey, type SearchTerm } from './search-text.js';

/* Mailbox search: the search row written with each copy, and the full-text query that reads it. */
/**
 * The search row of one copy, in the intake's transaction; it goes with the copy. SQLite (migration 0100): its
 * words glued to its mailbox's key (search-text.ts, mailboxSearchKey). PostgreSQL (0081): a tsvector.
 */
export async function insertSearchDocument(db: Executor, dialect: Dialect, seq: number, address: string, document: string): Promise<void> {
  if (dialect === 'sqlite') await sql`insert into message_search (rowid, document) values (${seq}, ${keyedDocument(mailboxSearchKey(address), document)})`.execute(db);
  else await sql`insert into message_search (seq, document) values (${seq}, to_tsvector('simple', ${document}))`.execute(db);
}

/**
 * The query of mailbox search in the database's full-text language: every term must match; a one-word
 * term as a prefix, a run of CJK characters as a phrase. Terms hold letters, digits and marks only
 * (search-text.ts), so quoting them is enough.
 */
function fullTextQuery(dialect: Dialect, address: string, terms: readonly SearchTerm[]): string {
  if (dialect === 'sqlite') {
    // Each word glued to the mailbox's key, as indexed: the terms read that mailbox's index entries only.
    const key = mailboxSearchKey(address);
    return terms.map((t) => `"${t.tokens.map((k) => key + k).join(' ')}"${t.prefix ? '*' : ''}`).join(' AND ');
  }
  return terms.map((t) => (t.prefix ? `'${t.tokens[0]}':*` : `(${t.tokens.map((k) => `'${k}'`).join(' <-> ')})`)).join(' & ');
}

/**
 * A mailbox's copies that match every term, newest first (seq), a page at a time like listMessages. On SQLite
 * the full-text part reads only the mailbox's own index entries (its key), so its cost is what the mailbox
 * holds, not what svc holds (test/integration/data-size.test.ts, bench/data-size.mjs).
 */
export async function searchMessages(
  db: Executor,
  dialect: Dialect,
  address: string,
  terms: readonly SearchTerm[],
  limit: number,
  beforeSeq?: number,
): Promise<MessageSummaryRow[]> {
  const query = fullTextQuery(dialect, address, terms);
  let q = db.selectFrom('messages').select(SUMMARY).where('mailbox_address', '=', address);
  q =
    dialect === 'sqlite'
      ? q.where(sql<boolean>`seq in (select rowid from message_search where message_search match ${query})`)
      : q.where(sql<boolean>`exists (select 1 from message_search s where s.seq = messages.seq and s.document @@ to_tsquery('simple', ${query}))`);
  if (beforeSeq !== undefined) q = q.where('seq', '<', beforeSeq);
  return q.orderBy('seq', 'desc').limit(limit).execute();
}
