import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import type { AppContext } from '../context.js';
import { sendError } from './error-handler.js';

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
