import type { z } from 'zod';
import { type FieldIssue, ValidationError } from './errors.js';

/** Validates a request body (or query) with a zod schema; failures become 400 invalid_request with field details. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const details: FieldIssue[] = [];
  for (const issue of result.error.issues) {
    let field = issue.path.map(String).join('.');
    let message = issue.message;
    // zod does not hand back the input unless asked, so look at what was sent
    const sent = issue.path.length > 0 ? valueAt(body, issue.path) : body;
    if (issue.code === 'unrecognized_keys') {
      field = issue.keys.join(',');
      message = 'unknown field';
    } else if (sent === undefined && issue.path.length > 0) {
      // whatever the check (a type, a custom money rule), a field that was not sent is missing
      message = 'is required';
    } else if (issue.code === 'invalid_type') {
      message = typeMessage(issue.expected, sent);
    }
    field ||= '(body)';
    // one detail per field: the first check it failed says enough
    if (!details.some((d) => d.field === field)) details.push({ field, message });
  }
  throw new ValidationError(details);
}

/** "must be a number, not a string"; an integer or a finite number asked for is said so, not "an int, not a number". */
function typeMessage(expected: string, sent: unknown): string {
  if (expected === 'int') return typeof sent === 'number' || typeof sent === 'string' ? 'must be an integer' : `must be an integer, not ${describe(sent)}`;
  if (expected === 'number' && typeof sent === 'number') return 'must be a finite number';
  return `must be ${article(expected)}, not ${describe(sent)}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const key of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[key];
  }
  return v;
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return article(typeof value);
}
