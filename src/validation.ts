import type { z } from 'zod';
import { type FieldIssue, ValidationError } from './errors.js';

/** Validates a request body (or query) with a zod schema; failures become 400 invalid_request with field details. */
export function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const result = schema.safeParse(body ?? {});
  if (result.success) return result.data;
  const details: FieldIssue[] = result.error.issues.map((issue) => {
    let field = issue.path.map(String).join('.');
    let message = issue.message;
    if (issue.code === 'unrecognized_keys') {
      field = issue.keys.join(',');
      message = 'unknown field';
    }
    if (issue.code === 'invalid_type' && issue.input === undefined) message = 'is required';
    return { field: field || '(body)', message };
  });
  throw new ValidationError(details);
}
