import { dirname, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from '../helpers/import-graph.js';

// The directions docs/architecture.md#module-map states, read off the imports (type-only ones too, as in
// import-cycles.test.ts): the platform stands alone, mail stands on the affiliate loop and never the
// other way, and a repository belongs to its feature alone (STYLE.md, "Foundations do not know their floors").

const root = resolve(import.meta.dirname, '../..');
const src = resolve(root, 'src');
const files = sourceFiles(src);
const graph = importGraph(files);
const rel = (f: string) => relative(src, f);
const areaOf = (f: string) => rel(f).split('/')[0] as string;
const edges = [...graph].flatMap(([from, deps]) => deps.map((to) => ({ from: rel(from), to: rel(to), fromArea: areaOf(from), toArea: areaOf(to) })));

/**
 * Folders whose cross-feature repository imports the ledger owns (orders, commissions, withdrawals, payouts,
 * clicks, integrations and the ledger itself share the money statements, docs/ledger.md): the ledger's
 * executor is where those move, not a service of each.
 */
const LEDGER_OWNED = ['loop/orders', 'loop/commissions', 'loop/withdrawals', 'loop/payouts', 'loop/clicks', 'loop/integrations', 'loop/ledger'];

/**
 * Repository imports still waiting for a service of the ledger to go through (its counters and the click's
 * network ids are the ledger's: the ledger's rework moves them). The list only shrinks.
 */
const WAITING_FOR_THE_LEDGER: string[] = [];

describe('import directions (docs/architecture.md#module-map)', () => {
  it('the scan sees the areas and their imports', () => {
    expect(files.length).toBeGreaterThan(100);
    expect(edges.filter((e) => e.fromArea === 'mail' && e.toArea === 'platform').length).toBeGreaterThan(10);
    expect(edges.filter((e) => e.fromArea === 'loop' && e.toArea === 'platform').length).toBeGreaterThan(10);
  });

  it('src/platform imports nothing from src/loop or src/mail (features register with it instead)', () => {
    expect(edges.filter((e) => e.fromArea === 'platform' && (e.toArea === 'loop' || e.toArea === 'mail')).map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it('the areas depend one way: src/mail may import src/loop, src/loop never imports src/mail', () => {
    expect(edges.some((e) => e.fromArea === 'mail' && e.toArea === 'loop')).toBe(true);
    expect(edges.filter((e) => e.fromArea === 'loop' && e.toArea === 'mail').map((e) => `${e.from} -> ${e.to}`)).toEqual([]);
  });

  it("no feature imports another feature's repository (services talk to services)", () => {
    // the composition (src/*.ts: context.ts wires every repository-backed piece) is no feature
    const crossing = edges.filter((e) => e.from.includes('/') && e.to.endsWith('.repository.ts') && dirname(e.from) !== dirname(e.to) && !LEDGER_OWNED.some((d) => e.from.startsWith(`${d}/`)));
    expect(crossing.map((e) => `${e.from} -> ${e.to}`).filter((e) => !WAITING_FOR_THE_LEDGER.includes(e))).toEqual([]);
    // and every waiting one is still there (a fixed one leaves the list)
    expect(WAITING_FOR_THE_LEDGER.filter((w) => !crossing.some((e) => `${e.from} -> ${e.to}` === w))).toEqual([]);
  });
});
