import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

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
});
