import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importGraph, sourceFiles } from '../helpers/import-graph.js';

const ROOT = join(import.meta.dirname, '../..');
const SRC = join(ROOT, 'src');
const AREAS = ['loop', 'mail', 'platform'];

const folders = (dir: string) => readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => e.name);

describe('the layout a newcomer sees (docs/architecture.md#module-map)', () => {
  it('src/ holds the three areas and the entry files, nothing else', () => {
    expect(folders(SRC).sort()).toEqual([...AREAS].sort());
  });

  it.each(AREAS)('src/%s has a README of two lines', (area) => {
    const readme = join(SRC, area, 'README.md');
    expect(existsSync(readme), `src/${area}/README.md`).toBe(true);
    expect(readFileSync(readme, 'utf8').trim().split('\n')).toHaveLength(2);
  });

  it('docs/architecture.md maps every feature folder of every area', () => {
    const map = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const missing = AREAS.flatMap((area) => folders(join(SRC, area)).map((f) => `src/${area}/${f}/`)).filter((path) => !map.includes(`\`${path}\``));
    expect(missing, 'add a row for each to the module map').toEqual([]);
  });

  it('the map names no folder that is gone', () => {
    const map = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const named = [...map.matchAll(/`(src\/[a-z-]+\/[a-z-]+\/)`/g)].map((m) => m[1]!);
    expect(named.length).toBeGreaterThan(20);
    expect(named.filter((path) => !existsSync(join(ROOT, path)))).toEqual([]);
  });

  it('the import directions it states between the areas hold (docs/architecture.md#direction-of-dependencies)', () => {
    const map = readFileSync(join(ROOT, 'docs/architecture.md'), 'utf8');
    const stated = /the areas stand in this order, each importing only those before it: ([^.]+)\./.exec(map)?.[1];
    expect(stated, 'the sentence naming the order of the areas').toBeDefined();
    const order = [...(stated as string).matchAll(/`([a-z]+)`/g)].map((m) => m[1] as string);
    expect([...order].sort()).toEqual([...AREAS].sort());
    const graph = importGraph(sourceFiles(SRC));
    const areaOf = (f: string) => relative(SRC, f).split('/')[0] as string;
    const upward = [...graph].flatMap(([from, deps]) =>
      deps.filter((to) => order.includes(areaOf(from)) && order.indexOf(areaOf(to)) > order.indexOf(areaOf(from))).map((to) => `${relative(SRC, from)} -> ${relative(SRC, to)}`),
    );
    expect(upward.length + graph.size).toBeGreaterThan(100); // the scan sees the sources
    expect(upward).toEqual([]);
  });
});
