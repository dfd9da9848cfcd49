import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { attributionCookie, CLICK_COOKIE, REF_COOKIE } from './attribution-cookies.js';
import type { FollowResult } from './click.service.js';

function header(request: FastifyRequest, name: string): string | undefined {
  const v = request.headers[name];
  return Array.isArray(v) ? v[0] : v;
}

function sendRedirect(reply: FastifyReply, result: FollowResult, secure: boolean): FastifyReply {
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
}

/** True for a URL under /go: whatever arrives there (bad encoding, a NUL) still redirects to the landing page. */
export function isPromotionLink(url: string): boolean {
  return /^\/go(\/|\?|$)/.test(url);
}

/** A /go path that could not even be decoded names no affiliate: the unknown-code redirect. */
export async function redirectUnknownCode(ctx: AppContext, reply: FastifyReply): Promise<void> {
  try {
    const result = await ctx.services.clicks.follow({ refCode: '', record: false, ip: '', query: {} });
    sendRedirect(reply, result, ctx.config.secureCookies);
  } catch (err) {
    reply.send(err);
  }
}

/** The promotion link (CONTRACT §4). HEAD is served by the same handler (Fastify exposes it) and records nothing. */
export function clickPublicRoutes(app: RouteApp, ctx: AppContext): void {
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
    return sendRedirect(reply, result, secure);
  };

  const opts = { helmet: false } as const;
  const link = {
    tags: ['links'],
    summary: 'Promotion link: count a click, set svc_ref, redirect to the landing page',
    description:
      'An active code records the click (unless HEAD or a known bot), sets the svc_ref cookie for cookie_lifetime_days and redirects to landing_url with ref added. Network click ids (awc, cjevent, irclickid, clickid, transaction_id) are kept with the click. An unknown or disabled code redirects to the landing page without ref, cookie or click.',
    params: z.object({ ref_code: z.string().max(1000).meta({ description: 'Anything else than an active code redirects without ref' }) }),
    responses: {
      302: { description: 'To the landing page', headers: { Location: 'landing_url, with ref for an active code', 'Set-Cookie': 'svc_ref (and svc_click with network ids) for an active code' } },
    },
  };
  app.get('/go/:ref_code', { ...opts, schema: link }, (request, reply) => go(request, reply, request.params.ref_code));
  // Anything else under /go (empty code, extra slashes, //host tricks) is an unknown code: landing page.
  // A trailing slash (`/go/alice/`) still names the code; anything else is unknown.
  app.get<{ Params: { '*': string } }>('/go/*', opts, (request, reply) => go(request, reply, /^[^/]+\/$/.test(request.params['*']) ? request.params['*'].slice(0, -1) : ''));
  app.get('/go', opts, (request, reply) => go(request, reply, ''));
}
