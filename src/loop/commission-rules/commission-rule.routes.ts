import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { createRuleSchema, listRulesSchema, ruleBody, ruleView, updateRuleSchema } from './commission-rule.schemas.js';

const ok = z.strictObject({ success: z.literal(true) });
const tags = ['commission-rules'];
const idParams = z.object({ id: pathSegment });

/** Commission rules (docs/ledger.md#commission-rules): list, create, change, delete. Mounted under /api and /admin/api. */
export function commissionRuleRoutes(app: RouteApp, ctx: AppContext): void {
  const rules = ctx.services.commissionRules;

  const list = {
    tags,
    summary: 'List commission rules, newest first',
    querystring: listRulesSchema,
    responses: { 200: { description: 'A page', body: pageOf(ruleBody) }, ...errors(400) },
  };
  app.get('/commission-rules', { schema: list }, async (request) => {
    const { ref_code, cursor, limit } = request.query;
    const cur = await rules.currency();
    return { success: true, ...mapPage(await rules.list({ refCode: ref_code, cursor, limit }), (r) => ruleView(r, cur)) };
  });

  const create = {
    tags,
    summary: 'Create a commission rule',
    description:
      'A paid order uses the first rule that matches, in this order: the affiliate and the product, the product, the affiliate; else the affiliate\'s commission_rate, else the global rate. Exactly one of rate and flat; a rule names an affiliate, a product or both (400 otherwise); an unknown ref_code is 404 affiliate_not_found.',
    body: createRuleSchema,
    responses: { 201: { description: 'Created', body: one('rule', ruleBody) }, ...errors(400, 404) },
  };
  app.post('/commission-rules', { schema: create }, async (request, reply) => {
    const rule = await rules.create(request.body);
    return reply.code(201).send({ success: true, rule: ruleView(rule, await rules.currency()) });
  });

  const update = {
    tags,
    summary: 'Change a commission rule',
    description: 'Only the fields sent change; a rate sent alone replaces a flat amount and vice versa.',
    params: idParams,
    body: updateRuleSchema,
    responses: { 200: { description: 'The rule after the change', body: one('rule', ruleBody) }, ...errors(400, 404) },
  };
  app.patch('/commission-rules/:id', { schema: update }, async (request) => ({
    success: true,
    rule: ruleView(await rules.update(request.params.id, request.body), await rules.currency()),
  }));

  const remove = {
    tags,
    summary: 'Delete a commission rule',
    description: 'Commissions already booked keep their rule_id.',
    params: idParams,
    responses: { 200: { description: 'Deleted', body: ok }, ...errors(404) },
  };
  app.delete('/commission-rules/:id', { schema: remove }, async (request) => {
    await rules.delete(request.params.id);
    return { success: true };
  });
}
