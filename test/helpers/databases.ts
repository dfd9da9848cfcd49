import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { describe } from 'vitest';
import type { Dialect } from '../../src/platform/db/database.js';

export const POSTGRES_URL = process.env.SVC_TEST_POSTGRES_URL;

/** sqlite always; postgres when SVC_TEST_POSTGRES_URL is set (reported as skipped otherwise). */
export const DIALECTS: readonly Dialect[] = ['sqlite', 'postgres'];

/** Runs a suite once per database, like Kysely's own tests. PostgreSQL suites skip (loudly) without a URL. */
export function describeEachDatabase(name: string, fn: (dialect: Dialect) => void): void {
  for (const dialect of DIALECTS) {
    const skip = dialect === 'postgres' && !POSTGRES_URL;
    describe.skipIf(skip)(`${name} [${dialect}${skip ? ': SKIPPED, no SVC_TEST_POSTGRES_URL' : ''}]`, () => fn(dialect));
  }
}

export interface TestDatabase {
  readonly dialect: Dialect;
  /** DATABASE_URL for the service. */
  readonly url: string;
  /** PostgreSQL schema every connection uses (undefined for SQLite). */
  readonly pgSchema?: string;
  drop(): Promise<void>;
}

let counter = 0;

/** A fresh, empty database: a new SQLite file, or a new schema in the test PostgreSQL. */
export async function freshDatabase(dialect: Dialect): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'svc-test-'));
    return {
      dialect,
      url: `sqlite:${join(dir, 'svc.db')}`,
      async drop() {
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  if (!POSTGRES_URL) throw new Error('SVC_TEST_POSTGRES_URL is not set');
  const schema = `t_${process.pid}_${Date.now().toString(36)}_${counter++}_${Math.random().toString(36).slice(2, 8)}`;
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`create schema "${schema}"`);
  } finally {
    await client.end();
  }
  return {
    dialect,
    url: POSTGRES_URL,
    pgSchema: schema,
    async drop() {
      const c = new pg.Client({ connectionString: POSTGRES_URL });
      await c.connect();
      try {
        await c.query(`drop schema if exists "${schema}" cascade`);
      } finally {
        await c.end();
      }
    },
  };
}

/**
 * DATABASE_URL for a `node dist/main.js` process on this test database: on PostgreSQL the schema goes
 * with the URL (openDatabase reads search_path from it).
 */
export function processDatabaseUrl(database: TestDatabase): string {
  if (database.dialect === 'sqlite') return database.url;
  const u = new URL(database.url);
  u.searchParams.set('options', `-c search_path=${database.pgSchema}`);
  return u.toString();
}
