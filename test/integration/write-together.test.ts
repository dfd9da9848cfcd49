import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, dialectOf, inTransaction, openDatabase } from '../../src/db/database.js';
import { writeTogether } from '../../src/db/write-together.js';
import { describeEachDatabase, freshDatabase, type TestDatabase } from '../helpers/databases.js';

interface Scratch {
  notes: { id: number; body: string; n: number };
  tallies: { k: string; total: number };
}

describeEachDatabase('writeTogether (several writes in one round trip on PostgreSQL)', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Scratch>;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    handle = openDatabase(parseDatabaseUrl(database.url), database.pgSchema ? { pgSchema: database.pgSchema } : {});
    db = handle.db as unknown as Kysely<Scratch>;
    await sql`create table notes (id integer primary key, body text not null, n integer not null)`.execute(db);
    await sql`create table tallies (k text primary key, total integer not null)`.execute(db);
  });
  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });

  const notes = async () => (await db.selectFrom('notes').selectAll().orderBy('id').execute()).map((r) => ({ ...r, id: Number(r.id), n: Number(r.n) }));
  const tallies = async () => (await db.selectFrom('tallies').selectAll().orderBy('k').execute()).map((r) => ({ ...r, total: Number(r.total) }));

  it('knows which database an executor talks to, in and out of a transaction', async () => {
    expect(dialectOf(db)).toBe(dialect);
    await inTransaction(handle.db, async (tx) => expect(dialectOf(tx)).toBe(dialect));
  });

  it('runs every rider and the final statement, each with its own values (placeholders renumbered)', async () => {
    const upsert = (k: string, by: number) =>
      db
        .insertInto('tallies')
        .values({ k, total: by })
        .onConflict((oc) => oc.column('k').doUpdateSet({ total: sql`tallies.total + ${by}` }));
    await upsert('a', 5).execute();
    await writeTogether(
      db,
      [db.insertInto('notes').values({ id: 1, body: "it's $1 (not a placeholder)", n: 10 }), db.insertInto('notes').values([{ id: 2, body: 'two', n: 20 }, { id: 3, body: 'three', n: 30 }])],
      upsert('a', 7),
    );
    expect(await notes()).toEqual([
      { id: 1, body: "it's $1 (not a placeholder)", n: 10 },
      { id: 2, body: 'two', n: 20 },
      { id: 3, body: 'three', n: 30 },
    ]);
    expect(await tallies()).toEqual([{ k: 'a', total: 12 }]);
  });

  it('joins a final statement that has its own WITH list, and runs riders alone without one', async () => {
    const last = sql`with src as (select ${'b'} as k, ${3} as total) insert into tallies (k, total) select k, cast(total as integer) from src`;
    await writeTogether(db, [db.insertInto('notes').values({ id: 4, body: 'four', n: 40 })], { compile: () => last.compile(db) });
    await writeTogether(db, [db.insertInto('notes').values({ id: 5, body: 'five', n: 50 }), db.insertInto('notes').values({ id: 6, body: 'six', n: 60 })], undefined);
    await writeTogether(db, [], undefined);
    expect((await notes()).map((r) => r.id)).toEqual([4, 5, 6]);
    expect(await tallies()).toEqual([{ k: 'b', total: 3 }]);
  });

  it('is all or nothing inside a transaction: a failing rider leaves none of the writes', async () => {
    await db.insertInto('notes').values({ id: 9, body: 'taken', n: 0 }).execute();
    await expect(
      inTransaction(handle.db, async (tx) => {
        const t = tx as unknown as Kysely<Scratch>;
        await writeTogether(t, [t.insertInto('notes').values({ id: 8, body: 'new', n: 1 }), t.insertInto('notes').values({ id: 9, body: 'duplicate', n: 2 })], t.insertInto('tallies').values({ k: 'c', total: 1 }));
      }),
    ).rejects.toThrow();
    expect((await notes()).map((r) => r.body)).toEqual(['taken']);
    expect(await tallies()).toEqual([]);
  });
});
