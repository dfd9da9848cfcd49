import { type Compilable, CompiledQuery, type Kysely } from 'kysely';
import { dialectOf } from './database.js';

/**
 * Writes that answer nothing (inserts, upserts), sent with a final statement in one round trip where
 * the database allows it. On PostgreSQL the riders become data-modifying CTEs of `last` (each runs
 * exactly once, to completion, in the same transaction; PostgreSQL picks their order, so use it only for
 * writes whose order among themselves takes no contended lock, such as inserts of new rows). On SQLite
 * they run one after another before `last` (in process: there is no round trip to save).
 * Kysely compiles every value to a `$n` parameter on PostgreSQL; the placeholders are renumbered here.
 */
export async function writeTogether<DB>(db: Kysely<DB>, riders: readonly Compilable[], last: Compilable | undefined): Promise<void> {
  if (dialectOf(db) !== 'postgres') {
    for (const q of riders) await db.executeQuery(q.compile());
    if (last) await db.executeQuery(last.compile());
    return;
  }
  const compiled = riders.map((q) => q.compile());
  if (!last) {
    if (compiled.length === 1) {
      await db.executeQuery(compiled[0]!);
      return;
    }
    if (compiled.length === 0) return;
  }
  const parameters: unknown[] = [];
  const shifted = (c: CompiledQuery): string => {
    const offset = parameters.length;
    parameters.push(...c.parameters);
    return c.sql.replace(/\$(\d+)/g, (_, n: string) => {
      const i = Number(n);
      if (i < 1 || i > c.parameters.length) throw new Error(`placeholder $${i} out of range in a batched statement`);
      return `$${i + offset}`;
    });
  };
  const riderCtes = compiled.map((c, i) => `w${i} as (${shifted(c)})`).join(', ');
  const main = last ? shifted(last.compile()) : 'select 1';
  // `last` may carry its own WITH list: the riders join it (a data-modifying CTE cannot be nested)
  const ownWith = /^\s*with\s/i.exec(main);
  let text = main;
  if (riderCtes !== '') text = ownWith ? `with ${riderCtes}, ${main.slice(ownWith[0].length)}` : `with ${riderCtes} ${main}`;
  await db.executeQuery(CompiledQuery.raw(text, parameters));
}
