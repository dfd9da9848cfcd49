import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../context.js';
import { decodeCursor, pageQuerySchema } from '../http/pagination.js';
import { refCodeField } from '../http/schemas.js';
import { parseBody } from '../validation.js';
import { type CommissionAction, commissionView } from './commission.service.js';

export const listCommissionsSchema = pageQuerySchema.extend({
  status: z.enum(['pending', 'approved', 'paid', 'void']).optional(),
  ref_code: refCodeField.optional(),
});

const ACTIONS: readonly CommissionAction[] = ['approve', 'mark-paid', 'void'];

/** CONTRACT §5 commissions: list, read, and the state machine's actions. Mounted under /api and /admin/api. */
export function commissionRoutes(app: FastifyInstance, ctx: AppContext): void {
  const commissions = ctx.services.commissions;

  app.get('/commissions', async (request) => {
    const query = parseBody(listCommissionsSchema, request.query);
    const page = await commissions.list({ status: query.status, refCode: query.ref_code, after: decodeCursor(query.cursor), limit: query.limit });
    return { success: true, ...page };
  });

  app.get<{ Params: { id: string } }>('/commissions/:id', async (request) => ({
    success: true,
    commission: commissionView(await commissions.get(request.params.id)),
  }));

  for (const action of ACTIONS) {
    app.post<{ Params: { id: string } }>(`/commissions/:id/${action}`, async (request) => ({
      success: true,
      commission: commissionView(await commissions.act(request.params.id, action)),
    }));
  }
}
