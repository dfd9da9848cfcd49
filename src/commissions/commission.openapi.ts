import { z } from 'zod';
import { type ApiOperation, errors, isoTime, money, one, pageOf, transitionOperations } from '../http/openapi.js';
import { listCommissionsSchema } from './commission.routes.js';

export const commissionBody = z.strictObject({
  id: z.string(),
  order_id: z.string(),
  ref_code: z.string(),
  amount: money.meta({ description: 'The order amount' }),
  rate: z.number().meta({ description: 'Percent applied' }),
  commission: money,
  status: z.enum(['pending', 'approved', 'paid', 'void']),
  created_at: isoTime,
});

const params = z.object({ id: z.string() });

const transitions: readonly { action: string; summary: string }[] = [
  { action: 'approve', summary: 'Approve a pending commission' },
  { action: 'mark-paid', summary: 'Mark an approved commission paid (it becomes withdrawable)' },
  { action: 'void', summary: 'Void a pending or approved commission' },
];

/** CONTRACT §5 commissions and their state machine. */
export const commissionOperations: readonly ApiOperation[] = [
  {
    method: 'get',
    path: '/api/commissions',
    tag: 'commissions',
    summary: 'List commissions, newest first',
    auth: 'apiKey',
    query: listCommissionsSchema,
    responses: { 200: { description: 'A page', body: pageOf(commissionBody) }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/api/commissions/{id}',
    tag: 'commissions',
    summary: 'Read a commission',
    auth: 'apiKey',
    params,
    responses: { 200: { description: 'The commission', body: one('commission', commissionBody) }, ...errors(401, 404) },
  },
  ...transitionOperations('/api/commissions', 'commissions', 'commission', commissionBody, transitions),
];
