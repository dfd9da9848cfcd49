import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { mapPage } from '../../platform/db/keyset.js';
import { errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { caseBody, caseView, listCasesSchema, resolveCaseSchema } from './fraud.schemas.js';

const tags = ['fraud'];

/** Fraud review (docs/api.md#fraud-review): the cases, and their release or rejection. Mounted under /api and /admin/api. */
export function fraudRoutes(app: RouteApp, ctx: AppContext): void {
  const { fraud, settings } = ctx.services;

  const list = {
    tags,
    summary: 'List fraud cases, newest first',
    description: 'Filters: status (open, released, rejected), signal, ref_code. Evidence never shows a raw IP address.',
    querystring: listCasesSchema,
    responses: { 200: { description: 'A page', body: pageOf(caseBody) }, ...errors(400) },
  };
  app.get('/fraud/cases', { schema: list }, async (request) => {
    const q = request.query;
    const page = await fraud.list({ status: q.status, signal: q.signal, refCode: q.ref_code, cursor: q.cursor, limit: q.limit });
    const cur = await settings.currency();
    return { success: true, ...mapPage(page, (c) => caseView(c.row, c.held, cur)) };
  });

  const count = {
    tags,
    summary: 'How many fraud cases are open (the Review page\'s count in the navigation)',
    responses: { 200: { description: 'The count', body: z.strictObject({ success: z.literal(true), open: z.number().int() }) } },
  };
  app.get('/fraud/open-count', { schema: count }, async () => ({ success: true as const, open: await fraud.openCount() }));

  const read = {
    tags,
    summary: 'Read a fraud case',
    params: z.object({ id: pathSegment }),
    responses: { 200: { description: 'The case', body: one('case', caseBody) }, ...errors(404) },
  };
  app.get('/fraud/cases/:id', { schema: read }, async (request) => {
    const c = await fraud.get(request.params.id);
    return { success: true, case: caseView(c.row, c.held, await settings.currency()) };
  });

  const resolutions = [
    {
      action: 'release',
      summary: 'Release a case: its held commissions continue as if never held',
      description: 'Held commissions stay pending and are approved at once when their holding period is over. Released already: 200 unchanged; rejected: 409 invalid_transition.',
      run: (id: string, note: string | undefined) => fraud.release(id, note),
    },
    {
      action: 'reject',
      summary: 'Reject a case: its held commissions are voided',
      description: 'Held commissions become void with void_reason "fraud" (counters and balance as any void). Rejected already: 200 unchanged; released: 409 invalid_transition.',
      run: (id: string, note: string | undefined) => fraud.reject(id, note),
    },
  ] as const;
  for (const r of resolutions) {
    const schema = {
      tags,
      summary: r.summary,
      description: r.description,
      params: z.object({ id: pathSegment }),
      body: resolveCaseSchema,
      responses: { 200: { description: 'The case after the change', body: one('case', caseBody) }, ...errors(400, 404, 409) },
    };
    app.post(`/fraud/cases/:id/${r.action}`, { schema }, async (request) => {
      const c = await r.run(request.params.id, request.body?.note || undefined);
      return { success: true, case: caseView(c.row, c.held, await settings.currency()) };
    });
  }
}
