import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { toIso } from '../clock.js';
import type { AppContext } from '../context.js';
import { listQuerySchema } from '../http/list-query.js';
import { parseBody } from '../validation.js';

const listQuery = listQuerySchema.extend({
  status: z.enum(['pending', 'delivered', 'failed']).optional(),
  event: z.string().min(1).max(100).optional(),
  target: z.string().min(1).max(100).optional(),
});

const idParams = z.object({ id: z.string().min(1).max(100) });

/** Delivery log, redelivery, test event and adapter list for the admin area. Mounted under /admin/api only. */
export function deliveryAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { deliveries } = ctx.services;

  app.get('/deliveries', async (request) => {
    const q = parseBody(listQuery, request.query);
    return { success: true, ...(await deliveries.list(q)) };
  });

  // How the queue stands across all instances: the admin page's summary line.
  app.get('/deliveries/stats', async () => {
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

  app.get('/deliveries/:id', async (request) => {
    const { id } = parseBody(idParams, request.params);
    return { success: true, delivery: await deliveries.get(id) };
  });

  app.post('/deliveries/:id/redeliver', async (request) => {
    const { id } = parseBody(idParams, request.params);
    return { success: true, delivery: await deliveries.redeliver(id) };
  });

  app.post('/webhooks/test', async (_request, reply) => {
    const { event, delivery } = await deliveries.sendTestEvent();
    reply.code(201);
    return { success: true, event: { id: event.id, event: event.event, ts: event.ts }, delivery };
  });

  app.get('/adapters', async () => ({ success: true, items: deliveries.adapterList() }));
}
