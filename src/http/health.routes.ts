import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { z } from 'zod';
import { sendError } from './error-handler.js';
import { type ApiOperation, errorBody } from './openapi.js';

export const healthOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/healthz',
    tag: 'health',
    summary: 'Liveness: the process answers',
    auth: 'none',
    responses: { 200: { description: 'Alive', body: z.strictObject({ success: z.literal(true), status: z.literal('ok') }) } },
  },
  {
    method: 'get',
    path: '/readyz',
    tag: 'health',
    summary: 'Readiness: the database answers',
    auth: 'none',
    responses: {
      200: { description: 'Ready', body: z.strictObject({ success: z.literal(true), status: z.literal('ready'), database: z.enum(['sqlite', 'postgres']) }) },
      503: { description: 'not_ready: the database does not answer', body: errorBody },
    },
  },
];

export function healthRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get('/healthz', async () => ({ success: true, status: 'ok' }));
  app.get('/readyz', async (request, reply) => {
    try {
      await sql`select 1`.execute(ctx.db);
      return { success: true, status: 'ready', database: ctx.dialect };
    } catch (err) {
      request.log.warn({ err }, 'readiness check failed');
      return sendError(reply, 503, 'not_ready', 'Database unreachable');
    }
  });
}
