import { z } from 'zod';
import { commissionBody, commissionView } from '../commissions/commission.schemas.js';
import type { AppContext } from '../../context.js';
import { errors, money, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { createOrderSchema, listOrdersSchema, orderBody, orderListItem, orderListItemView, orderView, payOrderSchema, refundOrderSchema } from './order.schemas.js';
import { PayoutRuleError } from '../../platform/errors.js';
import { fromMinor } from '../../platform/money.js';

const orderWithCommission = z.strictObject({ success: z.literal(true), order: orderBody, commission: commissionBody.nullable() });

const refundAnswer = z.strictObject({
  success: z.literal(true),
  order: orderBody,
  refund: z.strictObject({ amount: money }),
  commission: commissionBody.nullable().meta({ description: 'The order\'s commission after the refund' }),
  clawback: commissionBody.nullable().meta({ description: 'The negative paid commission booked when the commission was already paid' }),
});

const tags = ['orders'];

/** Orders (docs/api.md#orders-commissions-withdrawals): create, pay, and the reads the admin UI needs. Mounted under /api and /admin/api. */
export function orderRoutes(app: RouteApp, ctx: AppContext): void {
  const orders = ctx.services.orders;

  const create = {
    tags,
    summary: 'Create an order',
    description: 'The same order_id with the same fields again answers 200 with the stored order; with other fields, 409 order_exists.',
    body: createOrderSchema,
    responses: {
      201: { description: 'Created', body: one('order', orderBody) },
      200: { description: 'Already there with the same fields', body: one('order', orderBody) },
      ...errors(400, 409, 422),
    },
  };
  app.post('/orders', { schema: create }, async (request, reply) => {
    const { body } = request;
    const cur = await orders.currency();
    if (body.currency !== undefined && body.currency !== cur.code) {
      throw new PayoutRuleError('currency_mismatch', `The program's currency is ${cur.code}, not ${body.currency}`, { currency: cur.code });
    }
    const { order, created } = await orders.create({ orderId: body.order_id, email: body.email, amountCents: body.amount, product: body.product, refCode: body.ref_code || undefined });
    return reply.code(created ? 201 : 200).send({ success: true, order: orderView(order, cur) });
  });

  const pay = {
    tags,
    summary: 'Pay an order',
    description:
      'Idempotent: the first call marks the order paid and, when its email belongs to a mailbox bound to an active affiliate, books a pending commission; later calls answer the same. Emits order.paid once.',
    body: payOrderSchema,
    responses: { 200: { description: 'Paid (now or before)', body: orderWithCommission }, ...errors(400, 404) },
  };
  app.post('/orders/pay', { schema: pay }, async (request) => {
    const { order, commission } = await orders.pay(request.body.order_id);
    const cur = await orders.currency();
    return { success: true, order: orderView(order, cur), commission: commission ? commissionView(commission, cur) : null };
  });

  const refund = {
    tags,
    summary: 'Refund a paid order, fully or partly',
    description:
      'The sum of refunds never exceeds the order amount (422 refund_exceeds_amount, also when nothing is left); an order never paid is 409 invalid_transition. A pending or approved commission is reduced to the commission on what remains (voided with void_reason "refunded" when nothing remains); a paid one is clawed back with a negative paid commission (kind "clawback"). Emits order.refunded.',
    body: refundOrderSchema,
    responses: { 200: { description: 'Refunded', body: refundAnswer }, ...errors(400, 404, 409, 422) },
  };
  app.post('/orders/refund', { schema: refund }, async (request) => {
    const done = await orders.refund(request.body.order_id, request.body.amount);
    const cur = await orders.currency();
    return {
      success: true,
      order: orderView(done.order, cur),
      refund: { amount: fromMinor(done.refundCents, cur) },
      commission: done.commission ? commissionView(done.commission, cur) : null,
      clawback: done.clawback ? commissionView(done.clawback, cur) : null,
    };
  });

  const list = {
    tags,
    summary: 'List orders, newest first',
    description: 'Each item also names its affiliate (ref_code) and its commission ({id, commission, status}), or null.',
    querystring: listOrdersSchema,
    responses: { 200: { description: 'A page', body: pageOf(orderListItem) }, ...errors(400) },
  };
  app.get('/orders', { schema: list }, async (request) => {
    const query = request.query;
    const page = await orders.list({
      status: query.status,
      email: query.email || undefined,
      q: query.q || undefined,
      cursor: query.cursor,
      limit: query.limit,
    });
    const cur = await orders.currency();
    return { success: true, ...mapPage(page, (row) => orderListItemView(row, cur)) };
  });

  const read = {
    tags,
    summary: 'Read an order',
    params: z.object({ order_id: pathSegment.meta({ description: 'An order_id; an unknown one is 404 order_not_found' }) }),
    responses: { 200: { description: 'The order and its commission, if any', body: orderWithCommission }, ...errors(404) },
  };
  app.get('/orders/:order_id', { schema: read }, async (request) => {
    // `commission` beside the order (not part of the order resource) saves the admin UI a second call.
    const { order, commission } = await orders.getWithCommission(request.params.order_id);
    const cur = await orders.currency();
    return { success: true, order: orderView(order, cur), commission: commission ? commissionView(commission, cur) : null };
  });
}
