import { type Compilable, CompiledQuery, type Expression, type Kysely, type QueryResult, type SqlBool, sql } from 'kysely';
import { dialectOf } from '../../platform/db/database.js';

/**
 * One write of a chain (see writeChain), built with `after`: the condition "the chain's previous write
 * changed a row" on PostgreSQL, to put in its WHERE (or its SELECT, for an INSERT … SELECT); undefined
 * for the first write and on SQLite. Every write but the last must RETURN at least one column (the next
 * one reads it). Riders (inserts of new rows, and writes that may change no row) are plain statements.
 */
export type ChainedWrite = (after: ChainCondition | undefined) => Compilable;

/** "Write s<i> of the chain changed a row": an expression for Kysely, and its text (no parameter) for a statement written by hand. */
export interface ChainCondition extends Expression<SqlBool> {
  readonly text: string;
}

/**
 * Conditional writes that must each change a row, made in the order given (the ledger's lock order),
 * and the riders (statements that take no contended lock, such as inserts of new rows: on PostgreSQL each
 * becomes a data-modifying CTE that runs exactly once; on SQLite they run after the chain), in one round trip on PostgreSQL. Resolves false as soon as a
 * write of the chain changes no row (it lost a race): the caller must then roll back its transaction,
 * since the writes before it, and on PostgreSQL the riders, have happened.
 *
 * On PostgreSQL every write but the last becomes a data-modifying CTE and the last is the statement
 * itself; each write's `after` reads the previous one, so PostgreSQL runs them in chain order, each only
 * once the previous one changed its row and holds that row's lock, and none after a write that matched
 * nothing (its rows are never locked). On SQLite the writes run one after another, stopping at the first
 * that changes nothing, then the riders.
 */
export async function writeChain<DB>(db: Kysely<DB>, chain: readonly ChainedWrite[], riders: readonly Compilable[]): Promise<boolean> {
  if (dialectOf(db) !== 'postgres') {
    for (const write of chain) if (!changedRows(await db.executeQuery(write(undefined).compile()))) return false;
    for (const q of riders) await db.executeQuery(q.compile());
    return true;
  }
  if (chain.length === 0 && riders.length <= 1) {
    if (riders.length === 1) await db.executeQuery(riders[0]!.compile());
    return true;
  }
  // one write alone (an order's insert, an event's claim) is its own statement
  if (chain.length === 1 && riders.length === 0) return changedRows(await db.executeQuery(chain[0]!(undefined).compile()));
  const result = await db.executeQuery(chainStatement(chain, riders));
  return chain.length === 0 || changedRows(result);
}

/**
 * The PostgreSQL statement of a chain and its riders: every write but the last, and every rider, is a
 * data-modifying CTE; the last write is the statement (its own WITH list joins the others), and its count
 * tells whether it changed a row.
 */
function chainStatement(chain: readonly ChainedWrite[], riders: readonly Compilable[]): CompiledQuery {
  const parameters: unknown[] = [];
  const shifted = (c: CompiledQuery): string => {
    const offset = parameters.length;
    parameters.push(...c.parameters);
    if (offset === 0) return c.sql; // the first statement keeps its numbering
    return c.sql.replace(/\$(\d+)/g, (_, n: string) => {
      const i = Number(n);
      if (i < 1 || i > c.parameters.length) throw new Error(`placeholder $${i} out of range in a batched statement`);
      return `$${i + offset}`;
    });
  };
  const after = (i: number) => (i === 0 ? undefined : guardAfter(i - 1));
  const ctes = [
    ...chain.slice(0, -1).map((write, i) => `s${i} as (${shifted(write(after(i)).compile())})`),
    ...riders.map((q, i) => `w${i} as (${shifted(q.compile())})`),
  ].join(', ');
  const last = chain.at(-1);
  const main = last ? shifted(last(after(chain.length - 1)).compile()) : 'select 1';
  // the last write may carry its own WITH list: the others join it (a data-modifying CTE cannot be nested)
  const ownWith = /^\s*with\s/i.exec(main);
  let text = main;
  if (ctes !== '') text = ownWith ? `with ${ctes}, ${main.slice(ownWith[0].length)}` : `with ${ctes} ${main}`;
  return CompiledQuery.raw(text, parameters);
}

function guardAfter(i: number): ChainCondition {
  const text = `exists (select 1 from s${i})`;
  return Object.assign(sql.raw<SqlBool>(text), { text });
}

/** Whether a write changed a row: its RETURNING rows, else the count the driver reports. */
function changedRows(result: QueryResult<unknown>): boolean {
  return result.rows.length > 0 || Number(result.numAffectedRows ?? 0) > 0;
}
