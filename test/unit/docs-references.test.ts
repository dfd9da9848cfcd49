import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/**
 * Comments and docs cite the project's own docs as `docs/<file>.md#<anchor>` (or `README.md#<anchor>`),
 * never a document outside the repository. Every such reference must name a file that exists and a
 * heading in it (GitHub's slug of the heading).
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/**
 * Folders still being rewritten on other branches whose comments cite the outside contract; their
 * citations are converted after the merge with /work/notes/citation-map.json. Empty this list then.
 */
const PENDING_FOLDERS: readonly string[] = [];

/** Generated from /openapi.json; its comments come from the route descriptions. */
const GENERATED = new Set(['web/src/api-types.ts']);

const SOURCE_EXT = /\.(ts|tsx|mts|js|mjs|cjs|md|css|html|json)$/;

function walk(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...walk(path));
    else if (SOURCE_EXT.test(name)) out.push(path);
  }
  return out;
}

/** Repository-relative paths of the files whose references are checked. */
function checkedFiles(): string[] {
  const files = ['src', 'web/src', 'test', 'bench', 'docs'].flatMap((d) => walk(join(ROOT, d)));
  files.push(join(ROOT, 'README.md'));
  return files.map((f) => relative(ROOT, f).split('\\').join('/')).filter((f) => !GENERATED.has(f));
}

/** GitHub's anchor for a heading: lower case, punctuation but '-' and '_' removed, spaces to '-'. */
function slug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** Every anchor of a markdown file, duplicates numbered as GitHub does (`x`, `x-1`, …); fenced code skipped. */
function anchors(markdown: string): Set<string> {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const m = /^#{1,6}\s+(.+?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const base = slug(m[1] as string);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n === 0 ? base : `${base}-${n}`);
  }
  return found;
}

const anchorCache = new Map<string, Set<string> | undefined>();
function anchorsOf(repoPath: string): Set<string> | undefined {
  if (!anchorCache.has(repoPath)) {
    let text: string | undefined;
    try {
      text = readFileSync(join(ROOT, repoPath), 'utf8');
    } catch {
      text = undefined;
    }
    anchorCache.set(repoPath, text === undefined ? undefined : anchors(text));
  }
  return anchorCache.get(repoPath);
}

/** `docs/<file>.md#<anchor>` and `README.md#<anchor>`, as comments write them (also inside markdown links). */
const REFERENCE = /(?<![\w./-])((?:docs\/[\w.-]+|README)\.md)#([\w-]+)/g;
/** Relative markdown links with an anchor, in .md files: `](<file>.md#<anchor>)`, `](../README.md#<anchor>)`, `](#<anchor>)`. */
const MD_LINK = /\]\(((?:[\w./-]+\.md)?)#([^)\s]+)\)/g;

interface Problem {
  readonly at: string;
  readonly reference: string;
  readonly why: string;
}

function check(at: string, target: string, anchor: string, reference: string, problems: Problem[]): void {
  const known = anchorsOf(target);
  if (known === undefined) problems.push({ at, reference, why: `no file ${target}` });
  else if (!known.has(anchor)) problems.push({ at, reference, why: `no heading with the anchor #${anchor} in ${target}` });
}

/**
 * A citation of the outside contract or of the seed (the service's first description, also outside the
 * repository), also when a comment breaks the line between its two words.
 */
const OUTSIDE = new RegExp(`(?:${'CONTRACT'}|\\b[Ss]eed)(?:[\\s*/]*\u00a7|\\.md)`, 'g');

describe('references to documentation', () => {
  it('slugs headings as GitHub does', () => {
    expect(slug("The affiliate portal's isolation")).toBe('the-affiliate-portals-isolation');
    expect(slug('Integrations: orders from billing systems')).toBe('integrations-orders-from-billing-systems');
    expect(slug('The mail.tm-compatible API')).toBe('the-mailtm-compatible-api');
    expect(slug('`src/` and `web/`')).toBe('src-and-web');
    expect([...anchors('# A\n## B\n```\n# not a heading\n```\n## B\n')]).toEqual(['a', 'b', 'b-1']);
  });

  it('cite no document outside the repository (the contract, the seed)', () => {
    const offenders: string[] = [];
    for (const file of checkedFiles()) {
      if (PENDING_FOLDERS.some((folder) => file.startsWith(`${folder}/`))) continue;
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(OUTSIDE)) {
        const line = text.slice(0, m.index).split('\n').length;
        offenders.push(`${file}:${line}: ${text.split('\n')[line - 1]?.trim()}`);
      }
    }
    expect(offenders, 'cite docs/<file>.md#<anchor> instead (write the rule into docs/ when it is not there)').toEqual([]);
  });

  it('name files and headings that exist', () => {
    const problems: Problem[] = [];
    let count = 0;
    for (const file of checkedFiles()) {
      const text = readFileSync(join(ROOT, file), 'utf8');
      for (const m of text.matchAll(REFERENCE)) {
        count++;
        check(file, m[1] as string, m[2] as string, m[0], problems);
      }
      if (!file.endsWith('.md')) continue;
      for (const m of text.matchAll(MD_LINK)) {
        const linked = m[1] as string;
        const target = linked === '' ? file : relative(ROOT, resolve(ROOT, dirname(file), linked)).split('\\').join('/');
        count++;
        check(file, target, decodeURIComponent(m[2] as string), m[0], problems);
      }
    }
    expect(count).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });
});
