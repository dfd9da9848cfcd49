import { sql } from 'kysely';
import type { Executor } from '../../platform/db/database.js';
import type { MailtmAccount, MessageRow } from '../../platform/db/schema.js';

export async function insertAccount(db: Executor, row: MailtmAccount): Promise<void> {
  await db.insertInto('mailtm_accounts').values(row).execute();
}

export async function findAccountByAddress(db: Executor, address: string): Promise<MailtmAccount | undefined> {
  return db.selectFrom('mailtm_accounts').selectAll().where('address', '=', address).executeTakeFirst();
}

export async function findAccountById(db: Executor, id: string): Promise<MailtmAccount | undefined> {
  return db.selectFrom('mailtm_accounts').selectAll().where('id', '=', id).executeTakeFirst();
}

/** The account a live (unexpired) token belongs to. */
export async function findAccountByToken(db: Executor, tokenHash: string, now: number): Promise<MailtmAccount | undefined> {
  return db
    .selectFrom('mailtm_tokens as t')
    .innerJoin('mailtm_accounts as a', 'a.id', 't.account_id')
    .selectAll('a')
    .where('t.token_hash', '=', tokenHash)
    .where('t.expires_at', '>', now)
    .executeTakeFirst();
}

export async function insertToken(db: Executor, row: { token_hash: string; account_id: string; created_at: number; expires_at: number }): Promise<void> {
  await db.insertInto('mailtm_tokens').values(row).execute();
}

/** Expired tokens of every account, a batch at a time (called when tokens are issued). */
export async function deleteExpiredTokens(db: Executor, now: number, batch = 500): Promise<void> {
  await db
    .deleteFrom('mailtm_tokens')
    .where('token_hash', 'in', (qb) => qb.selectFrom('mailtm_tokens').select('token_hash').where('expires_at', '<=', now).limit(batch))
    .execute();
}

/** The account and (cascade) its tokens. */
export async function deleteAccount(db: Executor, id: string): Promise<boolean> {
  const res = await db.deleteFrom('mailtm_accounts').where('id', '=', id).executeTakeFirst();
  return Number(res.numDeletedRows) > 0;
}

/** Every copy in one mailbox: answers their message ids, whose contents the caller releases. */
export async function deleteMailboxMessages(db: Executor, address: string): Promise<string[]> {
  const gone = await db.deleteFrom('messages').where('mailbox_address', '=', address).returning('id').execute();
  return gone.map((r) => r.id);
}

export async function countMessages(db: Executor, address: string): Promise<number> {
  const row = await db
    .selectFrom('messages')
    .select((eb) => eb.fn.countAll().as('n'))
    .where('mailbox_address', '=', address)
    .executeTakeFirst();
  return Number(row?.n ?? 0);
}

export type MessageListRow = Pick<
  MessageRow,
  'id' | 'mailbox_address' | 'from_address' | 'from_name' | 'to_header' | 'subject' | 'size' | 'attachments_count' | 'received_at' | 'seen'
> & { msgid: string | null; intro_text: string | null };

/** Characters of the text read for a list item's `intro` (it shows fewer). */
const INTRO_SOURCE_CHARS = 400;

const LIST_COLUMNS = ['m.id', 'm.mailbox_address', 'm.from_address', 'm.from_name', 'm.to_header', 'm.subject', 'm.size', 'm.attachments_count', 'm.received_at', 'm.seen'] as const;
const INTRO = ['c.msgid', sql<string | null>`substr(c.text, 1, ${INTRO_SOURCE_CHARS})`.as('intro_text')] as const;

function listQuery(db: Executor, address: string) {
  return db
    .selectFrom('messages as m')
    .innerJoin('message_contents as c', 'c.id', 'm.id')
    .select(LIST_COLUMNS)
    .select(INTRO)
    .where('m.mailbox_address', '=', address);
}

/** One page of a mailbox, newest first (mail.tm pages by number). */
export async function listMessagePage(db: Executor, address: string, limit: number, offset: number): Promise<MessageListRow[]> {
  return listQuery(db, address).orderBy('m.seq', 'desc').limit(limit).offset(offset).execute();
}

/** One message of an account as a list item (the live stream sends new messages in this shape); none once the account is deleted. */
export async function findAccountMessageListRow(db: Executor, accountId: string, id: string): Promise<MessageListRow | undefined> {
  return db
    .selectFrom('mailtm_accounts as a')
    .innerJoin('messages as m', 'm.mailbox_address', 'a.address')
    .innerJoin('message_contents as c', 'c.id', 'm.id')
    .select(LIST_COLUMNS)
    .select(INTRO)
    .where('a.id', '=', accountId)
    .where('m.id', '=', id)
    .executeTakeFirst();
}
