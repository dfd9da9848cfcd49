import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { affiliateBody, affiliateJson, createAffiliateSchema, updateAffiliateSchema } from './affiliate.schemas.js';

const refParams = z.object({ ref_code: pathSegment.meta({ description: 'A ref code; an unknown (or malformed) one is 404 affiliate_not_found' }) });

const tags = ['affiliates'];

/** docs/api.md#affiliates under /api (and /admin/api). */
export function affiliateApiRoutes(app: RouteApp, ctx: AppContext): void {
  const { affiliates } = ctx.services;

  const create = {
    tags,
    summary: 'Create an affiliate',
    body: createAffiliateSchema,
    responses: { 201: { description: 'Created', body: one('affiliate', affiliateBody) }, ...errors(400, 409) },
  };
  app.post('/affiliates', { schema: create }, async (request, reply) => {
    const created = await affiliates.create(request.body);
    return reply.code(201).send({ success: true, affiliate: affiliateJson(created) });
  });

  const list = {
    tags,
    summary: 'List affiliates, newest first',
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(affiliateBody) }, ...errors(400) },
  };
  app.get('/affiliates', { schema: list }, async (request) => {
    return { success: true, ...mapPage(await affiliates.list(request.query), affiliateJson) };
  });

  const read = {
    tags,
    summary: 'Read an affiliate',
    params: refParams,
    responses: { 200: { description: 'The affiliate', body: one('affiliate', affiliateBody) }, ...errors(404) },
  };
  app.get('/affiliates/:ref_code', { schema: read }, async (request) => ({
    success: true,
    affiliate: affiliateJson(await affiliates.get(request.params.ref_code)),
  }));
}

/** Admin-only changes (status, name, email, rate): disabling stops the link attributing. */
export function affiliateAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const { affiliates } = ctx.services;

  const update = {
    summary: "Change an affiliate's status, name, email or rate",
    description: 'A disabled affiliate\'s link stops attributing; its earned balance stays withdrawable. commission_rate null returns it to the global rate.',
    params: refParams,
    body: updateAffiliateSchema,
    responses: { 200: { description: 'The affiliate after the change', body: one('affiliate', affiliateBody) }, ...errors(400, 404) },
  };
  app.patch('/affiliates/:ref_code', { schema: update }, async (request) => ({
    success: true,
    affiliate: affiliateJson(await affiliates.update(request.params.ref_code, request.body)),
  }));
}
