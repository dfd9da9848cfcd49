import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { commissionView } from '../commissions/commission.service.js';
import type { AppContext } from '../context.js';
import { decodeCursor, pageQuerySchema } from '../http/pagination.js';
import { emailField, moneyCentsField } from '../http/schemas.js';
import { parseBody } from '../validation.js';
import { orderView } from './order.service.js';

export const orderIdField = z.string().min(1, 'must not be empty').max(128, 'must be at most 128 characters');

export const createOrderSchema = z.object({
  order_id: orderIdField,
  email: emailField,
  amount: moneyCentsField,
  product: z.string().trim().min(1, 'must not be empty').max(500, 'must be at most 500 characters'),
});

export const payOrderSchema = z.object({ order_id: orderIdField });

export const listOrdersSchema = pageQuerySchema.extend({
  status: z.enum(['created', 'paid']).optional(),
  email: z.string().trim().toLowerCase().max(320).optional(),
  q: z.string().trim().max(320).optional(),
});

/** CONTRACT §5 orders: create, pay, and the reads the admin UI needs. Mounted under /api and /admin/api. */
export function orderRoutes(app: FastifyInstance, ctx: AppContext): void {
  const orders = ctx.services.orders;

  app.post('/orders', async (request, reply) => {
    const body = parseBody(createOrderSchema, request.body);
    const { order, created } = await orders.create({
      orderId: body.order_id,
      email: body.email,
      amountCents: body.amount,
      product: body.product,
    });
    return reply.code(created ? 201 : 200).send({ success: true, order: orderView(order) });
  });

  app.post('/orders/pay', async (request) => {
    const body = parseBody(payOrderSchema, request.body);
    const { order, commission } = await orders.pay(body.order_id);
    return { success: true, order: orderView(order), commission: commission ? commissionView(commission) : null };
  });

  app.get('/orders', async (request) => {
    const query = parseBody(listOrdersSchema, request.query);
    const page = await orders.list({
      status: query.status,
      email: query.email || undefined,
      q: query.q || undefined,
      after: decodeCursor(query.cursor),
      limit: query.limit,
    });
    return { success: true, ...page };
  });

  app.get<{ Params: { order_id: string } }>('/orders/:order_id', async (request) => {
    // `commission` beside the order (not part of CONTRACT §5's order) saves the admin UI a second call.
    const { order, commission } = await orders.getWithCommission(request.params.order_id);
    return { success: true, order: orderView(order), commission: commission ? commissionView(commission) : null };
  });
}
