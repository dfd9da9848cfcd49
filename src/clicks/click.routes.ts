import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.js';
import { attributionCookie, CLICK_COOKIE, REF_COOKIE } from './attribution-cookies.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

/** The promotion link (CONTRACT §4). HEAD is served by the same handler (Fastify exposes it) and records nothing. */
export function clickPublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { clicks } = ctx.services;
  const secure = ctx.config.secureCookies;

  const go = async (request: FastifyRequest, reply: FastifyReply, refCode: string) => {
    const result = await clicks.follow({
      refCode,
      record: request.method === 'GET',
      ip: request.ip,
      userAgent: header(request, 'user-agent'),
      referer: header(request, 'referer'),
      query: request.query as Record<string, unknown>,
    });
    // Never cached: a cached redirect would skip the click and the cookie.
    // A bodiless redirect needs none of the page headers (CSP, frame options) that helmet computes per
    // request; it keeps the referrer policy so the landing page gets no Referer from it.
    reply.code(302).header('location', result.location).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer');
    if (result.refCode) {
      const cookies = [attributionCookie(REF_COOKIE, result.refCode, result.cookieLifetimeDays, secure)];
      if (result.clickId !== null) cookies.push(attributionCookie(CLICK_COOKIE, String(result.clickId), result.cookieLifetimeDays, secure));
      reply.header('set-cookie', cookies.length === 1 ? cookies[0] : cookies);
    }
    return reply.send();
  };

  const opts = { helmet: false } as const;
  app.get<{ Params: { ref_code: string } }>('/go/:ref_code', opts, (request, reply) => go(request, reply, request.params.ref_code));
  // Anything else under /go (empty code, extra slashes, //host tricks) is an unknown code: landing page.
  app.get('/go/*', opts, (request, reply) => go(request, reply, ''));
  app.get('/go', opts, (request, reply) => go(request, reply, ''));
}
