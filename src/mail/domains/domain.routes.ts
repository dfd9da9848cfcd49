import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { AppContext } from '../../context.js';
import { errors, isoTime, one, pageOf } from '../../platform/http/openapi.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { normalizeDomain } from './domain-name.js';
import type { MailDomain } from './domain.service.js';

export const domainBody = z.strictObject({
  domain: z.string().meta({ description: 'Lower case; an internationalised name in its ASCII (punycode) form' }),
  active: z.boolean().meta({ description: 'false: takes no new mailboxes; its mailboxes keep receiving' }),
  catch_all: z.boolean().meta({ description: 'true: mail to an unknown address creates that mailbox on arrival (no token)' }),
  public: z.boolean().meta({
    description: 'false: mailboxes on it are created only with the API key, in the admin area or by catch-all; anonymous clients (POST /mailboxes, mail.tm) neither see it nor create on it',
  }),
  created_at: isoTime,
});

const DOMAIN_MESSAGE = 'must be a domain name (letters, digits and -, labels of at most 63 characters, 253 in all; international names are allowed)';

/** A domain name at the edge: normalised (domain-name.ts), or the 400 naming the field. */
const domainName = z
  .string()
  .max(1024)
  .transform((v, ctx) => {
    const d = normalizeDomain(v);
    if (d === undefined) {
      ctx.addIssue({ code: 'custom', message: DOMAIN_MESSAGE });
      return z.NEVER;
    }
    return d;
  })
  .meta({ type: 'string', maxLength: 1024, examples: ['mail.example'] });

const createBody = z.strictObject({ domain: domainName, active: z.boolean().optional(), catch_all: z.boolean().optional(), public: z.boolean().optional() });
const patchBody = z
  .strictObject({ active: z.boolean().optional(), catch_all: z.boolean().optional(), public: z.boolean().optional() })
  .refine((b) => b.active !== undefined || b.catch_all !== undefined || b.public !== undefined, { message: 'send at least one of active, catch_all, public', path: ['(body)'] });
const domainParams = z.object({ domain: domainName });

function json(d: MailDomain) {
  return { domain: d.domain, active: d.active, catch_all: d.catch_all, public: d.public, created_at: toIso(d.created_at) };
}

const tags = ['domains'];

/** The mail domains (docs/api.md, "Domains"): under /api with the key and /admin/api with a session. */
export function domainApiRoutes(app: RouteApp, ctx: AppContext): void {
  const domains = ctx.services.domains;

  const list = {
    tags,
    summary: 'List the mail domains, in the order they were added',
    description: 'New mailboxes without a `domain` go to the first active public one.',
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(domainBody) }, ...errors(400) },
  };
  app.get('/domains', { schema: list }, async (request) => {
    const page = await domains.page(request.query.limit, request.query.cursor);
    return { success: true, items: page.items.map(json), next_cursor: page.next_cursor };
  });

  const create = {
    tags,
    summary: 'Add a mail domain',
    description: 'Every instance uses it at once (mailbox creation, SMTP, the mail.tm `/domains`). `active` and `public` default to true, `catch_all` to false. Point its MX record at svc\'s SMTP port. Taken: 409 domain_exists.',
    body: createBody,
    responses: { 201: { description: 'Added', body: one('domain', domainBody) }, ...errors(400, 409) },
  };
  app.post('/domains', { schema: create }, async (request, reply) => {
    const added = await domains.add(request.body);
    return reply.code(201).send({ success: true, domain: json(added) });
  });

  const update = {
    tags,
    summary: 'Activate or deactivate a mail domain, turn its catch-all on or off, make it public or not',
    description: 'An inactive domain takes no new mailboxes (nor catches any); its mailboxes keep receiving. A non-public one takes new mailboxes only with the API key, in the admin area or by catch-all.',
    params: domainParams,
    body: patchBody,
    responses: { 200: { description: 'The domain after the change', body: one('domain', domainBody) }, ...errors(400, 404) },
  };
  app.patch('/domains/:domain', { schema: update }, async (request) => ({ success: true, domain: json(await domains.update(request.params.domain, request.body)) }));

  const remove = {
    tags,
    summary: 'Delete a mail domain that has no mailbox',
    description: 'A domain with mailboxes: 409 domain_in_use (deactivate it instead; its mailboxes keep receiving).',
    params: domainParams,
    responses: { 200: { description: 'Deleted', body: z.strictObject({ success: z.literal(true) }) }, ...errors(400, 404, 409) },
  };
  app.delete('/domains/:domain', { schema: remove }, async (request) => {
    await domains.remove(request.params.domain);
    return { success: true };
  });
}
