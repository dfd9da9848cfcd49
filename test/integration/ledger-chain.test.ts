import { type Kysely, sql } from 'kysely';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, type Dialect, dialectOf, inTransaction, openDatabase } from '../../src/platform/db/database.js';
import { type ChainedWrite, writeChain } from '../../src/loop/ledger/chain.js';
import { applyPlan, commitPlan, PlanMissed } from '../../src/loop/ledger/executor.js';
import { systemClock } from '../../src/platform/clock.js';
import type { Executor } from '../../src/platform/db/database.js';
import { describeEachDatabase, freshDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';

interface Scratch {
  notes: { id: number; body: string; n: number };
  tallies: { k: string; total: number };
}

/** A fresh database with the scratch tables for each test of the suite; `ready` gets it before each test. */
function useScratch(dialect: Dialect, ready: (handle: DatabaseHandle) => void | Promise<void>): void {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  beforeEach(async () => {
    database = await freshDatabase(dialect);
    handle = openDatabase(parseDatabaseUrl(database.url), database.pgSchema ? { pgSchema: database.pgSchema } : {});
    await sql`create table notes (id integer primary key, body text not null, n integer not null)`.execute(handle.db);
    await sql`create table tallies (k text primary key, total integer not null)`.execute(handle.db);
    await ready(handle);
  });
  afterEach(async () => {
    await handle.destroy();
    await database.drop();
  });
}

describeEachDatabase('writeChain with riders (several writes in one round trip on PostgreSQL)', (dialect) => {
  let handle: DatabaseHandle;
  let db: Kysely<Scratch>;
  useScratch(dialect, (h) => {
    handle = h;
    db = h.db as unknown as Kysely<Scratch>;
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
    await writeChain(
      db,
      [() => upsert('a', 7).returning('k')],
      [db.insertInto('notes').values({ id: 1, body: "it's $1 (not a placeholder)", n: 10 }), db.insertInto('notes').values([{ id: 2, body: 'two', n: 20 }, { id: 3, body: 'three', n: 30 }])],
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
    await writeChain(db, [() => ({ compile: () => last.compile(db) })], [db.insertInto('notes').values({ id: 4, body: 'four', n: 40 })]);
    await writeChain(db, [], [db.insertInto('notes').values({ id: 5, body: 'five', n: 50 }), db.insertInto('notes').values({ id: 6, body: 'six', n: 60 })]);
    await writeChain(db, [], []);
    expect((await notes()).map((r) => r.id)).toEqual([4, 5, 6]);
    expect(await tallies()).toEqual([{ k: 'b', total: 3 }]);
  });

  it('is all or nothing inside a transaction: a failing rider leaves none of the writes', async () => {
    await db.insertInto('notes').values({ id: 9, body: 'taken', n: 0 }).execute();
    await expect(
      inTransaction(handle.db, async (tx) => {
        const t = tx as unknown as Kysely<Scratch>;
        await writeChain(t, [() => t.insertInto('tallies').values({ k: 'c', total: 1 }).returning('k')], [t.insertInto('notes').values({ id: 8, body: 'new', n: 1 }), t.insertInto('notes').values({ id: 9, body: 'duplicate', n: 2 })]);
      }),
    ).rejects.toThrow();
    expect((await notes()).map((r) => r.body)).toEqual(['taken']);
    expect(await tallies()).toEqual([]);
  });
});

/** A conditional write of a chain: n of note `id` becomes `to` if it is `from`. */
const moveNote =
  (db: Kysely<Scratch>, id: number, from: number, to: number): ChainedWrite =>
  (after) => {
    let q = db.updateTable('notes').set({ n: to }).where('id', '=', id).where('n', '=', from);
    if (after) q = q.where(after);
    return q.returning('id');
  };

describeEachDatabase('writeChain and commitPlan (conditional writes in order, one round trip on PostgreSQL)', (dialect) => {
  let handle: DatabaseHandle;
  let db: Kysely<Scratch>;
  useScratch(dialect, async (h) => {
    handle = h;
    db = h.db as unknown as Kysely<Scratch>;
    await db.insertInto('notes').values([1, 2, 3].map((id) => ({ id, body: `note ${id}`, n: 0 }))).execute();
  });

  const ns = async (t: Kysely<Scratch> = db) => (await t.selectFrom('notes').select('n').orderBy('id').execute()).map((r) => Number(r.n));

  it('makes every write and the riders when each changes its row', async () => {
    const made = await inTransaction(handle.db, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      return writeChain(t, [moveNote(t, 1, 0, 10), moveNote(t, 2, 0, 20), moveNote(t, 3, 0, 30)], [t.insertInto('tallies').values({ k: 'rider', total: 1 })]);
    });
    expect(made).toBe(true);
    expect(await ns()).toEqual([10, 20, 30]);
    expect(await db.selectFrom('tallies').select('k').execute()).toEqual([{ k: 'rider' }]);
    expect(await writeChain(db, [], [])).toBe(true);
  });

  // The executor's answer cannot be ignored: a missed guard throws, and the caller's transaction rolls
  // back the guards before it (and on PostgreSQL the riders) without the caller looking.
  it('applyPlan throws PlanMissed on a missed guard, and the transaction leaves nothing', async () => {
    const clock = { now: () => 0 };
    const attempt = inTransaction(handle.db, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      await applyPlan(tx as unknown as Executor, clock, { guards: [moveNote(t, 1, 0, 10), moveNote(t, 2, 99, 20)], inserts: [t.insertInto('tallies').values({ k: 'rider', total: 1 })] });
      return 'committed';
    });
    await expect(attempt).rejects.toBeInstanceOf(PlanMissed);
    expect(await ns()).toEqual([0, 0, 0]);
    expect(await db.selectFrom('tallies').select('k').execute()).toEqual([]);
    await inTransaction(handle.db, (tx) => applyPlan(tx, clock, { guards: [moveNote(tx as unknown as Kysely<Scratch>, 1, 0, 10)] }));
    expect(await ns()).toEqual([10, 0, 0]);
  });

  it('stops at a write that changes nothing: false, and no later write of the chain is made', async () => {
    for (const [chain, seen] of [
      [(t: Kysely<Scratch>) => [moveNote(t, 1, 0, 10), moveNote(t, 2, 99, 20), moveNote(t, 3, 0, 30)], [10, 0, 0]],
      [(t: Kysely<Scratch>) => [moveNote(t, 1, 99, 10), moveNote(t, 2, 0, 20)], [0, 0, 0]],
      [(t: Kysely<Scratch>) => [moveNote(t, 1, 0, 10), moveNote(t, 2, 99, 20)], [10, 0, 0]],
    ] as const) {
      // what the transaction saw, carried out by the error that rolls it back (as the caller does on false)
      class Seen extends Error {
        constructor(readonly made: boolean, readonly state: number[]) {
          super('roll back');
        }
      }
      const inside = await inTransaction(handle.db, async (tx) => {
        const t = tx as unknown as Kysely<Scratch>;
        const made = await writeChain(t, chain(t), [t.insertInto('tallies').values({ k: 'rider', total: 1 })]);
        throw new Seen(made, await ns(t));
      }).catch((err: unknown) => err as Seen);
      expect(inside.made).toBe(false);
      expect(inside.state).toEqual(seen);
      expect(await ns()).toEqual([0, 0, 0]);
    }
  });

  // commitPlan: the same chains as a transaction of its own, rolled back on a miss (no statement fails on purpose)
  const rider = (k: string) => db.insertInto('tallies').values({ k, total: 1 });
  const tallies = async () => (await db.selectFrom('tallies').select('k').orderBy('k').execute()).map((r) => r.k);
  const commit = (chain: readonly ChainedWrite[], riders: ReturnType<typeof rider>[]) => commitPlan(handle.db, systemClock, { guards: chain, riders });

  it('makes every write and rider when each write changes its row', async () => {
    expect(await commit([moveNote(db, 1, 0, 10), moveNote(db, 2, 0, 20)], [rider('a'), rider('b')])).toBe(true);
    expect(await ns()).toEqual([10, 20, 0]);
    expect(await tallies()).toEqual(['a', 'b']);
  });

  it('writes nothing at all when a write changes nothing, wherever it is in the chain', async () => {
    for (const chain of [
      [moveNote(db, 1, 0, 10), moveNote(db, 2, 99, 20), moveNote(db, 3, 0, 30)],
      [moveNote(db, 1, 99, 10), moveNote(db, 2, 0, 20)],
      [moveNote(db, 1, 0, 10), moveNote(db, 2, 0, 20), moveNote(db, 3, 99, 30)],
    ]) {
      expect(await commit(chain, [rider('never')])).toBe(false);
      expect(await ns()).toEqual([0, 0, 0]);
      expect(await tallies()).toEqual([]);
    }
  });

  it('fails on an error, writing nothing (not taken for a miss)', async () => {
    await db.insertInto('tallies').values({ k: 'taken', total: 1 }).execute();
    await expect(commit([moveNote(db, 1, 0, 10)], [rider('taken')])).rejects.toThrow();
    expect(await ns()).toEqual([0, 0, 0]);
    await expect(inTransaction(handle.db, (tx) => commitPlan(tx, systemClock, { guards: [moveNote(db, 1, 0, 10)] }))).rejects.toThrow('inside one');
  });
});

// On PostgreSQL the chain is one statement: its writes must still take their row locks in chain order,
// and none after a write that matched nothing.
describe.skipIf(!POSTGRES_URL)(`writeChain's lock order on PostgreSQL${POSTGRES_URL ? '' : ': SKIPPED, no SVC_TEST_POSTGRES_URL'}`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let db: Kysely<Scratch>;
  let other: pg.Client;

  beforeEach(async () => {
    database = await freshDatabase('postgres');
    handle = openDatabase(parseDatabaseUrl(database.url), { pgSchema: database.pgSchema! });
    db = handle.db as unknown as Kysely<Scratch>;
    await sql`create table notes (id integer primary key, body text not null, n integer not null)`.execute(db);
    await db.insertInto('notes').values([1, 2].map((id) => ({ id, body: `note ${id}`, n: 0 }))).execute();
    other = new pg.Client({ connectionString: POSTGRES_URL });
    await other.connect();
    await other.query(`set search_path to "${database.pgSchema}"`);
  });
  afterEach(async () => {
    await other.end();
    await handle.destroy();
    await database.drop();
  });

  it('waits on the first row before it locks the second', async () => {
    await other.query('begin');
    await other.query('select 1 from notes where id = 1 for update');
    const chain = inTransaction(handle.db, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      return writeChain(t, [moveNote(t, 1, 0, 10), moveNote(t, 2, 0, 20)], []);
    });
    // the chain now waits for row 1: row 2 must still be free
    for (let i = 0; i < 100; i++) {
      const waiting = await other.query("select count(*)::int as n from pg_stat_activity where wait_event_type = 'Lock' and query like '%notes%'");
      if (waiting.rows[0].n > 0) break;
      await new Promise((r) => setImmediate(r));
    }
    await other.query('savepoint probe');
    const second = await other.query('select id from notes where id = 2 for update nowait');
    expect(second.rows).toEqual([{ id: 2 }]);
    await other.query('rollback');
    expect(await chain).toBe(true);
    expect((await db.selectFrom('notes').select('n').orderBy('id').execute()).map((r) => r.n)).toEqual([10, 20]);
  });

  it('never locks the rows of the writes after one that matched nothing', async () => {
    await other.query('begin');
    await other.query('select 1 from notes where id = 2 for update');
    const made = await inTransaction(handle.db, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      await sql`set local lock_timeout = '5s'`.execute(t);
      const made = await writeChain(t, [moveNote(t, 1, 99, 10), moveNote(t, 2, 0, 20)], []);
      return made;
    });
    expect(made).toBe(false); // at once: it did not wait for row 2
    await other.query('rollback');
  });
});
