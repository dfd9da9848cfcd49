import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { errors, isoTime, pageOf } from '../../platform/http/openapi.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { refCodeSchema } from '../affiliates/affiliate.schemas.js';
import { isoDay } from '../reports/report.service.js';
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

/** The promotion link (docs/api.md#promotion-link-and-mailboxes). HEAD is served by the same handler (Fastify exposes it) and records nothing. */
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

const clickListQuery = listQuerySchema
  .extend({
    ref_code: refCodeSchema.optional(),
    from: isoDay.optional().meta({ description: 'UTC day YYYY-MM-DD, included' }),
    to: isoDay.optional().meta({ description: 'UTC day YYYY-MM-DD, included' }),
  })
  .refine((q) => !q.from || !q.to || q.from <= q.to, { message: 'must not be before from', path: ['to'] });

const clickItem = z.strictObject({
  ref_code: z.string(),
  clicked_at: isoTime,
  referer: z.string().nullable(),
  user_agent: z.string().nullable(),
});

const retentionAnswer = z.strictObject({
  success: z.literal(true),
  retention: z.strictObject({
    click_retention_days: z.number().int(),
    kept_from: isoTime.meta({ description: 'Raw clicks made before this UTC midnight are removed' }),
    removed_clicks: z.number().int(),
    removed_days: z.number().int().meta({ description: 'PostgreSQL: day partitions dropped; SQLite: 0' }),
  }),
});

/** The raw click log (docs/api.md#click-log). Mounted under /api and /admin/api. */
export function clickApiRoutes(app: RouteApp, ctx: AppContext): void {
  const { clickLog } = ctx.services;
  const list = {
    tags: ['links'],
    summary: 'List raw clicks, newest first',
    description:
      'The clicks still kept (click_retention_days, default 90); never an IP address. from/to are UTC days, both included. Every figure (summary, dashboard, CSV) comes from counts per affiliate and day that outlive the raw clicks.',
    querystring: clickListQuery,
    responses: { 200: { description: 'A page', body: pageOf(clickItem) }, ...errors(400) },
  };
  app.get('/clicks', { schema: list }, async (request) => {
    const q = request.query;
    return { success: true, ...(await clickLog.list({ refCode: q.ref_code, from: q.from, to: q.to, cursor: q.cursor, limit: q.limit })) };
  });
}

/** Retention on demand (docs/api.md#click-log). Mounted under /admin/api. */
export function clickAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const { clickLog } = ctx.services;
  const retention = {
    tags: ['links'],
    summary: 'Remove the raw clicks older than click_retention_days now',
    description: 'svc also does it by itself once a day. The counts per affiliate and day, and so every figure, stay as they were.',
    responses: { 200: { description: 'What was removed', body: retentionAnswer } },
  };
  app.post('/maintenance/retention', { schema: retention }, async () => ({ success: true, retention: await clickLog.run() }));
}
