import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, importSpecifiers, sourceFiles } from '../helpers/import-graph.js';

const root = resolve(import.meta.dirname, '../..');

describe('import graph', () => {
  it('reads every kind of import, type-only and multi-line ones too, but not examples in comments', () => {
    const source = [
      "import { a } from './a.js';",
      "import type { B } from '../b.js';",
      'import {',
      '  c,',
      '  type D,',
      "} from './c.js';",
      "export { e } from './e.js';",
      "export * from './f.js';",
      "import './g.js';",
      "const h = await import('./h.js');",
      "import pino from 'pino';",
      " * import { nope } from './in-a-comment.js';",
      "const s = 'from \\'./not-an-import.js\\'';",
    ].join('\n');
    expect(importSpecifiers(source)).toEqual(['./a.js', '../b.js', './c.js', './e.js', './f.js', './g.js', './h.js']);
  });

  it('finds a cycle, also one closed by a type-only import', () => {
    const files: Record<string, string> = {
      '/p/context.ts': "import { Worker } from './worker/worker.js';",
      '/p/worker/worker.ts': "import type { Task } from '../context.js';\nimport { x } from './leaf.js';",
      '/p/worker/leaf.ts': '',
    };
    const graph = importGraph(Object.keys(files), (f) => files[f] as string);
    expect(importCycles(graph, '/p')).toEqual([['context.ts', 'worker/worker.ts']]);
    files['/p/worker/worker.ts'] = "import type { Task } from '../task.js';";
    expect(importCycles(importGraph([...Object.keys(files), '/p/task.ts'], (f) => files[f] ?? ''), '/p')).toEqual([]);
  });

  // Dependencies point one way (STYLE.md); a cycle means two modules that cannot be understood, tested or
  // loaded one without the other. Shared types live in modules of their own (background-task.ts, logger.ts).
  it.each(['src', 'web/src'])('%s has no import cycle', (dir) => {
    const files = sourceFiles(resolve(root, dir));
    const graph = importGraph(files);
    expect(files.length).toBeGreaterThan(10);
    expect([...graph.values()].flat().length).toBeGreaterThan(files.length); // the scanner sees the imports
    expect(importCycles(graph, resolve(root, dir))).toEqual([]);
  });

  // Dependencies point down: transport (http) -> services -> repositories -> db. A repository or db module
  // importing from src/http (pagination, schemas, errors of the web layer) points up.
  it('nothing under src/db and no repository imports from src/http', () => {
    const src = resolve(root, 'src');
    const http = resolve(src, 'http');
    const files = sourceFiles(src);
    const graph = importGraph(files);
    const lower = files.filter((f) => f.startsWith(`${resolve(src, 'db')}/`) || f.endsWith('.repository.ts'));
    expect(lower.length).toBeGreaterThan(10);
    const upward = lower.flatMap((f) => (graph.get(f) ?? []).filter((to) => to.startsWith(`${http}/`)).map((to) => `${f} -> ${to}`));
    expect(upward).toEqual([]);
    // and the check sees such an import when there is one
    const fake = importGraph(['/p/src/platform/db/x.ts', '/p/src/platform/http/y.ts'], (f) => (f === '/p/src/platform/db/x.ts' ? "import { y } from '../http/y.js';" : ''));
    expect(fake.get('/p/src/platform/db/x.ts')).toEqual(['/p/src/platform/http/y.ts']);
  });
});
