import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, isoTime, money, one, pageOf, pathSegment, transitionSchema } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { refCodeField } from '../../platform/http/schemas.js';
import { type CommissionAction, commissionView } from './commission.service.js';

export const listCommissionsSchema = listQuerySchema.extend({
  status: z.enum(['pending', 'approved', 'paid', 'void']).optional(),
  ref_code: refCodeField.optional(),
  kind: z.enum(['sale', 'clawback']).optional(),
});

export const commissionBody = z.strictObject({
  id: z.string(),
  order_id: z.string(),
  ref_code: z.string(),
  amount: money.meta({ description: 'The order amount (for a clawback: the refunded amount it claws back on)' }),
  rate: z.number().meta({ description: 'Percent applied (0 when a flat rule decided it)' }),
  commission: money.meta({ description: 'Negative for a clawback' }),
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency (CONTRACT §18)' }),
  status: z.enum(['pending', 'approved', 'paid', 'void']),
  kind: z.enum(['sale', 'clawback']).meta({ description: 'clawback: booked by a refund of an order whose commission was paid' }),
  rule_id: z.string().nullable().meta({ description: 'The commission rule used; null for the plain rates' }),
  void_reason: z.enum(['refunded', 'disputed']).nullable().meta({ description: '"refunded" when a full refund voided it, "disputed" when a dispute did' }),
  created_at: isoTime,
});

const ACTIONS: readonly { action: CommissionAction; summary: string }[] = [
  { action: 'approve', summary: 'Approve a pending commission' },
  { action: 'mark-paid', summary: 'Mark an approved commission paid (it becomes withdrawable)' },
  { action: 'void', summary: 'Void a pending or approved commission' },
];

const tags = ['commissions'];

/** CONTRACT §5 commissions: list, read, and the state machine's actions. Mounted under /api and /admin/api. */
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
    return { success: true, ...page };
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
