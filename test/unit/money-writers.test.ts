import { readFileSync } from 'node:fs';
import { relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from '../helpers/import-graph.js';

const root = resolve(import.meta.dirname, '../..');
const src = resolve(root, 'src');
const ledger = resolve(src, 'loop/ledger');

/** The tables whose rows only the ledger's plans change (docs/ledger.md); the billing systems' event log holds the claims. */
const MONEY_TABLES = ['orders', 'commissions', 'withdrawals', 'payout_batches', 'payout_schedule_runs', 'payout_schedule_months', 'daily_stats', 'affiliate_stats', 'integration_events'];
const names = MONEY_TABLES.join('|');
/** A write of a money table: through Kysely or in SQL text. */
const MONEY_WRITE = new RegExp(`(?:updateTable|insertInto|deleteFrom|replaceInto|mergeInto)\\(\\s*['"\`](?:${names})['"\`]|\\b(?:insert\\s+into|update|delete\\s+from|replace\\s+into)\\s+"?(?:${names})\\b`, 'i');
/** Running a statement (the executor's job alone for money writes). */
const RUNS = /\.(?:execute|executeTakeFirst|executeTakeFirstOrThrow|executeQuery)\(|\.prepare\(/;

/** The files that write a money table, and those of them that also run statements, outside the executor. */
function moneyWriters(files: readonly string[], read: (f: string) => string): { outside: string[]; running: string[] } {
  const writers = files.filter((f) => MONEY_WRITE.test(read(f)));
  return {
    outside: writers.filter((f) => !f.startsWith(`${ledger}/`)).map((f) => relative(root, f)),
    running: writers.filter((f) => f.startsWith(`${ledger}/`) && RUNS.test(read(f).replace(/\/\*[\s\S]*?\*\//g, ''))).map((f) => relative(root, f)),
  };
}

// STYLE.md "One writer": every state change of an order, commission, withdrawal, payout batch, counter and
// event claim is a ledger plan. The statements live in src/loop/ledger/ (built, not run: *-writes.ts and
// counters.repository.ts) and only the executor runs them. Migrations may backfill; nothing else writes.
describe('money statements', () => {
  const files = sourceFiles(src).filter((f) => !f.startsWith(`${resolve(src, 'platform/db/migrations')}/`));
  const read = (f: string) => readFileSync(f, 'utf8');

  it('are written in src/loop/ledger/ alone, in files that build them and never run them', () => {
    const { outside, running } = moneyWriters(files, read);
    expect(outside).toEqual([]);
    expect(running.filter((f) => !f.endsWith('/executor.ts'))).toEqual([]);
    // the check sees the writers it guards
    expect(files.filter((f) => f.startsWith(`${ledger}/`) && MONEY_WRITE.test(read(f))).length).toBeGreaterThanOrEqual(5);
  });

  it('sees a money write outside the ledger, in Kysely or in SQL, and one that is run where it is built', () => {
    const fake: Record<string, string> = {
      [`${src}/loop/orders/x.repository.ts`]: "await db.updateTable('orders').set({ status: 'paid' }).execute();",
      [`${src}/loop/clicks/y.ts`]: "sqlite.prepare('insert into daily_stats (ref_code) values (?)');",
      [`${ledger}/z-writes.ts`]: "export const w = (db) => db.insertInto('commissions').values(row).execute();",
      [`${src}/loop/orders/fine.ts`]: "db.selectFrom('orders').selectAll();",
      [`${src}/loop/integrations/w.repository.ts`]: "await db.updateTable('integration_events').set({ outcome }).execute();",
    };
    const found = moneyWriters(Object.keys(fake), (f) => fake[f] as string);
    expect(found.outside).toEqual(['src/loop/orders/x.repository.ts', 'src/loop/clicks/y.ts', 'src/loop/integrations/w.repository.ts']);
    expect(found.running).toEqual(['src/loop/ledger/z-writes.ts']);
  });

  // Services talk to services (STYLE.md): among the money features, none imports another feature's
  // repository; the ledger's own repositories are open to all of them.
  it('no money feature imports another feature repository', () => {
    const features = ['orders', 'commissions', 'withdrawals', 'payouts', 'clicks', 'ledger', 'integrations'].map((d) => resolve(src, 'loop', d));
    const graph = importGraph(sourceFiles(src));
    const featureOf = (f: string) => relative(resolve(src, 'loop'), f).split('/')[0];
    const reaches = [...graph]
      .filter(([f]) => features.some((d) => f.startsWith(`${d}/`)))
      .flatMap(([f, deps]) => deps.filter((to) => to.endsWith('.repository.ts') && to.startsWith(`${resolve(src, 'loop')}/`) && featureOf(to) !== featureOf(f) && featureOf(to) !== 'ledger').map((to) => `${relative(root, f)} -> ${relative(root, to)}`));
    expect(reaches).toEqual([]);
  });

  it('orders and commissions, withdrawals and payouts depend on each other in one direction only', () => {
    const graph = importGraph(sourceFiles(src));
    const imports = (from: string, to: string) =>
      [...graph].some(([f, deps]) => f.startsWith(`${resolve(src, 'loop', from)}/`) && deps.some((d) => d.startsWith(`${resolve(src, 'loop', to)}/`)));
    expect([imports('commissions', 'orders'), imports('payouts', 'withdrawals')]).toEqual([false, false]);
    expect([imports('orders', 'commissions'), imports('withdrawals', 'payouts')]).toEqual([true, true]);
  });
});
