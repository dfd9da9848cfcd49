import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { affiliateBody, affiliateJson, createAffiliateSchema, updateAffiliateSchema } from './affiliate.schemas.js';
import { ValidationError } from '../../platform/errors.js';
import { payoutDetailsField } from '../payouts/payout-details.js';

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
  app.get('/affiliates/:ref_code', { schema: read }, async (request) => {
    const a = affiliateJson(await affiliates.get(request.params.ref_code));
    return { success: true, affiliate: { ...a, payout_details: await ctx.services.payouts.details(a.ref_code) } };
  });

  const update = {
    tags,
    summary: "Change an affiliate's status, name, email, rate or payout details",
    description:
      "With an admin session any of the fields; with the API key only payout_details (docs/api.md#payouts; another field is 400). A disabled affiliate's link stops attributing; its earned balance stays withdrawable. commission_rate null returns it to the global rate. payout_details: paypal and wise need a valid email, sepa a valid IBAN of a SEPA country and account_holder (bic optional), other a note; null clears them; requested withdrawals keep the details they were requested with.",
    params: refParams,
    body: updateAffiliateSchema.extend({ payout_details: payoutDetailsField.nullable().optional() }),
    responses: { 200: { description: 'The affiliate after the change', body: one('affiliate', affiliateBody) }, ...errors(400, 404) },
  };
  app.patch('/affiliates/:ref_code', { schema: update }, async (request) => {
    const { payout_details, ...rest } = request.body;
    const adminOnly = Object.keys(rest);
    if (!request.url.startsWith('/admin/api/') && adminOnly.length > 0) {
      throw new ValidationError(adminOnly.map((field) => ({ field, message: 'only an admin can change it; the API key sets payout_details' })));
    }
    if (payout_details !== undefined) await ctx.services.payouts.setDetails(request.params.ref_code, payout_details);
    const a = affiliateJson(adminOnly.length > 0 ? await affiliates.update(request.params.ref_code, rest) : await affiliates.get(request.params.ref_code));
    return { success: true, affiliate: { ...a, payout_details: await ctx.services.payouts.details(a.ref_code) } };
  });
}
