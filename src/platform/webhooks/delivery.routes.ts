import { z } from 'zod';
import { toIso } from '../clock.js';
import type { AppContext } from '../../context.js';
import { EVENT_TYPES, EVENTS } from '../events/catalogue.js';
import { listQuerySchema } from '../http/list-query.js';
import { errors, idParam, isoTime, one, pageOf } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';

const listQuery = listQuerySchema.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  event: z.string().min(1).max(100).optional(),
  target: z.string().min(1).max(100).optional(),
});

const idParams = z.object({ id: idParam });

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

const queueStatsBody = z.strictObject({
  pending: z.number().int(),
  failed: z.number().int(),
  oldest_pending_at: isoTime.nullable(),
  unfanned_events: z.number().int().meta({ description: 'Events not yet turned into deliveries' }),
});

const adapterBody = z.strictObject({ name: z.string(), enabled: z.boolean(), description: z.string() });
const eventTypeBody = z.strictObject({ type: z.enum(EVENT_TYPES), description: z.string() });
const itemsOf = (item: z.ZodType) => z.strictObject({ success: z.literal(true), items: z.array(item) });

/** Delivery log, redelivery, test event, adapter list and event catalogue for the admin area. Mounted under /admin/api only. */
export function deliveryAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const { deliveries } = ctx.services;

  const list = {
    summary: 'The delivery log, newest first',
    description: 'Each delivery is one event to one target (the webhook or an adapter).',
    querystring: listQuery,
    responses: { 200: { description: 'A page', body: pageOf(deliveryBody) }, ...errors(400) },
  };
  app.get('/deliveries', { schema: list }, async (request) => ({ success: true, ...(await deliveries.list(request.query)) }));

  // How the queue stands across all instances: the admin page's summary line.
  const stats = { summary: 'How the delivery queue stands, across all instances', responses: { 200: { description: 'The queue', body: one('stats', queueStatsBody) } } };
  app.get('/deliveries/stats', { schema: stats }, async () => {
    const s = await deliveries.queueStats();
    return {
      success: true,
      stats: {
        pending: s.pending,
        failed: s.failed,
        oldest_pending_at: s.oldestPendingAt === null ? null : toIso(s.oldestPendingAt),
        unfanned_events: s.unfannedEvents,
      },
    };
  });

  const read = {
    summary: 'One delivery with every attempt',
    params: idParams,
    responses: { 200: { description: 'The delivery', body: one('delivery', deliveryBody.extend({ attempts: z.array(attemptBody) })) }, ...errors(400, 404) },
  };
  app.get('/deliveries/:id', { schema: read }, async (request) => ({ success: true, delivery: await deliveries.get(request.params.id) }));

  const redeliver = {
    summary: 'Send a delivery again, now, with a fresh retry schedule',
    description: 'Any state. Not while an attempt is in flight: 409 invalid_transition.',
    params: idParams,
    responses: { 200: { description: 'The delivery, queued', body: one('delivery', deliveryBody) }, ...errors(400, 404, 409) },
  };
  app.post('/deliveries/:id/redeliver', { schema: redeliver }, async (request) => ({ success: true, delivery: await deliveries.redeliver(request.params.id) }));

  const test = {
    summary: 'Send a webhook.test event to the webhook URL',
    description: 'Without a webhook_url setting: 400 naming webhook_url.',
    responses: {
      201: {
        description: 'The event and its delivery',
        body: z.strictObject({
          success: z.literal(true),
          event: z.strictObject({ id: z.string(), event: z.literal('webhook.test'), ts: z.number().int().meta({ description: 'Unix seconds' }) }),
          delivery: deliveryBody,
        }),
      },
      ...errors(400),
    },
  };
  app.post('/webhooks/test', { schema: test }, async (_request, reply) => {
    const { event, delivery } = await deliveries.sendTestEvent();
    reply.code(201);
    return { success: true, event: { id: event.id, event: event.event, ts: event.ts }, delivery };
  });

  const adapters = { summary: 'The adapters and whether each is enabled', responses: { 200: { description: 'Every adapter', body: itemsOf(adapterBody) } } };
  app.get('/adapters', { schema: adapters }, async () => ({ success: true, items: deliveries.adapterList() }));

  // The catalogue, for the delivery log's event filter.
  const eventTypes = { summary: 'The event catalogue (for the delivery log filter)', responses: { 200: { description: 'Every event type', body: itemsOf(eventTypeBody) } } };
  app.get('/event-types', { schema: eventTypes }, async () => ({
    success: true,
    items: EVENT_TYPES.map((type) => ({ type, description: EVENTS[type].description })),
  }));
}
