import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';
import { notFoundPage } from '../web/not-found-page.js';
import { WEB_PAGES } from '../web/web.routes.js';
import { type JsonBodyReader, jsonBodyValue, parseJsonBody } from './input-guards.js';

/** The path of a URL for an error message: no query, at most 200 characters (URLs may be 16 KB). */
export function routePath(url: string): string {
  const path = url.split('?')[0] ?? url;
  return path.length > 200 ? `${path.slice(0, 200)}…` : path;
}

export function sendError(reply: FastifyReply, status: number, code: string, message: string, details?: unknown) {
  const error: Record<string, unknown> = { code, message };
  if (details !== undefined) error.details = details;
  return reply.code(status).type('application/json; charset=utf-8').send({ success: false, error });
}

/** One handler turns every error into the contract's body (docs/api.md#conventions); unknown errors become a plain 500. */
export function installErrorHandling(app: FastifyInstance, opts: { bodyLimitBytes: number }): void {
  app.setErrorHandler((err: FastifyError, request: FastifyRequest, reply: FastifyReply) => {
    if (err instanceof AppError) {
      if (err.headers) reply.headers(err.headers);
      return sendError(reply, err.status, err.code, err.message, err.details);
    }
    if (err.validation) {
      const details = err.validation.map((v) => ({
        field: (v.instancePath || '').replace(/^\//, '').replace(/\//g, '.') || String(v.params?.missingProperty ?? '(body)'),
        message: v.message ?? 'invalid',
      }));
      return sendError(reply, 400, 'invalid_request', 'Request validation failed', details);
    }
    switch (err.code) {
      case 'FST_ERR_CTP_BODY_TOO_LARGE':
        return sendError(reply, 413, 'payload_too_large', 'Body is larger than the limit', {
          limit: request.routeOptions.bodyLimit ?? opts.bodyLimitBytes,
        });
      case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
        return sendError(reply, 415, 'invalid_request', 'Content-Type must be application/json');
      case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      case 'FST_ERR_CTP_INVALID_JSON_BODY':
        return sendError(reply, 400, 'invalid_request', 'Body is not valid JSON');
    }
    if (err.statusCode === 429) {
      return sendError(reply, 429, 'rate_limited', 'Too many requests, retry later');
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) {
      return sendError(reply, err.statusCode, err.statusCode === 404 ? 'not_found' : 'invalid_request', 'Bad request');
    }
    request.log.error({ err, reqId: request.id }, 'unhandled error');
    return sendError(reply, 500, 'internal_error', `Internal error (request ${request.id})`);
  });

  app.setNotFoundHandler((request, reply) => {
    // A person who mistyped a page address gets a page with a way back; programs get the JSON body.
    const path = routePath(request.url);
    if (request.method === 'GET' && !/^\/(admin\/|portal\/)?api(\/|$)/.test(path) && (request.headers.accept ?? '').includes('text/html')) {
      // `/admin/` is the page `/admin`: people type the slash, and links get one added
      const page = path.length > 1 && path.endsWith('/') ? path.replace(/\/+$/, '') : null;
      if (page && WEB_PAGES.includes(page)) {
        const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
        return reply.redirect(`${page}${query}`, 301);
      }
      return reply.code(404).type('text/html; charset=utf-8').send(notFoundPage(path));
    }
    return sendError(reply, 404, 'not_found', `No route for ${request.method} ${path}`);
  });
}

/** Bodies from this size on are decoded and parsed in the content pool, not on the event loop (an 11 MB one took it 60-90 ms). */
export const JSON_IN_POOL_BYTES = 256 * 1024;

/**
 * JSON bodies: an empty body is "no body" (action endpoints); anything unparsable, nested deeper than
 * 32 levels or holding a NUL is 400 invalid_request (input-guards). A body of JSON_IN_POOL_BYTES or more
 * is read by `pool` (POST /api/inbound takes up to SVC_INBOUND_MAX_BYTES); one it cannot read within its
 * time limit is 400 too, a full pool 503 `overloaded` (hostile-content.test.ts, case (e)).
 */
export function installJsonParser(app: FastifyInstance, pool?: JsonBodyReader): void {
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) => {
    const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (pool && bytes.length >= JSON_IN_POOL_BYTES) {
      pool.readJson(bytes).then(
        (read) => {
          try {
            done(null, jsonBodyValue(read));
          } catch (err) {
            done(err as AppError, undefined);
          }
        },
        (err: unknown) => done((pool.isLimitError(err) ? new AppError(400, 'invalid_request', 'Body could not be read within the time limit') : err) as AppError, undefined),
      );
      return;
    }
    try {
      done(null, parseJsonBody(bytes.toString('utf8')));
    } catch (err) {
      done(err as AppError, undefined);
    }
  });
}
