import { safeEqual } from '../auth/secrets.js';
import type { AppContext } from '../../context.js';
import { UnauthorizedError } from '../errors.js';
import { errors } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';

/** `GET /metrics` in the Prometheus text format, behind `Authorization: Bearer <SVC_METRICS_TOKEN>`. */
export function metricsRoutes(app: RouteApp, ctx: AppContext): void {
  const { metrics } = ctx;
  const token = ctx.config.metricsToken;
  if (!metrics || !token) return;
  const schema = {
    tags: ['meta'],
    summary: 'Prometheus metrics (only when SVC_METRICS_TOKEN is set)',
    description: 'The Prometheus text format, with `Authorization: Bearer <SVC_METRICS_TOKEN>`. Without the setting the route does not exist.',
    auth: 'metricsToken' as const,
    responses: { 200: { description: 'The metrics', mediaType: 'text/plain' }, ...errors(401) },
  };
  app.get('/metrics', { helmet: false, schema }, async (request, reply) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? '');
    if (!match?.[1] || !safeEqual(match[1], token)) throw new UnauthorizedError('Send Authorization: Bearer <SVC_METRICS_TOKEN>');
    const body = await metrics.registry.metrics();
    return reply.header('cache-control', 'no-store').type(metrics.registry.contentType).send(body);
  });
}
