import { sql } from 'kysely';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { sendError } from './error-handler.js';
import { errorBody } from './openapi.js';
import type { RouteApp } from './route-schema.js';

export function healthRoutes(app: RouteApp, ctx: AppContext): void {
  const liveness = {
    tags: ['health'],
    summary: 'Liveness: the process answers',
    responses: { 200: { description: 'Alive', body: z.strictObject({ success: z.literal(true), status: z.literal('ok') }) } },
  };
  app.get('/healthz', { schema: liveness }, async () => ({ success: true, status: 'ok' }));

  const readiness = {
    tags: ['health'],
    summary: 'Readiness: the database answers',
    responses: {
      200: { description: 'Ready', body: z.strictObject({ success: z.literal(true), status: z.literal('ready'), database: z.enum(['sqlite', 'postgres']) }) },
      503: { description: 'not_ready: the database does not answer', body: errorBody },
    },
  };
  app.get('/readyz', { schema: readiness }, async (request, reply) => {
    try {
      await sql`select 1`.execute(ctx.db);
      return { success: true, status: 'ready', database: ctx.dialect };
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed');
      return sendError(reply, 503, 'not_ready', 'Database unreachable');
    }
  });
}
