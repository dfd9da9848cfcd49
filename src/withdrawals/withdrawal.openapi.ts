import { z } from 'zod';
import { type ApiOperation, errors, isoTime, money, one, pageOf, transitionOperations } from '../http/openapi.js';
import { listWithdrawalsSchema, requestWithdrawalSchema } from './withdrawal.routes.js';

export const withdrawalBody = z.strictObject({
  id: z.string(),
  ref_code: z.string(),
  amount: money,
  status: z.enum(['requested', 'paid', 'rejected']),
  created_at: isoTime,
});

const params = z.object({ id: z.string() });

/** CONTRACT §6. */
export const withdrawalOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/api/withdrawals',
    tag: 'withdrawals',
    summary: 'Request a withdrawal of paid commission',
    description: 'Never more than the balance (paid commissions minus requested and paid withdrawals), however many requests race.',
    auth: 'apiKey',
    body: requestWithdrawalSchema,
    responses: { 201: { description: 'Requested', body: one('withdrawal', withdrawalBody) }, ...errors(400, 401, 404, 422) },
  },
  {
    method: 'get',
    path: '/api/withdrawals',
    tag: 'withdrawals',
    summary: 'List withdrawals, newest first',
    auth: 'apiKey',
    query: listWithdrawalsSchema,
    responses: { 200: { description: 'A page', body: pageOf(withdrawalBody) }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/api/withdrawals/{id}',
    tag: 'withdrawals',
    summary: 'Read a withdrawal',
    auth: 'apiKey',
    params,
    responses: { 200: { description: 'The withdrawal', body: one('withdrawal', withdrawalBody) }, ...errors(401, 404) },
  },
  ...transitionOperations('/api/withdrawals', 'withdrawals', 'withdrawal', withdrawalBody, [
    { action: 'mark-paid', summary: 'Mark a requested withdrawal paid' },
    { action: 'reject', summary: 'Reject a requested withdrawal (its amount returns to the balance)' },
  ]),
];
