import { type Kysely, sql } from 'kysely';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, inTransaction, openDatabase } from '../../src/platform/db/database.js';
import { describeEachDatabase, freshDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';

interface Scratch {
  items: { id: number; label: string };
}

// The PostgreSQL pool names frequent statements and sends BEGIN with a transaction's first statement
// (src/platform/db/database.ts); SQLite runs the same checks as a reference.
describeEachDatabase('transactions through the pool (named statements, BEGIN sent with the first statement)', (dialect) => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Scratch>;

  beforeEach(async () => {
    database = await freshDatabase(dialect);
    // one connection: every transaction below reuses it, with its prepared statements
    handle = openDatabase(parseDatabaseUrl(database.url), { ...(database.pgSchema ? { pgSchema: database.pgSchema } : {}), poolMax: 1 });
    db = handle.db as unknown as Kysely<Scratch>;
    await sql`create table items (id integer primary key, label text not null)`.execute(db);
  });
  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });

  const labels = async () => (await db.selectFrom('items').select('label').orderBy('id').execute()).map((r) => r.label);
  const insert = (t: Kysely<Scratch>, id: number, label: string) => t.insertInto('items').values({ id, label }).execute();

  it('rolls back the first statement of a transaction too (it ran inside the transaction), again and again on one connection', async () => {
    for (let round = 0; round < 3; round++) {
      await expect(
        inTransaction(handle.db, async (tx) => {
          await insert(tx as unknown as Kysely<Scratch>, 100 + round, 'first statement');
          throw new Error('roll back');
        }),
      ).rejects.toThrow('roll back');
    }
    await inTransaction(handle.db, async (tx) => insert(tx as unknown as Kysely<Scratch>, 1, 'committed'));
    expect(await labels()).toEqual(['committed']);
  });

  it('keeps the connection usable after the first statement of a transaction fails, and after an empty transaction', async () => {
    await insert(db, 1, 'one');
    // fails on a unique key as the transaction's first statement
    await expect(inTransaction(handle.db, async (tx) => insert(tx as unknown as Kysely<Scratch>, 1, 'again'))).rejects.toThrow();
    // fails when PostgreSQL parses it (the statement is named: it must not be taken as prepared after)
    const broken = () => sql`select * from no_such_table`.execute(db);
    for (let i = 0; i < 2; i++) await expect(inTransaction(handle.db, async (tx) => sql`select * from no_such_table`.execute(tx))).rejects.toThrow();
    await expect(broken()).rejects.toThrow();
    await inTransaction(handle.db, async () => {}); // runs nothing
    await inTransaction(handle.db, async (tx) => {
      await insert(tx as unknown as Kysely<Scratch>, 2, 'two');
      await insert(tx as unknown as Kysely<Scratch>, 3, 'three');
    });
    expect(await labels()).toEqual(['one', 'two', 'three']);
  });

  it('returns the first statement\'s rows and row count', async () => {
    await insert(db, 1, 'a');
    await insert(db, 2, 'b');
    const { rows, updated } = await inTransaction(handle.db, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      const rows = await t.selectFrom('items').select(['id', 'label']).where('id', '>=', 1).orderBy('id').execute();
      const res = await t.updateTable('items').set({ label: 'z' }).where('id', '=', 2).executeTakeFirst();
      return { rows, updated: Number(res.numUpdatedRows) };
    });
    expect(rows.map((r) => ({ id: Number(r.id), label: r.label }))).toEqual([
      { id: 1, label: 'a' },
      { id: 2, label: 'b' },
    ]);
    expect(updated).toBe(1);
    const first = await inTransaction(handle.db, async (tx) => (tx as unknown as Kysely<Scratch>).updateTable('items').set({ label: 'y' }).returning('id').execute());
    expect(first.map((r) => Number(r.id)).sort()).toEqual([1, 2]);
  });
});

describe.skipIf(!POSTGRES_URL)(`prepared statements on PostgreSQL${POSTGRES_URL ? '' : ': SKIPPED, no SVC_TEST_POSTGRES_URL'}`, () => {
  it('keeps statements prepared on the connection, and none with SVC_PG_PREPARE=off', async () => {
    const database = await freshDatabase('postgres');
    const open = (prepare: boolean) => openDatabase({ ...parseDatabaseUrl(database.url), ...(prepare ? {} : { prepare: false }) } as never, { pgSchema: database.pgSchema!, poolMax: 1 });
    const prepared = (h: DatabaseHandle) =>
      inTransaction(h.db, async (tx) => {
        await sql`select 1`.execute(tx);
        return (await sql<{ name: string }>`select name from pg_prepared_statements order by name`.execute(tx)).rows.map((r) => r.name);
      });
    const named = open(true);
    const plain = open(false);
    try {
      await inTransaction(named.db, async () => {});
      await prepared(named);
      const names = await prepared(named);
      expect(names).toContain('svc_begin');
      expect(names.length).toBeGreaterThanOrEqual(3);
      await prepared(plain);
      expect(await prepared(plain)).toEqual([]);
    } finally {
      await named.destroy();
      await plain.destroy();
      await database.drop();
    }
  });
});

describe.skipIf(!POSTGRES_URL)(`PostgreSQL connections across a migration and a lost connection${POSTGRES_URL ? '' : ': SKIPPED, no SVC_TEST_POSTGRES_URL'}`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let other: DatabaseHandle;
  let db: Kysely<Scratch & { wide: { id: number; a: string; b?: string | null } }>;
  beforeEach(async () => {
    database = await freshDatabase('postgres');
    handle = openDatabase(parseDatabaseUrl(database.url), { pgSchema: database.pgSchema!, poolMax: 1 });
    other = openDatabase(parseDatabaseUrl(database.url), { pgSchema: database.pgSchema!, poolMax: 1 });
    db = handle.db as unknown as typeof db;
    await sql`create table wide (id integer primary key, a text not null)`.execute(db);
    await db.insertInto('wide').values({ id: 1, a: 'x' }).execute();
  });
  afterEach(async () => {
    await handle.destroy();
    await other.destroy();
    await database.drop();
  });

  it('keeps answering select * and returning * after another instance adds a column', async () => {
    const all = () => db.selectFrom('wide').selectAll().where('id', '=', 1).executeTakeFirst();
    const touched = () => inTransaction(handle.db, async (tx) => (tx as unknown as typeof db).updateTable('wide').set({ a: 'y' }).where('id', '=', 1).returningAll().executeTakeFirst());
    const named = () => db.selectFrom('wide').select(['id', 'a']).where('id', '=', 1).executeTakeFirst();
    for (let i = 0; i < 3; i++) {
      expect(await all()).toEqual({ id: 1, a: 'x' });
      expect(await named()).toEqual({ id: 1, a: 'x' });
    }
    await sql`alter table wide add column b text`.execute(other.db); // a newer instance's migration
    expect(await all()).toEqual({ id: 1, a: 'x', b: null });
    expect(await touched()).toEqual({ id: 1, a: 'y', b: null });
    expect(await named()).toEqual({ id: 1, a: 'y' });
  });

  it('fails the next statement, not the process, when its connection is killed inside a transaction', async () => {
    await expect(
      inTransaction(handle.db, async (tx) => {
        const pid = (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx)).rows[0]!.pid;
        await sql`select pg_terminate_backend(${pid})`.execute(other.db);
        await (tx as unknown as typeof db).insertInto('wide').values({ id: 2, a: 'lost' }).execute();
      }),
    ).rejects.toThrow();
    // the pool replaced the connection: the next transaction works, and the lost insert is not there
    await inTransaction(handle.db, async (tx) => (tx as unknown as typeof db).insertInto('wide').values({ id: 3, a: 'z' }).execute());
    expect((await db.selectFrom('wide').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([1, 3]);
  });
});
