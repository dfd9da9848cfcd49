import { type Kysely, sql } from 'kysely';

/**
 * docs/api.md#email-confirmation: `affiliates.email_confirmed_at` is when the affiliate's email was confirmed
 * (null: given at sign-up and not yet confirmed from the link mailed to it, so not used for sign-in, resets
 * or notifications). Every email already stored was given by the operator or used before this rule: it is
 * marked confirmed, so existing affiliates keep working. `affiliate_invites.email` is the address a
 * `confirm` token confirms (a later change of email voids it). The index serves the per-recipient cap on
 * mails caused by anonymous requests (README.md#outbound-mail: at most 5 an hour to one address).
 */
export function emailConfirmation() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema.alterTable('affiliates').addColumn('email_confirmed_at', 'bigint').execute();
      await sql`update affiliates set email_confirmed_at = updated_at where email is not null`.execute(db);
      await db.schema.alterTable('affiliate_invites').addColumn('email', 'text').execute();
      await db.schema.createIndex('outbound_mail_recipient').on('outbound_mail').columns(['to_address', 'created_at']).execute();
    },
  };
}
