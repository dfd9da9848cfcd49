import rateLimit from '@fastify/rate-limit';
import { attributionCookie, CLICK_COOKIE, REF_COOKIE } from '../../loop/clicks/attribution-cookies.js';
import type { AppContext } from '../../context.js';
import { AppError } from '../../platform/errors.js';
import { parseJsonBody } from '../../platform/http/input-guards.js';
import { errors } from '../../platform/http/openapi.js';
import { type RouteApp, routesOf } from '../../platform/http/route-schema.js';
import { perClientRateLimit } from '../../platform/http/shared-rate-limit.js';
import { authenticatedBy, type MailtmAuthHook, auth, idParams, send, tags, unprocessable, format } from './mailtm-routing.js';
import { mailtmMessageRoutes } from './mailtm-messages.routes.js';
import { PUBLIC_MAILBOX_LIMIT } from '../mailboxes/mailbox.routes.js';
import { theAccount } from './mailtm-auth.js';
import { mercureRoute } from './mailtm-mercure.js';
import {
  accountBody,
  collection,
  domainBody,
  single,
} from './mailtm.resources.js';
import {
  accountShapes,
  collectionOf,
  credentialsSchema,
  domainShapes,
  either,
  pageQuery,
  refQuery,
  tokenBody,
} from './mailtm.schemas.js';
import { MAILTM_PAGE_SIZE } from './mailtm.service.js';

/** Per client IP: POST /token checks a password (scrypt) each time. */
export const MAILTM_TOKEN_LIMIT = { max: 60, timeWindow: 60_000 };

/**
 * The mail.tm-compatible API under /mailtm (docs/mailtm.md#the-mailtm-compatible-api): mail.tm's paths, field
 * names, status codes and both of its formats (JSON-LD with Hydra collections by default, plain JSON for
 * `Accept: application/json`), so mail.tm clients work by changing their base URL. Errors keep svc's error
 * body (docs/api.md#conventions).
 */
export async function mailtmPublicRoutes(app: RouteApp, ctx: AppContext): Promise<void> {
  await app.register(
    async (plain) => {
      const scope = routesOf(plain);
      // mail.tm clients send JSON as application/ld+json or, for PATCH, application/merge-patch+json.
      scope.addContentTypeParser(['application/ld+json', 'application/merge-patch+json'], { parseAs: 'string' }, (_request, body, done) => {
        try {
          done(null, parseJsonBody(typeof body === 'string' ? body : body.toString('utf8')));
        } catch (err) {
          done(err as AppError, undefined);
        }
      });
      await scope.register(rateLimit, perClientRateLimit(ctx.rateWindows, ctx.clock));
      const authenticated = authenticatedBy(ctx);
      routes(scope, ctx, authenticated);
      mailtmMessageRoutes(scope, ctx, authenticated);
      mercureRoute(scope, ctx);
    },
    { prefix: '/mailtm' },
  );
}

/** Domains, accounts and tokens. */
function routes(app: RouteApp, ctx: AppContext, authenticated: MailtmAuthHook): void {
  const mailtm = ctx.services.mailtm;

  app.get(
    '/domains',
    {
      schema: {
        tags,
        summary: 'mail.tm: the domains accounts can be created on',
        description: 'The active public mail domains (GET /api/domains; a non-public one is not listed and takes no account), 30 a page. JSON-LD (Hydra collection) unless Accept asks for application/json (plain array).',
        querystring: pageQuery,
        responses: { 200: { description: 'The domains', body: collectionOf(domainShapes) }, ...errors(400) },
      },
    },
    async (request, reply) => {
      const all = await mailtm.domains();
      const page = all.slice((request.query.page - 1) * MAILTM_PAGE_SIZE, request.query.page * MAILTM_PAGE_SIZE);
      const members = page.map((d) => ({ iri: `/domains/${d.id}`, body: domainBody(d) }));
      return send(reply, format(request), 200, collection(format(request), 'Domain', '/domains', members, { page: request.query.page, total: all.length, size: MAILTM_PAGE_SIZE }));
    },
  );

  app.get(
    '/domains/:id',
    {
      schema: {
        tags,
        summary: 'mail.tm: one domain',
        params: idParams,
        responses: { 200: { description: 'The domain', body: either(domainShapes) }, ...errors(404) },
      },
    },
    async (request, reply) => {
      const domain = (await mailtm.domains()).find((d) => d.id === request.params.id);
      if (!domain) throw new AppError(404, 'not_found', 'Not Found');
      return send(reply, format(request), 200, single(format(request), 'Domain', `/domains/${domain.id}`, domainBody(domain)));
    },
  );

  app.post(
    '/accounts',
    {
      config: { rateLimit: PUBLIC_MAILBOX_LIMIT },
      schema: {
        tags,
        summary: 'mail.tm: create an account (a mailbox with a password)',
        description:
          'The mailbox is created as POST /mailboxes creates one, attributed by `?ref=` or the svc_ref cookie (an explicit ref also sets the cookie), readable in the inbox with this API\'s token. Rate limited per client IP like POST /mailboxes.',
        querystring: refQuery,
        body: credentialsSchema,
        responses: { 201: { description: 'Created', body: either(accountShapes) }, ...errors(400), ...unprocessable, ...errors(429) },
      },
    },
    async (request, reply) => {
      const { account, mailbox, usage } = await mailtm.register({
        address: request.body.address,
        password: request.body.password,
        ref: request.query.ref,
        cookieRef: request.cookies[REF_COOKIE],
        cookieClick: request.cookies[CLICK_COOKIE],
      });
      if (mailbox.source === 'ref' && mailbox.refCode) {
        const settings = await ctx.services.settings.get();
        reply.header('set-cookie', attributionCookie(REF_COOKIE, mailbox.refCode, settings.cookie_lifetime_days, ctx.config.secureCookies));
      }
      return send(reply, format(request), 201, single(format(request), 'Account', `/accounts/${account.id}`, accountBody(account, usage)));
    },
  );

  app.post(
    '/token',
    {
      config: { rateLimit: MAILTM_TOKEN_LIMIT },
      schema: {
        tags,
        summary: 'mail.tm: a bearer token for an account',
        description: `Valid for 7 days; JWT-shaped like mail.tm's (its middle part names the account), checked by lookup. Rate limited per client IP (${MAILTM_TOKEN_LIMIT.max} a minute).`,
        body: credentialsSchema,
        responses: { 200: { description: 'The token and the account id', body: tokenBody }, ...errors(400, 401, 429) },
      },
    },
    async (request, reply) => {
      const token = await mailtm.issueToken(request.body.address, request.body.password);
      return send(reply, format(request), 200, token);
    },
  );

  const accountResponses = { 200: { description: 'The account', body: either(accountShapes) }, ...errors(401, 404) };
  app.get(
    '/me',
    { schema: { tags, summary: 'mail.tm: the account of the token', auth, responses: accountResponses }, onRequest: authenticated },
    async (request, reply) => {
      const account = theAccount(request);
      return send(reply, format(request), 200, single(format(request), 'Account', `/accounts/${account.id}`, accountBody(account, await mailtm.usage(account))));
    },
  );

  app.get(
    '/accounts/:id',
    { schema: { tags, summary: 'mail.tm: an account (only the token\'s own)', auth, params: idParams, responses: accountResponses }, onRequest: authenticated },
    async (request, reply) => {
      const account = mailtm.ownAccount(theAccount(request), request.params.id);
      return send(reply, format(request), 200, single(format(request), 'Account', `/accounts/${account.id}`, accountBody(account, await mailtm.usage(account))));
    },
  );

  app.delete(
    '/accounts/:id',
    {
      schema: {
        tags,
        summary: 'mail.tm: delete the account and its messages',
        description: 'Its tokens stop working and its open streams end: on this instance before the answer, on the others sharing the database right after. The mailbox itself stays (attribution keeps it), so its address cannot be registered again.',
        auth,
        params: idParams,
        responses: { 204: { description: 'Deleted' }, ...errors(401, 404) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      await mailtm.deleteAccount(mailtm.ownAccount(theAccount(request), request.params.id));
      return reply.code(204).send();
    },
  );
}
