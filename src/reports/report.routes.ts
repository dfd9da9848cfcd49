import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { parseBody } from '../validation.js';
import { reportQuerySchema } from './report.service.js';

/** CONTRACT §7 summary, and the per-day series the admin dashboard charts. */
export function reportApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { reports } = ctx.services;

  app.get('/affiliate/summary', async (request) => {
    const query = parseBody(reportQuerySchema, request.query);
    return { success: true, ...(await reports.summary(query)) };
  });

  app.get('/reports/daily', async (request) => {
    const query = parseBody(reportQuerySchema, request.query);
    return { success: true, items: await reports.daily(query) };
  });
}
