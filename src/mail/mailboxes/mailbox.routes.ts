import rateLimit from '@fastify/rate-limit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { attributionCookie, CLICK_COOKIE, REF_COOKIE } from '../../loop/clicks/attribution-cookies.js';
import type { AppContext } from '../../context.js';
import { errors, isoTime, one, pageOf } from '../../platform/http/openapi.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { perClientRateLimit } from '../../platform/http/shared-rate-limit.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { apiMailboxSchema, type CreateMailboxInput, type CreatedMailbox, explicitRef, mailboxJson, publicMailboxSchema } from './mailbox.service.js';

export const mailboxBody = z.strictObject({
  address: z.string(),
  ref_code: z.string().nullable().meta({ description: 'The affiliate the mailbox is bound to' }),
  token: z.string().meta({ description: 'Bearer token for reading the mailbox; shown once' }),
  created_at: isoTime,
});

const tokenlessMailboxBody = z.strictObject({ address: z.string(), domain: z.string(), created_at: isoTime });

const created = { description: 'Created; an explicit ref also sets the svc_ref cookie', body: one('mailbox', mailboxBody) };

export const publicConfigBody = z.strictObject({
  success: z.literal(true),
  domains: z.array(z.string()),
  mailbox_ttl_hours: z.number().int(),
});

const tags = ['mailboxes'];

/** Per client IP on the public creation route, over all instances; the landing page needs one, a script wants thousands. */
export const PUBLIC_MAILBOX_LIMIT = { max: 30, timeWindow: 60_000 };

async function create(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, input: Omit<CreateMailboxInput, 'cookieRef' | 'cookieClick'>) {
  const created: CreatedMailbox = await ctx.services.mailboxes.create({
    ...input,
    cookieRef: request.cookies[REF_COOKIE],
    cookieClick: request.cookies[CLICK_COOKIE],
    ip: request.ip,
  });
  if (created.source === 'ref' && created.refCode) {
    // An explicit ref wins over (and replaces) an older cookie, exactly as a new /go click would.
    const settings = await ctx.services.settings.get();
    reply.header('set-cookie', attributionCookie(REF_COOKIE, created.refCode, settings.cookie_lifetime_days, ctx.config.secureCookies));
  }
  return reply.code(201).send({ success: true, mailbox: mailboxJson(created) });
}

/** Public mailbox creation for the landing page (docs/api.md#promotion-link-and-mailboxes), and the config its domain picker needs. */
export async function mailboxPublicRoutes(app: RouteApp, ctx: AppContext): Promise<void> {
  await app.register(rateLimit, perClientRateLimit(ctx.rateWindows, ctx.clock));

  const createPublic = {
    tags,
    summary: 'Create a mailbox (landing page)',
    description: 'Attribution: explicit ref, else the svc_ref cookie, else none. Rate limited per client IP. Only on a public domain (without `domain`: the first active public one); a non-public or unknown `domain` is 400 naming `domain`.',
    body: publicMailboxSchema,
    responses: { 201: created, ...errors(400, 409, 429) },
  };
  app.post('/mailboxes', { config: { rateLimit: PUBLIC_MAILBOX_LIMIT }, schema: createPublic }, async (request, reply) => {
    const { body } = request;
    return create(ctx, request, reply, { anonymous: true, name: body.name, domain: body.domain, ref: explicitRef(body) });
  });

  const config = {
    tags,
    summary: 'The mail domains a mailbox can be created on, and how long messages are kept',
    description: 'The active public domains (a non-public one is not listed: POST /mailboxes refuses it).',
    responses: { 200: { description: 'The public settings', body: publicConfigBody } },
  };
  app.get('/public/config', { schema: config }, async () => {
    const settings = await ctx.services.settings.get();
    const offered = await ctx.services.domains.offered();
    return { success: true, domains: offered.map((d) => d.domain), mailbox_ttl_hours: settings.mailbox_ttl_hours };
  });
}

/** `POST /api/mailboxes` (also under /admin/api): same rules, `ref_code` instead of `ref`. */
export function mailboxApiRoutes(app: RouteApp, ctx: AppContext): void {
  const createApi = {
    tags,
    summary: 'Create a mailbox',
    description: 'As POST /mailboxes, with ref_code instead of ref and no rate limit; a non-public domain may be named too.',
    body: apiMailboxSchema,
    responses: { 201: created, ...errors(400, 409) },
  };
  app.post('/mailboxes', { schema: createApi }, async (request, reply) => {
    const { body } = request;
    return create(ctx, request, reply, { anonymous: false, name: body.name, domain: body.domain, ref: explicitRef(body) });
  });

  const withoutToken = {
    tags,
    summary: 'List the mailboxes with no token, newest first',
    description: 'Those a catch-all domain created when mail arrived for them; their messages are read under /api/mailboxes/{address}/messages (the admin area\'s mail browser).',
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(tokenlessMailboxBody) }, ...errors(400) },
  };
  app.get('/mailboxes/without-token', { schema: withoutToken }, async (request) => {
    const page = await ctx.services.mailboxes.withoutToken(request.query.limit, request.query.cursor);
    return { success: true, ...page };
  });
}
