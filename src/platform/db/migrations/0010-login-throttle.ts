import { type Kysely, sql } from 'kysely';
import type { Dialect } from '../database.js';

/**
 * Login throttling counted before the password is checked (src/platform/auth/login-throttle.ts). One row per
 * throttled key (`ip:…` or `user:…` within a scope such as `admin`) is the lock that serialises the
 * attempts on that key, on every instance sharing the database; `login_attempts` holds the attempts
 * still inside the window. Replaces `login_failures` (0006), which was written after the hash and so
 * lost the race against parallel guesses; its rows are only minutes of history and are dropped.
 */
export function loginThrottle(dialect: Dialect) {
  const autoId = dialect === 'sqlite' ? ('integer' as const) : sql`bigserial`;
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('login_throttle_keys')
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('touched_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('login_throttle_keys_pk', ['scope', 'key'])
        .execute();
      await db.schema.createIndex('login_throttle_keys_touched').on('login_throttle_keys').column('touched_at').execute();
      await db.schema
        .createTable('login_attempts')
        .addColumn('id', autoId, (c) => (dialect === 'sqlite' ? c.primaryKey().autoIncrement() : c.primaryKey()))
        .addColumn('scope', 'text', (c) => c.notNull())
        .addColumn('key', 'text', (c) => c.notNull())
        // the attempt's other key (the user name of an address's attempt), so a success can forgive its own typos
        .addColumn('pair_key', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_attempts_key_at').on('login_attempts').columns(['scope', 'key', 'at']).execute();
      await db.schema.createIndex('login_attempts_at').on('login_attempts').column('at').execute();
      await db.schema.dropTable('login_failures').ifExists().execute();
    },
  };
}
