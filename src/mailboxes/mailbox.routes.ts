import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { attributionCookie, CLICK_COOKIE, REF_COOKIE } from '../clicks/attribution-cookies.js';
import type { AppContext } from '../context.js';
import { RateLimitedError } from '../errors.js';
import { parseBody } from '../validation.js';
import { apiMailboxSchema, type CreateMailboxInput, type CreatedMailbox, explicitRef, mailboxJson, publicMailboxSchema } from './mailbox.service.js';

/** Per client IP on the public creation route; the landing page needs one, a script wants thousands. */
export const PUBLIC_MAILBOX_LIMIT = { max: 30, timeWindow: 60_000 };

async function create(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, input: Omit<CreateMailboxInput, 'cookieRef' | 'cookieClick'>) {
  const created: CreatedMailbox = await ctx.services.mailboxes.create({
    ...input,
    cookieRef: request.cookies[REF_COOKIE],
    cookieClick: request.cookies[CLICK_COOKIE],
  });
  if (created.source === 'ref' && created.refCode) {
    // An explicit ref wins over (and replaces) an older cookie, exactly as a new /go click would.
    const settings = await ctx.services.settings.get();
    reply.header('set-cookie', attributionCookie(REF_COOKIE, created.refCode, settings.cookie_lifetime_days, ctx.config.secureCookies));
  }
  return reply.code(201).send({ success: true, mailbox: mailboxJson(created) });
}

/** Public mailbox creation for the landing page (CONTRACT §4), and the config its domain picker needs. */
export async function mailboxPublicRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  await app.register(rateLimit, {
    global: false,
    errorResponseBuilder: (_request, context) => new RateLimitedError(Math.max(1, Math.ceil(context.ttl / 1000))),
  });

  app.post('/mailboxes', { config: { rateLimit: PUBLIC_MAILBOX_LIMIT } }, async (request, reply) => {
    const body = parseBody(publicMailboxSchema, request.body);
    return create(ctx, request, reply, { name: body.name, domain: body.domain, ref: explicitRef(body) });
  });

  app.get('/public/config', async () => {
    const settings = await ctx.services.settings.get();
    return { success: true, domains: ctx.config.mailDomains, mailbox_ttl_hours: settings.mailbox_ttl_hours };
  });
}

/** `POST /api/mailboxes` (also under /admin/api): same rules, `ref_code` instead of `ref`. */
export function mailboxApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/mailboxes', async (request, reply) => {
    const body = parseBody(apiMailboxSchema, request.body);
    return create(ctx, request, reply, { name: body.name, domain: body.domain, ref: explicitRef(body) });
  });
}
