import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { PAYOUT_METHODS } from './payout-details.js';
import { batchBody, owedBody } from './payout.schemas.js';

const batchParams = z.object({ id: pathSegment });
const fileQuery = z.object({
  part: z.coerce
    .number()
    .int('must be a whole number')
    .min(1)
    .optional()
    .meta({ description: 'Part N of the batch’s `file_parts` (PayPal 5,000 rows, Wise 1,000 per part); without it, the whole file' }),
});
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
      'paypal: PayPal Payouts bulk CSV (no header; recipient email, amount, currency, reference = withdrawal id, note). wise: Wise batch payment CSV (name, recipientEmail, paymentReference = withdrawal id, receiverType, amountCurrency, amount, sourceCurrency, targetCurrency). sepa: ISO 20022 pain.001.001.03 (NbOfTxs, CtrlSum, the debtor from the sepa_debtor_* settings, one CdtTrfTxInf per withdrawal with EndToEndId = withdrawal id); without sepa_debtor_name and sepa_debtor_iban 422 sepa_debtor_missing. other: 422 nothing_to_pay (no file). Streamed. A provider that takes fewer rows per upload than the batch has (PayPal 5,000, Wise 1,000) gets it in `file_parts` parts: `?part=N`, each a complete file; a part past the last is 404.',
    params: batchParams,
    querystring: fileQuery,
    responses: {
      200: { description: 'text/csv or application/xml, as a download', mediaType: 'application/octet-stream' },
      ...errors(400, 404, 422),
    },
  };
  app.get('/payout-batches/:id/file', { schema: file }, async (request, reply) => {
    const f = await payouts.file(request.params.id, request.query.part);
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
