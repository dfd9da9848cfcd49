import { randomUUID } from 'node:crypto';
import { STATUS_CODES } from 'node:http';
import { createRequire } from 'node:module';
import cookie from '@fastify/cookie';
import { parse as parseQuery } from 'fast-querystring';
import Fastify, { type FastifyBaseLogger, type FastifyInstance, LogController } from 'fastify';
import type { AppContext } from '../../context.js';
import { NotFoundError } from '../errors.js';
import { adminSessionHook, apiKeyHook } from './auth-hooks.js';
import { installErrorHandling, installJsonParser, routePath, sendError } from './error-handler.js';
import type { Feature } from './features.js';
import { healthRoutes } from './health.routes.js';
import { registerIdempotency } from './idempotency.js';
import { fieldWithNul, urlHasNul } from './input-guards.js';
import { metricsRoutes } from '../metrics/metrics.routes.js';
import { eventWebhooks } from './events.openapi.js';
import { type ApiOperation, openApiDocument, operationsOf, type RegisteredRoute } from './openapi.js';
import { routesOf, zodValidatorCompiler } from './route-schema.js';
import { holdsMoney, moneyInputHook } from './money-input.js';
import { installSecurityHeaders } from './security-headers.js';
import { portalSessionHook } from './portal-hook.js';

/**
 * Query strings, with empty values counting as absent (docs/api.md#conventions): a client filling the
 * template `?status=&ref_code=` with nothing means "no filter".
 */
function queryWithoutEmpty(str: string): Record<string, unknown> {
  if (str.length === 0) return {};
  const query = parseQuery(str) as Record<string, unknown>;
  for (const key of Object.keys(query)) if (query[key] === '') delete query[key];
  return query;
}

// src/http and dist/http both sit two levels below package.json.
const SERVICE_VERSION: string = createRequire(import.meta.url)('../../../package.json').version;

/** Past the limit by more than this, a body is not read before the 413: the connection is closed. */
const DRAIN_AT_MOST_BYTES = 64 * 1024 * 1024;

const ROUTES = new WeakMap<FastifyInstance, RegisteredRoute[]>();

/** Every route registered on an app built by buildApp, one row per method (HEAD included), with its schema. */
export function registeredRoutes(app: FastifyInstance): readonly RegisteredRoute[] {
  return ROUTES.get(app) ?? [];
}

/** Every operation /openapi.json describes, read off the app's routes. */
export function apiOperations(app: FastifyInstance): ApiOperation[] {
  return operationsOf(registeredRoutes(app));
}

export interface AppOptions {
  /**
   * While this answers a promise, requests wait for it: the service is listening but its first start
   * has not yet created the admin user and the API key (server.ts), so a client that sees the port
   * open never gets a 401 for a key that is given but not yet stored.
   */
  readonly holdRequests?: () => Promise<void> | undefined;
}

/** The whole HTTP app as one Fastify instance with the given features (src/composition.ts); tests call it with app.inject, main makes it listen. */
export async function buildApp(ctx: AppContext, features: readonly Feature[], options: AppOptions = {}): Promise<FastifyInstance> {
  const unroutable = (url: string) => features.find((f) => f.unroutable?.matches(url))?.unroutable;

  const limits = ctx.config.http;
  const trustProxy = ctx.config.trustProxy;
  const app: FastifyInstance = Fastify({
    // its own child: server.ts quiets it while it listens (the banner says where, not Fastify)
    loggerInstance: ctx.logger.child({}) as FastifyBaseLogger,
    bodyLimit: ctx.config.bodyLimitBytes,
    // Only these peers may say who the client is in X-Forwarded-For (never "anyone": config refuses true).
    // A hop count trusts the nearest N addresses of the chain, the socket's peer being the first (Fastify
    // itself now reads a bare number as "trust nobody").
    trustProxy: typeof trustProxy === 'number' ? (_address: string, hop: number) => hop < trustProxy : trustProxy ? [...trustProxy] : false,
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,100}$/.test(given) ? given : randomUUID();
    },
    // Timeouts (README, "Limits"): the headers within headersTimeout (slowloris), the whole request within
    // requestTimeout, no byte either way for idleTimeout (an event stream's heartbeats count), and a
    // kept-alive connection waits keepAliveTimeout for its next request.
    requestTimeout: limits.requestTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    http: {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      // How often Node looks for requests past those two timeouts: with its default (30 s) a client that
      // sends nothing would keep its connection for up to 30 s beyond headersTimeout.
      connectionsCheckingInterval: Math.min(5_000, Math.max(50, Math.floor(limits.headersTimeoutMs / 4))),
    },
    // maxParamLength: long enough for any id or address we accept (mail addresses are up to 320), so
    // an over-long one reaches its route and gets that route's 404 or 400 rather than "no route".
    routerOptions: { querystringParser: queryWithoutEmpty, maxParamLength: 1000 },
    // A path that is not valid percent-encoding never reaches routing: answer it like the route would.
    frameworkErrors: (error, request, reply) => {
      const owner = error.code === 'FST_ERR_BAD_URL' ? unroutable(request.url) : undefined;
      if (owner) return void owner.answer(ctx, reply);
      return void sendError(reply, 400, 'invalid_request', 'The URL is not valid (bad percent-encoding)');
    },
    // Requests Node's parser refuses before Fastify sees them (a malformed request line, a bad chunk,
    // headers over 16 KB) get the contract's error body too, then the connection is closed.
    clientErrorHandler: (err: NodeJS.ErrnoException, socket) => {
      if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
      const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
      const message = status === 431 ? 'Request headers are too large' : status === 408 ? 'Request timed out' : 'The request is not valid HTTP';
      const body = JSON.stringify({ success: false, error: { code: 'invalid_request', message } });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
    return503OnClosing: true,
    // Per-request logs would cost more than /go itself; errors are still logged with their request id.
    logController: new LogController({ disableRequestLogging: true }),
  }) as unknown as FastifyInstance;

  // Connections past the cap are closed as they arrive, before they cost a request.
  app.server.maxConnections = limits.maxConnections;

  const routes: RegisteredRoute[] = [];
  ROUTES.set(app, routes);
  // Money in request bodies becomes minor units of the program currency (docs/api.md#payouts) before the
  // handler, on the routes whose body schema holds a money field and on no other: a hook of the whole app
  // would walk every body, a webhook's raw bytes before their signature included
  // (docs/architecture.md#every-route).
  const resolveMoney = moneyInputHook(() => ctx.services.settings.currency());
  app.addHook('onRoute', (r) => {
    if (r.schema?.body && holdsMoney(r.schema.body)) {
      const own = r.preHandler === undefined ? [] : Array.isArray(r.preHandler) ? r.preHandler : [r.preHandler];
      r.preHandler = [resolveMoney, ...own] as typeof r.preHandler;
    }
    for (const method of Array.isArray(r.method) ? r.method : [r.method]) {
      routes.push({ method, url: r.url, schema: r.schema, adminPublic: r.config?.adminPublic === true, portalPublic: r.config?.portalPublic === true });
    }
  });
  const { holdRequests } = options;
  if (holdRequests) {
    app.addHook('onRequest', (_request, _reply, done) => {
      const held = holdRequests();
      if (held) held.then(() => done(), done);
      else done();
    });
  }
  app.setValidatorCompiler(zodValidatorCompiler);
  installJsonParser(app, ctx.jsonBodies);
  installErrorHandling(app, { bodyLimitBytes: ctx.config.bodyLimitBytes });
  await app.register(cookie);
  await installSecurityHeaders(app);
  // Set before the handler runs (a synchronous hook: no promise per request on the hot paths).
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    if (urlHasNul(request.url)) {
      // A promotion link always lands somewhere: a broken one is an unknown code, as with bad percent-encoding.
      const owner = unroutable(request.url);
      if (owner) return void owner.answer(ctx, reply);
      const field = fieldWithNul(request.params, request.query);
      return void sendError(reply, 400, 'invalid_request', 'The URL contains a NUL character', [{ field, message: 'must not contain a NUL character' }]);
    }
    const length = request.headers['content-length'];
    if (length === undefined) return done();
    const limit = request.routeOptions.bodyLimit ?? ctx.config.bodyLimitBytes;
    const size = Number(length);
    if (!(size > limit)) return done();
    // Too large by its Content-Length: answer 413 once the body has been read and dropped, so a client
    // still uploading gets the answer instead of a reset connection (Fastify's own 413 closes at once).
    const answer = () => void sendError(reply, 413, 'payload_too_large', 'Body is larger than the limit', { limit });
    if (size > limit + DRAIN_AT_MOST_BYTES) {
      reply.header('connection', 'close');
      return answer();
    }
    request.raw.once('end', answer);
    request.raw.once('error', () => request.raw.destroy());
    request.raw.resume();
  });

  healthRoutes(routesOf(app), ctx);
  metricsRoutes(routesOf(app), ctx);
  let openapi: string | undefined;
  const openapiSchema = {
    tags: ['meta'],
    summary: 'This document',
    description: 'OpenAPI 3.1, built from the routes the service registers; `webhooks` describes the events it sends.',
    responses: { 200: { description: 'The document', mediaType: 'application/json' } },
  };
  app.get('/openapi.json', { schema: openapiSchema }, (_request, reply) => {
    openapi ??= JSON.stringify({ ...openApiDocument(apiOperations(app), { version: SERVICE_VERSION, serverUrl: ctx.config.baseUrl }), webhooks: eventWebhooks() });
    return reply.type('application/json; charset=utf-8').header('access-control-allow-origin', '*').send(openapi);
  });

  for (const feature of features) {
    if (feature.public) await app.register(async (scope) => feature.public?.(routesOf(scope), ctx));
  }

  await app.register(
    async (api) => {
      api.addHook('onRequest', apiKeyHook(ctx));
      registerIdempotency(api, ctx);
      for (const feature of features) {
        if (feature.api) await api.register(async (scope) => feature.api?.(routesOf(scope), ctx));
      }
      // Unknown paths under /api answer 404 only after the key check, so they reveal nothing without it.
      api.all('/*', async (request) => {
        throw new NotFoundError('not_found', `No route for ${request.method} ${routePath(request.url)}`);
      });
    },
    { prefix: '/api' },
  );

  await app.register(
    async (admin) => {
      admin.addHook('onRequest', adminSessionHook(ctx));
      for (const feature of features) {
        // Every API route is also an admin route (session + CSRF instead of the key), so the admin UI
        // never needs the API key; `admin` adds the routes only admins have.
        if (feature.api) await admin.register(async (scope) => feature.api?.(routesOf(scope), ctx));
        if (feature.admin) await admin.register(async (scope) => feature.admin?.(routesOf(scope), ctx));
      }
    },
    { prefix: '/admin/api' },
  );

  await app.register(
    async (portal) => {
      // The affiliate comes from the session, set here for every route of the mount
      // (docs/architecture.md#the-affiliate-portals-isolation).
      portal.addHook('onRequest', portalSessionHook(ctx));
      // Idempotency-Key is kept per affiliate: one affiliate's key never replays another's answer.
      registerIdempotency(portal, ctx, (request) => `portal:${request.portal?.refCode ?? '-'}:`);
      for (const feature of features) {
        if (feature.portal) await portal.register(async (scope) => feature.portal?.(routesOf(scope), ctx));
      }
      portal.all('/*', async (request) => {
        throw new NotFoundError('not_found', `No route for ${request.method} ${routePath(request.url)}`);
      });
    },
    { prefix: '/portal/api' },
  );

  return app;
}
