import type { Kysely } from 'kysely';

/**
 * Failed admin logins per client, kept in the database so that every instance counts the same
 * failures: with the count in memory, N instances behind a load balancer allowed N times the guesses.
 */
export function loginFailures() {
  return {
    async up(db: Kysely<unknown>): Promise<void> {
      await db.schema
        .createTable('login_failures')
        .addColumn('client', 'text', (c) => c.notNull())
        .addColumn('at', 'bigint', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('login_failures_client').on('login_failures').columns(['client', 'at']).execute();
      await db.schema.createIndex('login_failures_at').on('login_failures').column('at').execute();
    },
  };
}
