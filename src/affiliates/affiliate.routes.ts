import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.js';
import { listQuerySchema } from '../http/list-query.js';
import { parseBody } from '../validation.js';
import { affiliateJson, createAffiliateSchema, updateAffiliateSchema } from './affiliate.service.js';

interface RefParams {
  ref_code: string;
}

/** CONTRACT §3 under /api (and /admin/api). */
export function affiliateApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { affiliates } = ctx.services;

  app.post('/affiliates', async (request, reply) => {
    const input = parseBody(createAffiliateSchema, request.body);
    const created = await affiliates.create(input);
    return reply.code(201).send({ success: true, affiliate: affiliateJson(created) });
  });

  app.get('/affiliates', async (request) => {
    const query = parseBody(listQuerySchema, request.query);
    const page = await affiliates.list(query);
    return { success: true, items: page.items.map(affiliateJson), next_cursor: page.nextCursor };
  });

  app.get<{ Params: RefParams }>('/affiliates/:ref_code', async (request) => ({
    success: true,
    affiliate: affiliateJson(await affiliates.get(request.params.ref_code)),
  }));
}

/** Admin-only changes (status, name, email, rate): disabling stops the link attributing. */
export function affiliateAdminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { affiliates } = ctx.services;

  app.patch<{ Params: RefParams }>('/affiliates/:ref_code', async (request) => {
    const input = parseBody(updateAffiliateSchema, request.body);
    return { success: true, affiliate: affiliateJson(await affiliates.update(request.params.ref_code, input)) };
  });
}
