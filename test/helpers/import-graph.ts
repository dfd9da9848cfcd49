import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The relative imports of a TypeScript file: `import … from`, `export … from`, side-effect `import '…'`
 * and `import('…')`, type-only ones included (a cycle through types is still a cycle in the design).
 * A statement must start a line, so examples inside comments (` * import …`) do not count.
 */
const IMPORT_RE = /(?:^|[;\n])[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|(?:^|[;\n])[ \t]*import\s*['"]([^'"]+)['"]|\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

export function importSpecifiers(source: string): string[] {
  return [...source.matchAll(IMPORT_RE)].map((m) => (m[1] ?? m[2] ?? m[3]) as string).filter((s) => s.startsWith('.'));
}

/** Every .ts/.tsx file below `dir`, as absolute paths. */
export function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (/\.tsx?$/.test(name) && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** file -> the files it imports (`./x.js` is `./x.ts`; web code imports without an extension). */
export function importGraph(files: readonly string[], read: (file: string) => string = (f) => readFileSync(f, 'utf8')): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const deps: string[] = [];
    for (const spec of importSpecifiers(read(file))) {
      const base = resolve(dirname(file), spec).replace(/\.js$/, '');
      const target = [`${base}.ts`, `${base}.tsx`, join(base, 'index.ts')].find((c) => known.has(c) || existsSync(c));
      if (target && known.has(target)) deps.push(target);
    }
    graph.set(file, deps);
  }
  return graph;
}

/** The import cycles (strongly connected components of more than one file, or a file importing itself), each as a path list. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>, root = '/'): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (graph.get(v) ?? []).includes(v)) cycles.push(component.map((f) => relative(root, f)).sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}
