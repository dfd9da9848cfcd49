import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, isoTime, money, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { PAYOUT_METHODS } from './payout-details.js';

export const batchBody = z.strictObject({
  id: z.string(),
  method: z.enum(PAYOUT_METHODS),
  status: z.enum(['open', 'paid']),
  currency: z.string(),
  total: money,
  count: z.number().int(),
  withdrawal_ids: z.array(z.string()),
  created_at: isoTime,
  paid_at: isoTime.nullable(),
});

const owedBody = z.strictObject({
  success: z.literal(true),
  owed: z.array(z.strictObject({ method: z.string(), currency: z.string(), count: z.number().int(), total: money })),
});

const batchParams = z.object({ id: pathSegment });
const tags = ['payouts'];

/** docs/api.md#payouts payout batches and what is owed. Mounted under /api and /admin/api. */
export function payoutRoutes(app: RouteApp, ctx: AppContext): void {
  const payouts = ctx.services.payouts;

  const owed = {
    tags,
    summary: 'What is owed: requested withdrawals in no batch, per payout method',
    responses: { 200: { description: 'Per method', body: owedBody } },
  };
  app.get('/payouts/owed', { schema: owed }, async () => ({ success: true, owed: await payouts.owed() }));

  const create = {
    tags,
    summary: 'Gather the requested withdrawals of one payout method into a batch',
    description:
      'Every requested withdrawal paid by that method and in no batch yet; a withdrawal is in at most one batch, however many batches and withdrawals race. Nothing to gather: 422 nothing_to_pay; sepa needs the program currency EUR (422 currency_mismatch).',
    body: z.strictObject({ method: z.enum(PAYOUT_METHODS) }),
    responses: { 201: { description: 'The batch', body: one('batch', batchBody) }, ...errors(400, 422) },
  };
  app.post('/payout-batches', { schema: create }, async (request, reply) => {
    const batch = await payouts.createBatch(request.body.method);
    return reply.code(201).send({ success: true, batch: await payouts.batchView(batch) });
  });

  const list = {
    tags,
    summary: 'List payout batches, newest first',
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(batchBody) }, ...errors(400) },
  };
  app.get('/payout-batches', { schema: list }, async (request) => {
    const page = await payouts.listBatches(request.query.cursor, request.query.limit);
    return { success: true, items: await Promise.all(page.items.map((b) => payouts.batchView(b))), next_cursor: page.next_cursor };
  });

  const read = {
    tags,
    summary: 'Read a payout batch',
    params: batchParams,
    responses: { 200: { description: 'The batch', body: one('batch', batchBody) }, ...errors(404) },
  };
  app.get('/payout-batches/:id', { schema: read }, async (request) => ({ success: true, batch: await payouts.batchView(await payouts.getBatch(request.params.id)) }));

  const file = {
    tags,
    summary: "Download a batch's payout file",
    description:
      'paypal: PayPal Payouts bulk CSV (no header; recipient email, amount, currency, reference = withdrawal id, note). wise: Wise batch payment CSV (name, recipientEmail, paymentReference = withdrawal id, receiverType, amountCurrency, amount, sourceCurrency, targetCurrency). sepa: ISO 20022 pain.001.001.03 (NbOfTxs, CtrlSum, the debtor from the sepa_debtor_* settings, one CdtTrfTxInf per withdrawal with EndToEndId = withdrawal id); without sepa_debtor_name and sepa_debtor_iban 422 sepa_debtor_missing. other: 422 nothing_to_pay (no file). Streamed.',
    params: batchParams,
    responses: {
      200: { description: 'text/csv or application/xml, as a download', mediaType: 'application/octet-stream' },
      ...errors(404, 422),
    },
  };
  app.get('/payout-batches/:id/file', { schema: file }, async (request, reply) => {
    const f = await payouts.file(request.params.id);
    reply.type(f.type).header('content-disposition', `attachment; filename="${f.name}"`).header('cache-control', 'no-store');
    if (request.method === 'HEAD') return reply.send();
    return reply.send(Readable.from(f.chunks, { objectMode: false, highWaterMark: 64 * 1024 }));
  });

  const markPaid = {
    tags,
    summary: 'Mark a batch paid: every withdrawal in it becomes paid (one withdrawal.paid each), all or nothing',
    description: 'Already paid: 200 unchanged. A withdrawal of the batch that is no longer requested (rejected meanwhile) makes it 409 invalid_transition, and nothing changes.',
    params: batchParams,
    responses: { 200: { description: 'The batch', body: one('batch', batchBody) }, ...errors(404, 409) },
  };
  app.post('/payout-batches/:id/mark-paid', { schema: markPaid }, async (request) => ({ success: true, batch: await payouts.batchView(await payouts.markPaid(request.params.id)) }));
}
