import { relative, resolve } from 'node:path';
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
});
