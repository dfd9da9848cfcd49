import { z } from 'zod';
import { toIso } from '../clock.js';
import type { Delivery, DeliveryAttempt } from '../db/schema.js';
import { listQuerySchema } from '../http/list-query.js';
import { idParam, isoTime } from '../http/openapi.js';

// A delivery at the edge: the list's query, the bodies the routes answer with, their types and the
// mappers from rows.

export const listQuery = listQuerySchema.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  event: z.string().min(1).max(100).optional(),
  target: z.string().min(1).max(100).optional(),
});

export const idParams = z.object({ id: idParam });

export const deliveryBody = z.strictObject({
  id: z.string(),
  event_id: z.string(),
  event: z.string().meta({ description: 'The event type' }),
  target: z.string().meta({ description: '`webhook` or an adapter name' }),
  url: z.string().nullable(),
  status: z.enum(['pending', 'delivered', 'failed']),
  attempt_count: z.number().int().meta({ description: 'Attempts since the delivery was (re)queued' }),
  next_attempt_at: isoTime.nullable(),
  last_status_code: z.number().int().nullable(),
  last_error: z.string().nullable(),
  created_at: isoTime,
  updated_at: isoTime,
  delivered_at: isoTime.nullable(),
});

export const attemptBody = z.strictObject({
  at: isoTime,
  status_code: z.number().int().nullable(),
  latency_ms: z.number().int(),
  error: z.string().nullable(),
  response_body: z.string().nullable().meta({ description: 'The start of the answer' }),
});

/** A delivery as the API shows it; the type is the body's, so the two cannot drift. */
export type DeliveryJson = z.infer<typeof deliveryBody>;
export type AttemptJson = z.infer<typeof attemptBody>;

export function deliveryJson(d: Delivery): DeliveryJson {
  return {
    id: d.id,
    event_id: d.event_id,
    event: d.event_type,
    target: d.target,
    url: d.url,
    status: d.status,
    attempt_count: d.attempts,
    next_attempt_at: d.status === 'pending' && d.next_attempt_at !== null ? toIso(d.next_attempt_at) : null,
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: toIso(d.created_at),
    updated_at: toIso(d.updated_at),
    delivered_at: d.delivered_at !== null ? toIso(d.delivered_at) : null,
  };
}

export function attemptJson(a: DeliveryAttempt): AttemptJson {
  return { at: toIso(a.at), status_code: a.status_code, latency_ms: a.latency_ms, error: a.error, response_body: a.response_body };
}
