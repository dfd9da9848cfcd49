import { z } from 'zod';
import { commissionBody } from '../commissions/commission.openapi.js';
import { type ApiOperation, errors, isoTime, money, one, pageOf } from '../http/openapi.js';
import { createOrderSchema, listOrdersSchema, orderIdField, payOrderSchema } from './order.routes.js';

export const orderBody = z.strictObject({
  order_id: z.string(),
  email: z.string(),
  amount: money,
  product: z.string(),
  status: z.enum(['created', 'paid']),
  created_at: isoTime,
  paid_at: isoTime.optional(),
});

const orderWithCommission = z.strictObject({ success: z.literal(true), order: orderBody, commission: commissionBody.nullable() });

/** CONTRACT §5 orders. */
export const orderOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/api/orders',
    tag: 'orders',
    summary: 'Create an order',
    description: 'The same order_id with the same fields again answers 200 with the stored order; with other fields, 409 order_exists.',
    auth: 'apiKey',
    body: createOrderSchema,
    responses: {
      201: { description: 'Created', body: one('order', orderBody) },
      200: { description: 'Already there with the same fields', body: one('order', orderBody) },
      ...errors(400, 401, 409),
    },
  },
  {
    method: 'post',
    path: '/api/orders/pay',
    tag: 'orders',
    summary: 'Pay an order',
    description:
      'Idempotent: the first call marks the order paid and, when its email belongs to a mailbox bound to an active affiliate, books a pending commission; later calls answer the same. Emits order.paid once.',
    auth: 'apiKey',
    body: payOrderSchema,
    responses: {
      200: {
        description: 'Paid (now or before)',
        body: orderWithCommission,
      },
      ...errors(400, 401, 404),
    },
  },
  {
    method: 'get',
    path: '/api/orders',
    tag: 'orders',
    summary: 'List orders, newest first',
    auth: 'apiKey',
    query: listOrdersSchema,
    responses: { 200: { description: 'A page', body: pageOf(orderBody) }, ...errors(400, 401) },
  },
  {
    method: 'get',
    path: '/api/orders/{order_id}',
    tag: 'orders',
    summary: 'Read an order',
    auth: 'apiKey',
    params: z.object({ order_id: orderIdField }),
    responses: { 200: { description: 'The order and its commission, if any', body: orderWithCommission }, ...errors(401, 404) },
  },
];
