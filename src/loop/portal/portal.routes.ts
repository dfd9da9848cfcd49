import { z } from 'zod';
import { portalCommissionBody, portalCommissionView } from '../commissions/commission.schemas.js';
import { mapPage } from '../../platform/db/keyset.js';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errorBody, errors, money, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import { portalSessionOf } from '../../platform/http/portal-hook.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { moneyField } from '../../platform/http/schemas.js';
import { summaryRowBody } from '../reports/report.routes.js';
import { dayRangeSchema } from '../reports/report.service.js';
import { withdrawalBody, withdrawalView } from '../withdrawals/withdrawal.schemas.js';
import { meBody, updateMeSchema } from './portal.schemas.js';
import { portalAuthRoutes } from './portal-auth.routes.js';

const tags = ['portal'];

/** What happened to the mail a request would send. */
export const mailOutcome = z
  .enum(['queued', 'not_configured', 'no_email', 'opted_out'])
  .meta({ description: 'queued: the mail is queued and sent by the worker; not_configured: SVC_SMTP_URL is unset, svc sends no mail; no_email: the recipient has no email address' });

const summaryAnswer = z.strictObject({
  success: z.literal(true),
  summary: summaryRowBody,
  days: z.array(
    z.strictObject({
      day: z.string().meta({ format: 'date' }),
      clicks: z.number().int(),
      mailboxes: z.number().int(),
      orders: z.number().int(),
      commission: money.meta({ description: 'Commission booked that day: pending + approved + paid' }),
    }),
  ),
});

/**
 * docs/api.md#affiliate-portal, mounted under /portal/api. Every route but login, sign-up and accept-invite runs for
 * the session's affiliate: it reaches data only through `portal.for(session)`, which takes the
 * ref_code from the session and from nowhere else.
 */
export function portalRoutes(app: RouteApp, ctx: AppContext): void {
  const { portal } = ctx.services;
  const scope = (request: Parameters<typeof portalSessionOf>[0]) => portal.for(portalSessionOf(request));
  portalAuthRoutes(app, ctx);

  app.get('/me', { schema: { tags, summary: 'The signed-in affiliate, its link and the rate that applies', responses: { 200: { description: 'The affiliate', body: one('affiliate', meBody) } } } }, async (request) => ({
    success: true,
    affiliate: await scope(request).me(),
  }));

  const updateMe = {
    tags,
    summary: 'Change the name, the payout details or the notification mails',
    description:
      'notify: {commissions, payouts} turns the mails on a commission approved / a withdrawal paid on or off (no password needed). payout_details: {method: paypal|wise|sepa|other, email?, iban?, bic?, account_holder?, note?} (paypal/wise need email, sepa a valid IBAN and account_holder, other a note; 400 names the field; null clears it); requested withdrawals keep the details they were requested with. Changing it needs current_password (missing or wrong: 403 password_required, details naming current_password, and nothing changes); wrong ones count with those of POST /portal/api/password: 5 per 15 minutes, then 429. The name alone needs no password.',
    body: updateMeSchema,
    responses: {
      200: { description: 'The affiliate after the change', body: one('affiliate', meBody) },
      ...errors(400, 429),
      403: { description: 'password_required: payout_details sent without the right current_password; or csrf_failed', body: errorBody },
    },
  };
  app.patch('/me', { schema: updateMe }, async (request) => ({ success: true, affiliate: await scope(request).updateMe(request.body, request.ip) }));

  const summary = {
    tags,
    summary: 'The affiliate\'s figures for a date range, with one item per day',
    description: 'from/to are UTC days, both included; without them `summary` is all time and `days` the last 30 days. `summary` is a row of GET /api/affiliate/summary; balance is never limited by the range.',
    querystring: dayRangeSchema,
    responses: { 200: { description: 'The figures', body: summaryAnswer }, ...errors(400) },
  };
  app.get('/summary', { schema: summary }, async (request) => ({ success: true, ...(await scope(request).summary(request.query)) }));

  const commissions = {
    tags,
    summary: "The affiliate's commissions, newest first",
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(portalCommissionBody) }, ...errors(400) },
  };
  app.get('/commissions', { schema: commissions }, async (request) => {
    const cur = await ctx.services.commissions.currency();
    return { success: true, ...mapPage(await scope(request).commissions(request.query), (c) => portalCommissionView(c, cur)) };
  });

  const withdrawals = {
    tags,
    summary: "The affiliate's withdrawals, newest first",
    querystring: listQuerySchema,
    responses: { 200: { description: 'A page', body: pageOf(withdrawalBody) }, ...errors(400) },
  };
  app.get('/withdrawals', { schema: withdrawals }, async (request) => {
    const cur = await ctx.services.withdrawals.currency();
    return { success: true, ...mapPage(await scope(request).withdrawals(request.query), (w) => withdrawalView(w, cur)) };
  });

  const requestWithdrawal = {
    tags,
    summary: 'Request a withdrawal of paid commission',
    description: 'The rules of POST /api/withdrawals for the signed-in affiliate: above the available balance 422 insufficient_balance with details.available; Idempotency-Key replays the first answer.',
    body: z.strictObject({ amount: moneyField }),
    responses: { 201: { description: 'Requested', body: one('withdrawal', withdrawalBody) }, ...errors(400, 409, 422) },
  };
  app.post('/withdrawals', { schema: requestWithdrawal }, async (request, reply) => {
    const withdrawal = await scope(request).requestWithdrawal(request.body.amount);
    return reply.code(201).send({ success: true, withdrawal: withdrawalView(withdrawal, await ctx.services.withdrawals.currency()) });
  });
}

const refParams = z.object({ ref_code: pathSegment });

/** The admin's side of the portal: invitations and the payout details shown beside withdrawals. */
export function portalAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const { portalAuth, portal } = ctx.services;

  const invite = {
    summary: 'Invite an affiliate to the portal',
    description:
      'A single-use link, valid 72 hours, where the affiliate chooses a password (POST /portal/api/accept-invite). A new invitation does not cancel earlier ones. The link is also mailed to the affiliate\'s email (mail: queued), unless svc sends no mail (not_configured) or the affiliate has no email (no_email); invite_url is answered either way.',
    params: refParams,
    responses: {
      200: {
        description: 'The invitation',
        body: z.strictObject({ success: z.literal(true), invite_url: z.string(), expires_at: z.string().meta({ format: 'date-time' }), mail: mailOutcome }),
      },
      ...errors(404),
    },
  };
  app.post('/affiliates/:ref_code/invite', { schema: invite }, async (request) => ({ success: true, ...(await portalAuth.invite(request.params.ref_code)) }));

  const payout = {
    summary: 'Payout details of affiliates (shown beside their withdrawals)',
    querystring: z.object({ ref_codes: z.string().max(33_000).meta({ description: 'Comma-separated ref codes (at most 500)' }) }),
    responses: {
      200: {
        description: 'ref_code -> payout details, for those that gave some',
        body: z.strictObject({ success: z.literal(true), payout_details: z.record(z.string(), z.string()) }),
      },
      ...errors(400),
    },
  };
  app.get('/payout-details', { schema: payout }, async (request) => {
    const codes = request.query.ref_codes.split(',').filter((c) => c.length > 0 && c.length <= 64).slice(0, 500);
    const rows = await portal.payoutDetails(codes);
    return { success: true, payout_details: Object.fromEntries(rows.map((r) => [r.ref_code, r.payout_details])) };
  });
}
