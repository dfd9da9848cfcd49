import type { FastifyInstance } from 'fastify';
import { safeEqual } from '../auth/secrets.js';
import type { AppContext } from '../context.js';
import { UnauthorizedError } from '../errors.js';

/** `GET /metrics` in the Prometheus text format, behind `Authorization: Bearer <SVC_METRICS_TOKEN>`. */
export function metricsRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { metrics } = ctx;
  const token = ctx.config.metricsToken;
  if (!metrics || !token) return;
  app.get('/metrics', { helmet: false }, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !safeEqual(match[1], token)) throw new UnauthorizedError('Send Authorization: Bearer <SVC_METRICS_TOKEN>');
    const body = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
  });
}
