import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { errors, one, pageOf, pathSegment, transitionSchema } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { commissionBody, commissionView, listCommissionsSchema } from './commission.schemas.js';
import type { CommissionAction } from './commission.service.js';

const ACTIONS: readonly { action: CommissionAction; summary: string }[] = [
  { action: 'approve', summary: 'Approve a pending commission' },
  { action: 'mark-paid', summary: 'Mark an approved commission paid (it becomes withdrawable)' },
  { action: 'void', summary: 'Void a pending or approved commission' },
];

const tags = ['commissions'];

/** Commissions (docs/ledger.md#commission-states): list, read, and the state machine's actions. Mounted under /api and /admin/api. */
export function commissionRoutes(app: RouteApp, ctx: AppContext): void {
  const commissions = ctx.services.commissions;

  const list = {
    tags,
    summary: 'List commissions, newest first',
    querystring: listCommissionsSchema,
    responses: { 200: { description: 'A page', body: pageOf(commissionBody) }, ...errors(400) },
  };
  app.get('/commissions', { schema: list }, async (request) => {
    const query = request.query;
    const page = await commissions.list({ status: query.status, refCode: query.ref_code, kind: query.kind, cursor: query.cursor, limit: query.limit });
    const cur = await commissions.currency();
    return { success: true, ...mapPage(page, (c) => commissionView(c, cur)) };
  });

  const read = {
    tags,
    summary: 'Read a commission',
    params: z.object({ id: pathSegment }),
    responses: { 200: { description: 'The commission', body: one('commission', commissionBody) }, ...errors(404) },
  };
  app.get('/commissions/:id', { schema: read }, async (request) => ({
    success: true,
    commission: commissionView(await commissions.get(request.params.id), await commissions.currency()),
  }));

  for (const { action, summary } of ACTIONS) {
    app.post(`/commissions/:id/${action}`, { schema: transitionSchema('commissions', 'commission', commissionBody, summary) }, async (request) => ({
      success: true,
      commission: commissionView(await commissions.act(request.params.id, action), await commissions.currency()),
    }));
  }
}
