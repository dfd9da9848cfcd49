import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDatabaseUrl } from '../../src/config.js';
import { type DatabaseHandle, openDatabase } from '../../src/platform/db/database.js';
import { migrateToLatest } from '../../src/platform/db/migrate.js';
import { freshDatabase, POSTGRES_URL, type TestDatabase } from '../helpers/databases.js';

// docs/scaling.md, "Past one PostgreSQL: Citus": the plan names every table of the schema, and each table it
// distributes holds its distribution column in every primary key, unique constraint and unique index, and
// in every foreign key to or from it (Citus refuses a distributed table otherwise). Read off the schema
// the migrations make, so a migration that breaks the plan fails here instead of on the day of the move.

type Kind = 'distributed' | 'reference' | 'coordinator';
interface Planned {
  readonly kind: Kind;
  readonly column?: string;
}

const DOC = readFileSync(join(import.meta.dirname, '../../docs/scaling.md'), 'utf8');

/** The plan's table, as the doc writes it: | `table` | kind | `column` | */
function readPlan(doc: string): Map<string, Planned> {
  const section = doc.slice(doc.indexOf('## Past one PostgreSQL: Citus'));
  const plan = new Map<string, Planned>();
  for (const m of section.matchAll(/^\| `([a-z_]+)` \| (distributed|reference|coordinator) \| (?:`([a-z_]+)`)? *\|$/gm)) {
    const [, table, kind, column] = m;
    if (plan.has(table as string)) throw new Error(`${table} is in the plan twice`);
    plan.set(table as string, { kind: kind as Kind, column });
  }
  return plan;
}

interface Schema {
  readonly tables: string[];
  readonly columns: Map<string, Set<string>>;
  /** Primary keys, unique constraints and unique indexes: the columns of each. */
  readonly keys: { table: string; name: string; columns: string[] }[];
  readonly foreignKeys: { table: string; name: string; columns: string[]; references: string; referencedColumns: string[] }[];
}

async function readSchema(handle: DatabaseHandle, schema: string): Promise<Schema> {
  const db = handle.db;
  const tables = (
    await sql<{ name: string }>`select c.relname::text as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${schema} and c.relkind in ('r', 'p') and not c.relispartition order by 1`.execute(db)
  ).rows.map((r) => r.name);
  const columns = new Map<string, Set<string>>();
  for (const r of (await sql<{ t: string; c: string }>`select table_name as t, column_name as c from information_schema.columns where table_schema = ${schema}`.execute(db)).rows) {
    columns.set(r.t, (columns.get(r.t) ?? new Set()).add(r.c));
  }
  // unique indexes cover primary keys and unique constraints too; on a partitioned table the parent's own index
  const keys = (
    await sql<{ t: string; name: string; cols: string[] }>`select t.relname as t, i.relname as name,
        array(select a.attname::text from unnest(x.indkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.num order by k.ord) as cols
      from pg_index x join pg_class i on i.oid = x.indexrelid join pg_class t on t.oid = x.indrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${schema} and x.indisunique and not t.relispartition`.execute(db)
  ).rows.map((r) => ({ table: r.t, name: r.name, columns: r.cols }));
  const foreignKeys = (
    await sql<{ t: string; name: string; cols: string[]; ref: string; refcols: string[] }>`select t.relname as t, con.conname as name, f.relname as ref,
        array(select a.attname::text from unnest(con.conkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = t.oid and a.attnum = k.num order by k.ord) as cols,
        array(select a.attname::text from unnest(con.confkey) with ordinality k(num, ord) join pg_attribute a on a.attrelid = f.oid and a.attnum = k.num order by k.ord) as refcols
      from pg_constraint con join pg_class t on t.oid = con.conrelid join pg_class f on f.oid = con.confrelid join pg_namespace n on n.oid = t.relnamespace
      where n.nspname = ${schema} and con.contype = 'f' and not t.relispartition`.execute(db)
  ).rows.map((r) => ({ table: r.t, name: r.name, columns: r.cols, references: r.ref, referencedColumns: r.refcols }));
  return { tables, columns, keys, foreignKeys };
}

/** Every way `plan` breaks Citus's rules on `schema`, in words (empty: the plan holds). */
function problems(plan: Map<string, Planned>, schema: Schema): string[] {
  const out: string[] = [];
  for (const table of schema.tables) if (!plan.has(table)) out.push(`${table}: not in the plan`);
  for (const table of plan.keys()) if (!schema.tables.includes(table)) out.push(`${table}: in the plan, not in the schema`);
  for (const [table, p] of plan) {
    if (p.kind !== 'distributed') continue;
    if (!p.column || !schema.columns.get(table)?.has(p.column)) out.push(`${table}: distributed by ${p.column ?? 'nothing'}, which it has not`);
    for (const key of schema.keys.filter((k) => k.table === table)) {
      if (!key.columns.includes(p.column ?? '')) out.push(`${table}: ${key.name} (${key.columns.join(', ')}) lacks ${p.column}`);
    }
  }
  for (const fk of schema.foreignKeys) {
    const from = plan.get(fk.table);
    const to = plan.get(fk.references);
    if (!from || !to) continue;
    if (to.kind === 'distributed') {
      const ok = from.kind === 'distributed' && fk.columns[fk.referencedColumns.indexOf(to.column ?? '')] === from.column;
      if (!ok) out.push(`${fk.table}: ${fk.name} refers to the distributed ${fk.references} without its distribution column`);
    } else if (from.kind === 'reference' && to.kind !== 'reference') {
      out.push(`${fk.table}: ${fk.name}, a reference table's foreign key to the ${to.kind} table ${fk.references}`);
    }
  }
  return out;
}

describe.skipIf(!POSTGRES_URL)(`the Citus plan of docs/scaling.md${POSTGRES_URL ? '' : ' [SKIPPED: no SVC_TEST_POSTGRES_URL]'}`, () => {
  let database: TestDatabase;
  let handle: DatabaseHandle;
  let schema: Schema;
  const plan = readPlan(DOC);

  beforeAll(async () => {
    database = await freshDatabase('postgres');
    handle = openDatabase(parseDatabaseUrl(database.url), { pgSchema: database.pgSchema });
    await migrateToLatest(handle);
    schema = await readSchema(handle, database.pgSchema as string);
  });

  afterAll(async () => {
    await handle?.destroy();
    await database?.drop();
  });

  it('is read whole from the doc: every kind, the affiliate tables by ref_code', () => {
    expect(plan.size).toBeGreaterThan(40);
    expect([...plan.values()].filter((p) => p.kind === 'reference').length).toBeGreaterThan(3);
    expect(plan.get('clicks')).toEqual({ kind: 'distributed', column: 'ref_code' });
    expect(plan.get('daily_stats')).toEqual({ kind: 'distributed', column: 'ref_code' });
    expect(plan.get('settings')).toEqual({ kind: 'reference', column: undefined });
  });

  it("holds on the migrations' schema: every table planned, every key and foreign key of a distributed table with its column", () => {
    expect(schema.tables).toContain('clicks');
    expect(schema.keys.find((k) => k.table === 'clicks')?.columns).toEqual(['ref_code', 'id', 'created_at']);
    expect(problems(plan, schema)).toEqual([]);
  });

  it('fails a plan that distributes a table by a column its keys lack, or forgets a table', () => {
    const wrong = new Map(plan);
    wrong.set('commissions', { kind: 'distributed', column: 'ref_code' });
    wrong.set('messages', { kind: 'distributed', column: 'mailbox_address' });
    wrong.delete('orders');
    expect(problems(wrong, schema)).toEqual(
      expect.arrayContaining([
        'orders: not in the plan',
        'commissions: commissions_pkey (id) lacks ref_code',
        'messages: messages_pkey (seq) lacks mailbox_address',
        expect.stringMatching(/^message_search: .+ refers to the distributed messages without its distribution column$/),
      ]),
    );
    const mailboxes = new Map(plan);
    mailboxes.set('mailboxes', { kind: 'distributed', column: 'address' });
    expect(problems(mailboxes, schema)).toEqual([expect.stringMatching(/^mailtm_accounts: .+ refers to the distributed mailboxes without its distribution column$/)]);
  });
});
