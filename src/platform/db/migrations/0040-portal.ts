import type { Kysely } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * The affiliate portal (CONTRACT §13): an affiliate's password and payout details, its sessions (stored
 * hashed, like the admin's) and its invitations (single use, token stored hashed). Kept beside the
 * affiliates table rather than in it, so the ledger's hot row (balance) is not widened.
 */
export function portal(_dialect: Dialect) {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('affiliate_accounts')
        .addColumn('ref_code', 'text', (c) => c.primaryKey())
        .addColumn('password_hash', 'text')
        .addColumn('payout_details', 'text')
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('updated_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema
        .createTable('affiliate_sessions')
        .addColumn('id_hash', 'text', (c) => c.primaryKey())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('csrf_token', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('affiliate_sessions_ref_code').on('affiliate_sessions').column('ref_code').execute();
      await db.schema.createIndex('affiliate_sessions_expires').on('affiliate_sessions').column('expires_at').execute();
      await db.schema
        .createTable('affiliate_invites')
        .addColumn('token_hash', 'text', (c) => c.primaryKey())
        .addColumn('ref_code', 'text', (c) => c.notNull())
        .addColumn('created_at', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addColumn('used_at', 'bigint')
        .execute();
      await db.schema.createIndex('affiliate_invites_ref_code').on('affiliate_invites').column('ref_code').execute();
    },
  };
}
