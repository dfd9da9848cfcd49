import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { openDatabase, type DatabaseHandle } from '../../src/db/database.js';
import { migrateToLatest } from '../../src/db/migrate.js';
import { describeEachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';

describeEachDatabase('migrations', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    handle = openDatabase(parseDatabaseUrl(database.url), database.pgSchema ? { pgSchema: database.pgSchema } : {});
  });

  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });

  it('applies every migration once; a second run applies none', async () => {
    const first = await migrateToLatest(handle);
    expect(first[0]).toBe('0001-foundation');
    expect(first).toContain('0002-attribution');
    expect(await migrateToLatest(handle)).toEqual([]);
  });

  it('applies a migration that arrived after later-numbered ones had run', async () => {
    await migrateToLatest(handle);
    // The state of a database migrated before 0002 existed: 0004 and later applied, 0002 not.
    await sql`drop table affiliate_stats`.execute(handle.db);
    await sql`delete from kysely_migration where name = '0002-attribution'`.execute(handle.db);
    await sql`insert into daily_stats (ref_code, day, clicks, orders) values ('early', '2026-11-01', 7, 2)`.execute(handle.db);

    expect(await migrateToLatest(handle)).toEqual(['0002-attribution']);
    // its backfill ran against the data already there
    const rows = await sql<{ clicks: number; orders: number }>`select clicks, orders from affiliate_stats where ref_code = 'early'`.execute(handle.db);
    expect(rows.rows.map((r) => ({ clicks: Number(r.clicks), orders: Number(r.orders) }))).toEqual([{ clicks: 7, orders: 2 }]);
  });
});
