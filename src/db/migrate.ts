import { type Migration, type MigrationProvider, Migrator } from 'kysely';
import type { DatabaseHandle, Dialect } from './database.js';
import { foundation } from './migrations/0001-foundation.js';
import { attribution } from './migrations/0002-attribution.js';
import { mail } from './migrations/0005-mail.js';

/**
 * Versioned migrations, in order. Each is a function of the dialect so that the few dialect-specific
 * column types stay in one place. Append new ones; never edit one that has shipped.
 */
const MIGRATIONS: ReadonlyArray<readonly [string, (dialect: Dialect) => Migration]> = [
  ['0001-foundation', foundation],
  ['0002-attribution', attribution],
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
  for (let attempt = 1; ; attempt++) {
    const { error, results } = await migrator.migrateToLatest();
    if (!error) return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
    // Kysely looks for its tables by introspecting every schema; another schema being dropped or altered
    // meanwhile (parallel test runs, other apps on the server) fails that read with "schema/relation/column
    // does not exist". Migrations run in one transaction on PostgreSQL, so trying again is safe.
    const code = (error as { code?: string }).code;
    if (attempt < 5 && handle.dialect === 'postgres' && (code === '3F000' || code === '42P01' || code === '42703' || code === 'XX000')) continue;
    throw error instanceof Error ? error : new Error(String(error));
  }
}
