import { Kysely, PostgresDialect, sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import type { ChainCondition } from '../../src/loop/ledger/chain.js';
import { counterWrites } from '../../src/loop/ledger/counters.repository.js';
import type { Database } from '../../src/platform/db/schema.js';

// Compiling needs no connection: a PostgreSQL dialect over a pool that is never asked for one.
const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool: {} as never }) });
const after: ChainCondition = Object.assign(sql.raw<boolean>('exists (select 1 from s0)'), { text: 'exists (select 1 from s0)' });

/** counters.repository.ts compiles each upsert shape once: later writes of that shape reuse its text with their own values. */
describe('counter upserts compiled once per shape', () => {
  const writes = (ref: string, orders: number, cents: number) =>
    counterWrites(db, ref, [{ day: '2026-12-01', deltas: { orders, revenue_cents: cents } }, { day: '2026-11-30', deltas: { commission_void_cents: 7 } }], 3, 40);

  it('gives a later write of the same shape its own values in the same text', () => {
    const first = writes('ann', 1, 500).map((w) => w(after).compile());
    const second = writes('bob', 2, 900).map((w) => w(after).compile());
    expect(second.map((c) => c.sql)).toEqual(first.map((c) => c.sql));
    expect(first[0]!.parameters).toEqual(['ann', 3, 7, 1, 500, 40]);
    expect(second[0]!.parameters).toEqual(['bob', 3, 7, 2, 900, 40]);
    expect(second[1]!.parameters).toEqual(['bob', '2026-11-30', 3, 7, 0, 0, 'bob', '2026-12-01', 3, 0, 2, 900]);
    expect(second[1]!.sql).toContain('where exists (select 1 from s0) union all select');
  });

  it('keeps shapes apart: without a chain condition the upsert is a plain VALUES', () => {
    const plain = writes('cy', 1, 100)[0]!(undefined).compile();
    expect(plain.sql).toMatch(/^insert into "affiliate_stats" \("ref_code", "stripe", [^)]+\) values \(\$1, \$2, \$3, \$4, \$5, \$6\) on conflict/);
    expect(plain.parameters).toEqual(['cy', 3, 7, 1, 100, 40]);
  });
});
