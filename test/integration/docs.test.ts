import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startTestService } from '../helpers/service.js';

const ROOT = resolve(import.meta.dirname, '../..');
const API_MD = readFileSync(join(ROOT, 'docs/api.md'), 'utf8');

describe('docs/api.md against the running service', () => {
  it('names every operation of /openapi.json, and no operation the service does not have', async () => {
    const t = await startTestService('sqlite', { env: { SVC_METRICS_TOKEN: 'docs-metrics-token-0123456789' } });
    try {
      const doc = (await t.request('GET', '/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
      const served = Object.entries(doc.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
      const named = [...API_MD.matchAll(/`(GET|POST|PATCH|PUT|DELETE) (\/[^`\s]*)`/g)].map((m) => `${m[1]} ${m[2]}`);
      expect(served.filter((op) => !named.includes(op))).toEqual([]);
      expect(named.filter((op) => !served.includes(op))).toEqual([]);
      expect(served.length).toBeGreaterThan(50);
    } finally {
      await t.close();
    }
  });
});

/** Hosts a link may name: this machine, reserved example and test domains. */
const LOCAL = /^https?:\/\/(localhost|127\.0\.0\.1|\[::1\]|0\.0\.0\.0|([a-z0-9-]+\.)*(example|test|local|localhost|invalid)|example\.(com|org|net)|HOST|\$\{[^}]+\})([:/?#]|$)/i;

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|tsx|md|css|html)$/.test(name) ? [path] : [];
  });
}

describe('no link points outside the repository', () => {
  it('in src, web/src, README and docs (only localhost, example and test domains, placeholders)', () => {
    const outside: string[] = [];
    for (const file of [...files(join(ROOT, 'src')), ...files(join(ROOT, 'web/src')), ...files(join(ROOT, 'docs')), join(ROOT, 'README.md')]) {
      for (const m of readFileSync(file, 'utf8').matchAll(/https?:\/\/[^\s"'`)<>\]]*/g)) {
        if (!LOCAL.test(m[0])) outside.push(`${relative(ROOT, file)}: ${m[0]}`);
      }
    }
    expect(outside).toEqual([]);
  });
});
