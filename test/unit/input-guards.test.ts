import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { jsonTextProblem, MAX_JSON_DEPTH, MAX_JSON_VALUES, parseJsonBody, urlHasNul } from '../../src/platform/http/input-guards.js';

function depthOf(v: unknown): number {
  if (Array.isArray(v)) return 1 + Math.max(0, ...v.map(depthOf));
  if (v !== null && typeof v === 'object') return 1 + Math.max(0, ...Object.values(v).map(depthOf));
  return 0;
}

function hasNul(v: unknown): boolean {
  if (typeof v === 'string') return v.includes('\u0000');
  if (Array.isArray(v)) return v.some(hasNul);
  if (v !== null && typeof v === 'object') return Object.entries(v).some(([k, x]) => k.includes('\u0000') || hasNul(x));
  return false;
}

/** Wraps a value in `levels` arrays or objects. */
const wrapped = fc.tuple(fc.jsonValue({ maxDepth: 4 }), fc.array(fc.boolean(), { maxLength: 40 })).map(([v, levels]) => levels.reduce<unknown>((acc, asArray) => (asArray ? [acc] : { k: acc }), v));
const withNul = fc.tuple(wrapped, fc.string({ maxLength: 5 }), fc.boolean()).map(([v, s, inKey]) => (inKey ? { [`${s}\u0000`]: v } : [v, `${s}\u0000${s}`]));

describe('JSON input guard (no recursion, before JSON.parse)', () => {
  it('finds exactly the texts nested deeper than 32 levels or carrying a NUL, whatever else they hold', () => {
    fc.assert(
      fc.property(fc.oneof(wrapped, withNul, fc.jsonValue()), (v) => {
        const text = JSON.stringify(v);
        const problem = jsonTextProblem(text);
        const deep = depthOf(v) > MAX_JSON_DEPTH;
        const nul = hasNul(v);
        if (!deep && !nul) expect(problem).toBeUndefined();
        else expect(problem === 'too_deep' ? deep : problem === 'nul' ? nul : false).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('is not fooled by brackets and escapes inside strings', () => {
    expect(jsonTextProblem(JSON.stringify({ a: '['.repeat(100) }))).toBeUndefined();
    expect(jsonTextProblem(JSON.stringify({ a: '\\u0000' }))).toBeUndefined(); // a backslash, then "u0000"
    expect(jsonTextProblem(JSON.stringify({ a: '"]]]"\\"[' }))).toBeUndefined();
    expect(jsonTextProblem('{"a":"\\u0000"}')).toBe('nul');
    expect(jsonTextProblem('{"\\u0000":1}')).toBe('nul');
    expect(jsonTextProblem('["\\\\\\u0000"]')).toBe('nul'); // an escaped backslash, then a NUL escape
  });

  it('counts 32 levels as allowed and 33 as too deep; 100,000 levels is found at once', () => {
    expect(jsonTextProblem(`${'['.repeat(32)}${']'.repeat(32)}`)).toBeUndefined();
    expect(jsonTextProblem(`${'['.repeat(33)}${']'.repeat(33)}`)).toBe('too_deep');
    expect(jsonTextProblem('['.repeat(100_000))).toBe('too_deep');
  });

  it('counts values by their commas: 10,000 are allowed, one more is too wide, and commas in strings do not count', () => {
    const keys = (n: number) => JSON.stringify(Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])));
    expect(jsonTextProblem(keys(MAX_JSON_VALUES))).toBeUndefined();
    expect(jsonTextProblem(keys(MAX_JSON_VALUES + 1))).toBe('too_wide');
    expect(jsonTextProblem(JSON.stringify(Array.from({ length: 130_000 }, () => 0)))).toBe('too_wide');
    expect(jsonTextProblem(JSON.stringify({ a: ','.repeat(100_000), b: [1, 2] }))).toBeUndefined();
    expect(() => parseJsonBody(keys(MAX_JSON_VALUES + 1))).toThrowError(
      expect.objectContaining({ status: 400, code: 'invalid_request', details: [{ field: '(body)', message: `holds more than ${MAX_JSON_VALUES} values` }] }),
    );
  });

  it('leaves broken JSON to the parser, which answers 400', () => {
    for (const text of ['{"a":"unterminated', '{', ']]]]', '"\\', 'nul\u0000l']) {
      expect(() => parseJsonBody(text)).toThrowError(expect.objectContaining({ status: 400, code: 'invalid_request' }));
    }
    expect(parseJsonBody('  ')).toBeUndefined();
    expect(parseJsonBody('{"a":[1]}')).toEqual({ a: [1] });
  });

  it('sees a NUL in a URL, encoded or raw', () => {
    expect(urlHasNul('/api/orders/%00')).toBe(true);
    expect(urlHasNul('/api/orders?q=a\u0000')).toBe(true);
    expect(urlHasNul('/api/orders?q=%2500')).toBe(false);
  });
});
