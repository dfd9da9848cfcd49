import { type CreateTableBuilder, type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Limits shared by every instance on the database (CONTRACT §16, src/platform/limits/): `rate_limit_windows`
 * holds one fixed-window counter per limited route and client (the per-IP limits on mailbox creation
 * and the mail.tm token and account routes), `limit_leases` one row per key an open live stream counts
 * against (its mailbox, its client), kept alive by its instance's heartbeat so that a crashed instance's
 * streams stop counting when their leases expire; `limit_lease_keys` rows are the locks that make
 * counting and taking a lease one step on every instance.
 *
 * On PostgreSQL the three are UNLOGGED: their rows are minutes of bookkeeping that no one needs after a
 * database crash (which empties them: windows start again, live streams are counted again as they
 * reconnect), and a write to them costs no WAL and waits for no WAL flush. Logged, the counter's upsert
 * doubled PostgreSQL's CPU per public mailbox creation (bench/mailbox-create.mjs).
 */
export function sharedLimits(dialect: Dialect) {
  const unlogged = <T extends string, C extends string>(table: CreateTableBuilder<T, C>) => (dialect === 'postgres' ? table.modifyFront(sql`unlogged`) : table);
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await unlogged(db.schema.createTable('rate_limit_windows'))
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('n', 'integer', (c) => c.notNull())
        .addColumn('resets_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_limit_windows_pk', ['scope', 'key'])
        .execute();
      await db.schema.createIndex('rate_limit_windows_resets').on('rate_limit_windows').column('resets_at').execute();
      await unlogged(db.schema.createTable('limit_lease_keys'))
        .addColumn('key', 'text', (c) => c.primaryKey())
        .addColumn('touched_at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('limit_lease_keys_touched').on('limit_lease_keys').column('touched_at').execute();
      await unlogged(db.schema.createTable('limit_leases'))
        .addColumn('id', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('instance', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('limit_leases_pk', ['id', 'key'])
        .execute();
      await db.schema.createIndex('limit_leases_key').on('limit_leases').columns(['key', 'expires_at']).execute();
      await db.schema.createIndex('limit_leases_instance').on('limit_leases').column('instance').execute();
      await db.schema.createIndex('limit_leases_expires').on('limit_leases').column('expires_at').execute();
    },
  };
}
