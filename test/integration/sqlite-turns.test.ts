import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { type Kysely, sql } from 'kysely';
import { afterEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, inTransaction, openDatabase } from '../../src/platform/db/database.js';

interface Scratch {
  notes: { id: number; n: number };
}

/**
 * src/platform/db/sqlite-turns.ts: two handles on one SQLite file in one process take turns. Without them,
 * a write of the second while the first holds a transaction across an await waits in SQLite's (synchronous)
 * busy handler on the thread the first needs: the process stalls for busy_timeout (5 s), then fails busy.
 */
describe('two SQLite handles on one file in one process', () => {
  const open: { handles: DatabaseHandle[]; dir: string }[] = [];
  afterEach(async () => {
    for (const { handles, dir } of open.splice(0)) {
      for (const h of handles) await h.destroy();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  function twoHandles(): [Kysely<Scratch>, Kysely<Scratch>] {
    const dir = mkdtempSync(join(tmpdir(), 'svc-turns-'));
    const path = join(dir, 'svc.db');
    const handles = [0, 1].map(() => openDatabase({ kind: 'sqlite', path, url: `sqlite:${path}` }));
    open.push({ handles, dir });
    return handles.map((h) => h.db as unknown as Kysely<Scratch>) as [Kysely<Scratch>, Kysely<Scratch>];
  }

  it("a write of one waits for the other's open transaction to end, without stalling the event loop", async () => {
    const [a, b] = twoHandles();
    await sql`create table notes (id integer primary key, n integer not null)`.execute(a);
    await a.insertInto('notes').values({ id: 1, n: 0 }).execute();
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const order: string[] = [];
    let bWrite: Promise<unknown> | undefined;
    await inTransaction(a as never, async (tx) => {
      const t = tx as unknown as Kysely<Scratch>;
      await t.updateTable('notes').set({ n: 1 }).where('id', '=', 1).execute();
      // b writes while a's transaction is open and a awaits: b must wait for its turn
      bWrite = b.insertInto('notes').values({ id: 2, n: 2 }).execute().then(() => order.push('b wrote'));
      await new Promise((resolve) => setTimeout(resolve, 50));
      await t.updateTable('notes').set({ n: 3 }).where('id', '=', 1).execute();
      order.push('a committing');
    });
    await bWrite;
    delay.disable();
    expect(order).toEqual(['a committing', 'b wrote']);
    expect((await b.selectFrom('notes').select(['id', 'n']).orderBy('id').execute())).toEqual([
      { id: 1, n: 3 },
      { id: 2, n: 2 },
    ]);
    // the busy handler would hold the thread for busy_timeout (5,000 ms)
    expect(delay.max / 1e6).toBeLessThan(1000);
  });

  it('two transactions at once, one per handle, both commit in turn', async () => {
    const [a, b] = twoHandles();
    await sql`create table notes (id integer primary key, n integer not null)`.execute(a);
    const delay = monitorEventLoopDelay({ resolution: 10 });
    delay.enable();
    const write = (db: Kysely<Scratch>, id: number) =>
      inTransaction(db as never, async (tx) => {
        const t = tx as unknown as Kysely<Scratch>;
        await t.insertInto('notes').values({ id, n: 0 }).execute();
        await new Promise((resolve) => setTimeout(resolve, 20));
        await t.updateTable('notes').set({ n: id }).where('id', '=', id).execute();
      });
    await Promise.all([write(a, 1), write(b, 2), write(a, 3), write(b, 4)]);
    expect((await a.selectFrom('notes').select(['id', 'n']).orderBy('id').execute()).map((r) => r.n)).toEqual([1, 2, 3, 4]);
    delay.disable();
    // a busy wait would hold the thread for busy_timeout (5,000 ms) once per collision
    expect(delay.max / 1e6).toBeLessThan(1000);
  });
});
