import { z } from 'zod';
import { affiliateBody, affiliateJson } from '../affiliates/affiliate.schemas.js';
import type { AppContext } from '../../context.js';
import { errors } from '../../platform/http/openapi.js';
import { PORTAL_COOKIE, portalSessionOf } from '../../platform/http/portal-hook.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { AFFILIATE_SIGNUP } from '../../platform/settings/settings.service.js';
import { PORTAL_SESSION_TTL_MS, portalPasswordSchema, signupSchema } from './portal-auth.service.js';

const tags = ['portal'];

const sessionBody = z.strictObject({ success: z.literal(true), csrf_token: z.string(), ref_code: z.string() });
const ok = z.strictObject({ success: z.literal(true) });

/**
 * The portal's identity routes (docs/api.md#affiliate-portal), mounted under /portal/api by portalRoutes:
 * sign-in, invitations, resets, sign-up, email confirmation, the session and the password.
 */
export function portalAuthRoutes(app: RouteApp, ctx: AppContext): void {
  const { portalAuth } = ctx.services;
  const cookieOptions = { path: '/portal', httpOnly: true, sameSite: 'strict' as const, secure: ctx.config.secureCookies };
  // the session cookie, and (docs/api.md#fraud-review) the network signed in from, as a salted hash, for self_referral
  const signIn = async (request: { ip: string }, reply: { setCookie: (name: string, value: string, opts: object) => unknown }, token: string, refCode: string) => {
    reply.setCookie(PORTAL_COOKIE, token, { ...cookieOptions, maxAge: PORTAL_SESSION_TTL_MS / 1000 });
    const network = await ctx.services.clicks.publicNetworkHash(request.ip);
    if (network) await ctx.services.fraud.signedIn(refCode, network);
  };

  const login = {
    tags,
    summary: 'Sign in to the affiliate portal',
    description:
      'login is the ref code or the affiliate\'s confirmed email (ref_code is still accepted in its place; an unconfirmed email signs in nobody; an email several affiliates have confirmed signs in none of them: use the ref code). Sets the portal session cookie (svc_portal: HttpOnly, SameSite=Strict, Path=/portal); every portal mutation then sends the answered csrf_token as X-CSRF-Token. Wrong login or password, or an affiliate that is pending or disabled: 401. At most 5 failures per client IP and per login in 15 minutes, then 429.',
    body: z
      .strictObject({ login: z.string().trim().min(1).max(320).optional(), ref_code: z.string().min(1).max(64).optional(), password: z.string().min(1).max(1024) })
      .superRefine((b, ctx) => {
        if (b.login === undefined && b.ref_code === undefined) ctx.addIssue({ code: 'custom', path: ['login'], message: 'is required (your ref code or your email)' });
        if (b.login !== undefined && b.ref_code !== undefined) ctx.addIssue({ code: 'custom', path: ['ref_code'], message: 'give login or ref_code, not both' });
      }),
    responses: { 200: { description: 'Signed in', body: sessionBody }, ...errors(400, 401, 429) },
  };
  app.post('/login', { config: { portalPublic: true }, schema: login }, async (request, reply) => {
    const { token, session } = await portalAuth.login(request.body.login ?? request.body.ref_code ?? '', request.body.password, request.ip);
    await signIn(request, reply, token, session.refCode);
    return { success: true, csrf_token: session.csrfToken, ref_code: session.refCode };
  });

  const accept = {
    tags,
    summary: 'Accept an invitation: choose a password and sign in',
    description: 'The token is the one in the invite_url. An invitation works once and for 72 hours; unknown, used or expired: 400 naming token.',
    body: z.strictObject({ token: z.string().min(1).max(200), password: portalPasswordSchema }),
    responses: { 200: { description: 'Signed in', body: sessionBody }, ...errors(400, 401) },
  };
  app.post('/accept-invite', { config: { portalPublic: true }, schema: accept }, async (request, reply) => {
    const { token, session } = await portalAuth.acceptInvite(request.body.token, request.body.password);
    await signIn(request, reply, token, session.refCode);
    return { success: true, csrf_token: session.csrfToken, ref_code: session.refCode };
  });

  const forgot = {
    tags,
    summary: 'Forgot password: mail a reset link',
    description:
      'login is a ref code or an email. Always 202 with the same answer, whether or not it names an affiliate; when it names active affiliates with a confirmed email, each gets a mail with a single-use link valid 1 hour (POST /portal/api/reset-password), at most 5 mails an hour to one address from sign-ups and password resets together (beyond it none is sent, and the answer is the same). mail: queued, or not_configured when this svc sends no mail. At most 10 requests per client IP in 15 minutes and 3 per login in an hour, then 429.',
    body: z.strictObject({ login: z.string().trim().min(1).max(320) }),
    responses: {
      202: { description: 'Accepted (the same whether or not the login exists)', body: z.strictObject({ success: z.literal(true), mail: z.enum(['queued', 'not_configured']) }) },
      ...errors(400, 429),
    },
  };
  app.post('/forgot-password', { config: { portalPublic: true }, schema: forgot }, async (request, reply) => {
    const mail = await portalAuth.forgotPassword(request.body.login, request.ip);
    return reply.code(202).send({ success: true, mail: mail === 'not_configured' ? 'not_configured' : 'queued' });
  });

  const reset = {
    tags,
    summary: 'Set a new password from a reset link and sign in',
    description:
      'The token is the one in the reset link (…/portal/reset#token=…). It works once and for 1 hour; unknown, used, expired or older than the last password change: 400 naming token. Every session of the affiliate ends, and every other reset link and unused invitation is void.',
    body: z.strictObject({ token: z.string().min(1).max(200), password: portalPasswordSchema }),
    responses: { 200: { description: 'Signed in', body: sessionBody }, ...errors(400, 401) },
  };
  app.post('/reset-password', { config: { portalPublic: true }, schema: reset }, async (request, reply) => {
    const { token, session } = await portalAuth.resetPassword(request.body.token, request.body.password);
    await signIn(request, reply, token, session.refCode);
    return { success: true, csrf_token: session.csrfToken, ref_code: session.refCode };
  });

  const signup = {
    tags,
    summary: 'Sign up as an affiliate (when the affiliate_signup setting allows it)',
    description:
      'affiliate_signup `open`: the affiliate is created active and signed in (csrf_token, cookie). `review`: created pending, without a session, until the admin sets it active. `closed` (default): 403 signup_closed. At most 5 sign-up attempts per client IP in 15 minutes (successful ones included), then 429. The email is unconfirmed until the link mailed to it is followed (POST /portal/api/confirm-email); until then sign-in, resets and notifications do not use it: sign in with the ref code. Another affiliate naming the same email blocks nothing.',
    body: signupSchema,
    responses: {
      201: {
        description: 'Signed up',
        body: z.strictObject({
          success: z.literal(true),
          affiliate: affiliateBody,
          csrf_token: z.string().nullable().meta({ description: 'null while pending' }),
          confirmation_mail: z.enum(['queued', 'not_configured']).meta({
            description:
              'queued: a confirmation link (single use, 24 hours) is mailed to the email, unless that address already had 5 mails from sign-ups and password resets in the last hour; not_configured: this svc sends no mail, so the email stays unconfirmed',
          }),
        }),
      },
      ...errors(400, 403, 409, 429),
    },
  };
  app.post('/signup', { config: { portalPublic: true }, schema: signup }, async (request, reply) => {
    const { refCode, signedIn, confirmationMail } = await portalAuth.signup(request.body, request.ip);
    if (signedIn) await signIn(request, reply, signedIn.token, refCode);
    const affiliate = affiliateJson(await ctx.services.affiliates.get(refCode));
    return reply.code(201).send({ success: true, affiliate, csrf_token: signedIn?.session.csrfToken ?? null, confirmation_mail: confirmationMail });
  });

  const confirmEmail = {
    tags,
    summary: 'Confirm an email address from the link mailed to it',
    description:
      'The token is the one in the confirmation link (…/portal/confirm-email#token=…); no session needed. It works once and for 24 hours; unknown, used, expired, or for an address the affiliate no longer has: 400 naming token. When another affiliate already has the address confirmed: 409 email_taken, and nothing changes. Once confirmed the email signs in, gets password resets and notifications.',
    body: z.strictObject({ token: z.string().min(1).max(200) }),
    responses: {
      200: { description: 'Confirmed', body: z.strictObject({ success: z.literal(true), ref_code: z.string(), email: z.string() }) },
      ...errors(400, 409),
    },
  };
  app.post('/confirm-email', { config: { portalPublic: true }, schema: confirmEmail }, async (request) => {
    const { refCode, email } = await portalAuth.confirmEmail(request.body.token);
    return { success: true, ref_code: refCode, email };
  });

  const resendConfirmation = {
    tags,
    summary: "Mail a new confirmation link to the signed-in affiliate's email",
    description:
      'Always 202 with the same answer while the email is unconfirmed; the mail counts against the cap of 5 mails an hour to one address from sign-ups, password resets and these (beyond it none is sent). mail: queued, not_configured (this svc sends no mail) or no_email. Already confirmed: 409 email_already_confirmed.',
    responses: {
      202: { description: 'Accepted', body: z.strictObject({ success: z.literal(true), mail: z.enum(['queued', 'not_configured', 'no_email']) }) },
      ...errors(409),
    },
  };
  app.post('/confirm-email/resend', { schema: resendConfirmation }, async (request, reply) => {
    const mail = await portalAuth.resendConfirmation(portalSessionOf(request));
    return reply.code(202).send({ success: true, mail });
  });

  const signupMode = {
    tags,
    summary: 'Whether sign-up is open, reviewed or closed (the affiliate_signup setting)',
    description: 'For the sign-in and sign-up pages: they offer sign-up only when it is not closed. No session needed.',
    responses: { 200: { description: 'The sign-up mode', body: z.strictObject({ success: z.literal(true), signup: z.enum(AFFILIATE_SIGNUP) }) } },
  };
  app.get('/signup', { config: { portalPublic: true }, schema: signupMode }, async () => ({
    success: true as const,
    signup: (await ctx.services.settings.get()).affiliate_signup,
  }));

  app.post('/logout', { schema: { tags, summary: 'Sign out of the portal (ends this session)', responses: { 200: { description: 'Signed out', body: ok } } } }, async (request, reply) => {
    await portalAuth.logout(portalSessionOf(request));
    reply.clearCookie(PORTAL_COOKIE, cookieOptions);
    return { success: true };
  });

  const current = { tags, summary: 'The signed-in affiliate and the CSRF token of this session', responses: { 200: { description: 'The session', body: sessionBody } } };
  app.get('/session', { schema: current }, async (request) => {
    const session = portalSessionOf(request);
    return { success: true, csrf_token: session.csrfToken, ref_code: session.refCode };
  });

  const password = {
    tags,
    summary: 'Change the password',
    description: "Other sessions of the affiliate end. A wrong current_password is 400 naming it; 5 wrong ones per 15 minutes, then 429.",
    body: z.strictObject({ current_password: z.string().min(1).max(1024), new_password: portalPasswordSchema }),
    responses: { 200: { description: 'Changed', body: ok }, ...errors(400, 429) },
  };
  app.post('/password', { schema: password }, async (request) => {
    await portalAuth.changePassword(portalSessionOf(request), request.body.current_password, request.body.new_password, request.ip);
    return { success: true };
  });
}
