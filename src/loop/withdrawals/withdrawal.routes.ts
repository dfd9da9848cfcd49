import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { errors, one, pageOf, pathSegment, transitionSchema } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { listWithdrawalsSchema, requestWithdrawalSchema, withdrawalBody, withdrawalView } from './withdrawal.schemas.js';
import type { WithdrawalAction } from './withdrawal.service.js';

const ACTIONS: readonly { action: WithdrawalAction; summary: string }[] = [
  { action: 'mark-paid', summary: 'Mark a requested withdrawal paid' },
  { action: 'reject', summary: 'Reject a requested withdrawal (its amount returns to the balance)' },
];

const tags = ['withdrawals'];

/** Withdrawals (docs/ledger.md#balance-and-withdrawals). Mounted under /api and /admin/api. */
export function withdrawalRoutes(app: RouteApp, ctx: AppContext): void {
  const withdrawals = ctx.services.withdrawals;

  const request = {
    tags,
    summary: 'Request a withdrawal of paid commission',
    description: 'Never more than the balance (paid commissions minus requested and paid withdrawals), however many requests race.',
    body: requestWithdrawalSchema,
    responses: { 201: { description: 'Requested', body: one('withdrawal', withdrawalBody) }, ...errors(400, 404, 422) },
  };
  app.post('/withdrawals', { schema: request }, async (req, reply) => {
    const withdrawal = await withdrawals.request(req.body.ref_code, req.body.amount);
    return reply.code(201).send({ success: true, withdrawal: withdrawalView(withdrawal, await withdrawals.currency()) });
  });

  const list = {
    tags,
    summary: 'List withdrawals, newest first',
    querystring: listWithdrawalsSchema,
    responses: { 200: { description: 'A page', body: pageOf(withdrawalBody) }, ...errors(400) },
  };
  app.get('/withdrawals', { schema: list }, async (req) => {
    const query = req.query;
    const page = await withdrawals.list({ status: query.status, refCode: query.ref_code, cursor: query.cursor, limit: query.limit });
    const cur = await withdrawals.currency();
    return { success: true, ...mapPage(page, (w) => withdrawalView(w, cur)) };
  });

  const read = {
    tags,
    summary: 'Read a withdrawal',
    params: z.object({ id: pathSegment }),
    responses: { 200: { description: 'The withdrawal', body: one('withdrawal', withdrawalBody) }, ...errors(404) },
  };
  app.get('/withdrawals/:id', { schema: read }, async (req) => ({
    success: true,
    withdrawal: withdrawalView(await withdrawals.get(req.params.id), await withdrawals.currency()),
  }));

  for (const { action, summary } of ACTIONS) {
    app.post(`/withdrawals/:id/${action}`, { schema: transitionSchema('withdrawals', 'withdrawal', withdrawalBody, summary) }, async (req) => ({
      success: true,
      withdrawal: withdrawalView(await withdrawals.act(req.params.id, action), await withdrawals.currency()),
    }));
  }
}
