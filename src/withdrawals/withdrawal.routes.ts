import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { decodeCursor, pageQuerySchema } from '../http/pagination.js';
import { moneyCentsField, refCodeField } from '../http/schemas.js';
import { parseBody } from '../validation.js';
import { type WithdrawalAction, withdrawalView } from './withdrawal.service.js';

export const requestWithdrawalSchema = z.object({ ref_code: refCodeField, amount: moneyCentsField });

export const listWithdrawalsSchema = pageQuerySchema.extend({
  status: z.enum(['requested', 'paid', 'rejected']).optional(),
  ref_code: refCodeField.optional(),
});

const ACTIONS: readonly WithdrawalAction[] = ['mark-paid', 'reject'];

/** CONTRACT §6 withdrawals. Mounted under /api and /admin/api. */
export function withdrawalRoutes(app: FastifyInstance, ctx: AppContext): void {
  const withdrawals = ctx.services.withdrawals;

  app.post('/withdrawals', async (request, reply) => {
    const body = parseBody(requestWithdrawalSchema, request.body);
    const withdrawal = await withdrawals.request(body.ref_code, body.amount);
    return reply.code(201).send({ success: true, withdrawal: withdrawalView(withdrawal) });
  });

  app.get('/withdrawals', async (request) => {
    const query = parseBody(listWithdrawalsSchema, request.query);
    const page = await withdrawals.list({ status: query.status, refCode: query.ref_code, after: decodeCursor(query.cursor), limit: query.limit });
    return { success: true, ...page };
  });

  app.get<{ Params: { id: string } }>('/withdrawals/:id', async (request) => ({
    success: true,
    withdrawal: withdrawalView(await withdrawals.get(request.params.id)),
  }));

  for (const action of ACTIONS) {
    app.post<{ Params: { id: string } }>(`/withdrawals/:id/${action}`, async (request) => ({
      success: true,
      withdrawal: withdrawalView(await withdrawals.act(request.params.id, action)),
    }));
  }
}
