import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Mail svc sends to people (docs/api.md, "Outbound mail"): `outbound_mail` holds each rendered mail with
 * its Message-ID; its sending state (lease, attempts, retries, log) is a `deliveries` row with target
 * `mail`, so the delivery engine sends it. `affiliate_invites.kind` tells invitations from password
 * resets (both single use, stored hashed; a new password voids both). `affiliate_accounts.notify_*` are
 * the affiliate's opt-outs.
 */
export function outboundMail(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('outbound_mail')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('to_address', 'text', (c) => c.notNull())
        .addColumn('template', 'text', (c) => c.notNull())
        .addColumn('subject', 'text', (c) => c.notNull())
        .addColumn('text_body', 'text', (c) => c.notNull())
        .addColumn('html_body', 'text', (c) => c.notNull())
        .addColumn('message_id', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.alterTable('affiliate_invites').addColumn('kind', 'text', (c) => c.notNull().defaultTo('invite')).execute();
      await db.schema.alterTable('affiliate_accounts').addColumn('notify_commissions', 'integer', (c) => c.notNull().defaultTo(1)).execute();
      await db.schema.alterTable('affiliate_accounts').addColumn('notify_payouts', 'integer', (c) => c.notNull().defaultTo(1)).execute();
    },
  };
}
