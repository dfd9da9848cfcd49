import { z } from 'zod';
import { listQuerySchema } from '../http/list-query.js';
import { type ApiOperation, errors, isoTime, one, pageOf } from '../http/openapi.js';
import { createAffiliateSchema, refCodeSchema } from './affiliate.service.js';

export const affiliateBody = z.strictObject({
  ref_code: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  status: z.enum(['active', 'disabled']),
  commission_rate: z.number().nullable().meta({ description: 'Percent; null means the commission_rate setting applies' }),
  created_at: isoTime,
});

const params = z.object({ ref_code: refCodeSchema });

/** CONTRACT §3. */
export const affiliateOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/api/affiliates',
    tag: 'affiliates',
    summary: 'Create an affiliate',
    auth: 'apiKey',
    body: createAffiliateSchema,
    responses: { 201: { description: 'Created', body: one('affiliate', affiliateBody) }, ...errors(400, 401, 409) },
  },
  {
    method: 'get',
    path: '/api/affiliates',
    tag: 'affiliates',
    summary: 'List affiliates, newest first',
    auth: 'apiKey',
    query: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(affiliateBody) }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/api/affiliates/{ref_code}',
    tag: 'affiliates',
    summary: 'Read an affiliate',
    auth: 'apiKey',
    params,
    responses: { 200: { description: 'The affiliate', body: one('affiliate', affiliateBody) }, ...errors(401, 404) },
  },
];
