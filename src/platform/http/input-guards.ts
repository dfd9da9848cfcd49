import { AppError, ValidationError } from '../errors.js';

/**
 * Input rules that hold for every route (README.md#limits "input"), applied once by the JSON parser and
 * the app's onRequest hook, so a new route gets them without doing anything:
 * JSON nested deeper than MAX_JSON_DEPTH, wider than MAX_JSON_VALUES, and a NUL character anywhere (a
 * JSON string or key, a query value, a path segment) are 400 invalid_request. PostgreSQL text cannot
 * hold NUL, and the depth check runs before anything recursive (JSON.parse, the Idempotency-Key's
 * canonical JSON, zod) sees the body.
 */
export const MAX_JSON_DEPTH = 32;

/**
 * At most this many values (object members and array elements, counted as the commas between them) in a
 * JSON body (docs/architecture.md#every-route). No route's schema admits anything near it (the widest,
 * POST /api/inbound, takes at most a few hundred), while 130,000 keys in 1 MiB held the event loop
 * 110-170 ms in JSON.parse and the schema's check of every key; refused by the same linear scan as the
 * depth, before anything is parsed, such a body costs the event loop a few ms (route-sweep.test.ts).
 */
export const MAX_JSON_VALUES = 10_000;

export type JsonTextProblem = 'too_deep' | 'too_wide' | 'nul';

/**
 * Why a JSON text is refused before parsing (too deep, too wide, or a \u0000 escape), or undefined. Never
 * recursive, one pass: outside strings it looks at each character (a tight loop), inside strings it
 * jumps with indexOf from one quote or backslash to the next, so a 10 MB base64 string costs two
 * native searches. Anything else wrong with the text is left to JSON.parse.
 */
export function jsonTextProblem(text: string, maxDepth = MAX_JSON_DEPTH, maxValues = MAX_JSON_VALUES): JsonTextProblem | undefined {
  let depth = 0;
  let commas = 0;
  // positions of the next quote and backslash at or after the cursor; -2: not looked for yet, -1: none left
  let nextQuote = -2;
  let nextEscape = -2;
  const n = text.length;
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x5b || c === 0x7b) {
      if (++depth > maxDepth) return 'too_deep';
    } else if (c === 0x5d || c === 0x7d) {
      depth--;
    } else if (c === 0x2c) {
      if (++commas >= maxValues) return 'too_wide';
    } else if (c === 0x22) {
      // a string: from just after its opening quote to its closing one
      i++;
      for (;;) {
        if (nextQuote < i) nextQuote = text.indexOf('"', i);
        if (nextQuote === -1) return undefined; // unterminated: JSON.parse will refuse it
        if (nextEscape !== -1 && nextEscape < i) nextEscape = text.indexOf('\\', i);
        if (nextEscape === -1 || nextEscape > nextQuote) break;
        if (text.startsWith('u0000', nextEscape + 1)) return 'nul';
        i = nextEscape + 2; // past the escaped character, whatever it is (an escaped quote too)
      }
      i = nextQuote; // the loop's i++ steps past the closing quote
    }
  }
  return undefined;
}

/** A JSON request body read: its value (undefined for an empty body), or why it is refused. */
export type JsonBody = { readonly value: unknown } | { readonly problem: JsonTextProblem | 'invalid' };

/** Reads a JSON request body without throwing: plain data in and out, so a worker can run it (content-pool.ts). */
export function readJsonBody(text: string): JsonBody {
  if (text.trim() === '') return { value: undefined };
  const problem = jsonTextProblem(text);
  if (problem) return { problem };
  try {
    return { value: JSON.parse(text) };
  } catch {
    return { problem: 'invalid' };
  }
}

/** The value of a body read by readJsonBody; a refused one is 400 invalid_request. */
export function jsonBodyValue(body: JsonBody): unknown {
  if ('value' in body) return body.value;
  if (body.problem === 'too_deep') {
    throw new ValidationError([{ field: '(body)', message: `is nested deeper than ${MAX_JSON_DEPTH} levels` }], 'Body is nested too deeply');
  }
  if (body.problem === 'too_wide') {
    throw new ValidationError([{ field: '(body)', message: `holds more than ${MAX_JSON_VALUES} values` }], 'Body holds too many values');
  }
  if (body.problem === 'nul') {
    throw new ValidationError([{ field: '(body)', message: 'contains a NUL character (\\u0000)' }], 'Body contains a NUL character');
  }
  throw new AppError(400, 'invalid_request', 'Body is not valid JSON');
}

/** A JSON request body, parsed; an empty body is "no body". Anything refused is 400 invalid_request. */
export function parseJsonBody(text: string): unknown {
  return jsonBodyValue(readJsonBody(text));
}

/** True when a raw request URL carries a NUL character, percent-encoded or not. */
export function urlHasNul(url: string): boolean {
  return url.includes('%00') || url.includes('\u0000');
}

/** The path parameter or query field that carries the NUL (for the error's details). */
export function fieldWithNul(params: unknown, query: unknown): string {
  for (const values of [params, query]) {
    if (!values || typeof values !== 'object') continue;
    for (const [name, value] of Object.entries(values as Record<string, unknown>)) {
      const all = Array.isArray(value) ? value : [value];
      if (name.includes('\u0000') || all.some((v) => typeof v === 'string' && v.includes('\u0000'))) return name.split('\u0000').join('\\u0000');
    }
  }
  return '(url)';
}

/** Reads a large JSON body off the event loop (the context hands in the mail area's content pool). */
export interface JsonBodyReader {
  readJson(bytes: Buffer): Promise<JsonBody>;
  /** true for an error meaning the body could not be read within its limits (a 400), not that the reader is unavailable. */
  isLimitError(err: unknown): boolean;
}
