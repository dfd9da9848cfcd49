import type { Kysely } from 'kysely';

/**
 * CONTRACT §14, the mail.tm-compatible API: an account is a mailbox with a password (scrypt, like the
 * admin's) and the id mail.tm clients know it by; its bearer tokens are stored as sha256 only and go
 * with the account. The mailbox itself stays when the account is deleted (attribution keeps it).
 */
export function mailtm() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('mailtm_accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('address', 'text', (c) => c.notNull().unique().references('mailboxes.address'))
        .addColumn('password_hash', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('mailtm_tokens')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull().references('mailtm_accounts.id').onDelete('cascade'))
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('mailtm_tokens_account').on('mailtm_tokens').column('account_id').execute();
      await db.schema.createIndex('mailtm_tokens_expires').on('mailtm_tokens').column('expires_at').execute();
    },
  };
}
