import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { mail } from './migrations/0005-mail.js';
import { delivery } from './migrations/0004-delivery.js';

/**
 * Versioned migrations, in order. Each is a function of the dialect so that the few dialect-specific
 * column types stay in one place. Append new ones; never edit one that has shipped.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, (dialect: Dialect) => Migration]> = [
  ['0001-foundation', foundation],
  ['0004-delivery', delivery],
  ['0005-mail', mail],
];

class InCodeProvider implements MigrationProvider {
  constructor(private readonly dialect: Dialect) {}
  async getMigrations(): Promise<Record<string, Migration>> {
    return Object.fromEntries(MIGRATIONS.map(([name, make]) => [name, make(this.dialect)]));
  }
}

/** Applies every pending migration; safe to call from many instances at once (Kysely takes a lock). */
export async function migrateToLatest(handle: DatabaseHandle): Promise<string[]> {
  const migrator = new Migrator({
    db: handle.db,
    provider: new InCodeProvider(handle.dialect),
    // Kysely looks for its bookkeeping tables in every schema unless told which one is ours.
    ...(handle.schema ? { migrationTableSchema: handle.schema } : {}),
  });
  const { error, results } = await migrator.migrateToLatest();
  if (error) throw error instanceof Error ? error : new Error(String(error));
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
