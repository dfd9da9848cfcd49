import { sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { atomicWriter } from '../../src/platform/db/write-batcher.js';
import { describeEachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';

describeEachDatabase('atomic writer (group commit on SQLite)', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    handle = openDatabase(parseDatabaseUrl(database.url), database.pgSchema ? { pgSchema: database.pgSchema } : {});
    await sql`create table units (n integer primary key, part text not null)`.execute(handle.db);
  });
  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });

  const rows = async () =>
    (await sql<{ n: number; part: string }>`select n, part from units order by n, part`.execute(handle.db)).rows.map((r) => `${Number(r.n)}${r.part}`);

  it('stores each unit whole or not at all: a failing unit among concurrent ones rolls back alone and only its caller sees the error', async () => {
    const writer = atomicWriter(handle.db, handle.dialect);
    const results = await Promise.allSettled(
      Array.from({ length: 20 }, (_, n) =>
        writer.run(async (tx) => {
          await sql`insert into units (n, part) values (${n}, 'a')`.execute(tx);
          if (n === 7) throw new Error('unit 7 fails after its first write');
          // a unique violation half-way through a unit, too
          if (n === 11) await sql`insert into units (n, part) values (${n}, 'b')`.execute(tx);
        }, 100),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array.from({ length: 20 }, (_, n) => (n === 7 || n === 11 ? 'rejected' : 'fulfilled')));
    expect((results[7] as PromiseRejectedResult).reason.message).toBe('unit 7 fails after its first write');
    expect(await rows()).toEqual(Array.from({ length: 20 }, (_, n) => n).filter((n) => n !== 7 && n !== 11).map((n) => `${n}a`));
  });

  it('has committed a unit by the time its promise resolves, also when it ran alone, and keeps working after a failure', async () => {
    const writer = atomicWriter(handle.db, handle.dialect, { maxUnits: 3, maxWeight: 1000 });
    await writer.run(async (tx) => void (await sql`insert into units (n, part) values (1, 'x')`.execute(tx)), 10);
    expect(await rows()).toEqual(['1x']);
    await expect(writer.run(async () => Promise.reject(new Error('no')), 10)).rejects.toThrow('no');
    // heavier than maxWeight, and more units than maxUnits: split into several transactions, all stored
    await Promise.all([2, 3, 4, 5, 6].map((n) => writer.run(async (tx) => void (await sql`insert into units (n, part) values (${n}, 'y')`.execute(tx)), 600)));
    expect(await rows()).toEqual(['1x', '2y', '3y', '4y', '5y', '6y']);
  });
});
