import { type Kysely, sql } from 'kysely';

/**
 * CONTRACT §16: a mail.tm account's messages never hold more bytes than its quota. The quota is the
 * mailbox's `max_bytes` (null: none), set when the mailbox is created with its account and never changed
 * after, so the intake reads it with the mailbox row it locks anyway. `bytes_bound` (kept for mailboxes
 * with a quota) is never below the bytes the mailbox's messages hold: the intake sums them only when the
 * bound says the next message might not fit (byte-quota.ts). Accounts created before get mail.tm's
 * 40 MiB, the quota their `/me` already showed, and their exact sum as the bound.
 */
export function mailboxByteQuota() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('mailboxes').addColumn('max_bytes', 'bigint').execute();
      await db.schema.alterTable('mailboxes').addColumn('bytes_bound', 'bigint').execute();
      await sql`
        update mailboxes
        set max_bytes = ${40 * 1024 * 1024},
            bytes_bound = (select coalesce(sum(m.size), 0) from messages m where m.mailbox_address = mailboxes.address)
        where address in (select address from mailtm_accounts)`.execute(db);
    },
  };
}
