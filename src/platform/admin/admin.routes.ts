import { z } from 'zod';
import { SESSION_TTL_MS } from '../auth/admin-auth.service.js';
import type { AppContext } from '../../context.js';
import { SESSION_COOKIE } from '../http/auth-hooks.js';
import { errors, one } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';
import { AFFILIATE_SIGNUP, FRAUD_RULE_SETTINGS, FRAUD_SIGNALS, PAYOUT_SCHEDULES, settingsView } from '../settings/settings.service.js';

const loginSchema = z.object({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1024),
});

/** A write-only secret as the settings answers show it (docs/api.md#settings): never its value. */
const secretBody = (what: string) =>
  z.strictObject({ set: z.boolean(), last4: z.string().nullable() }).meta({ description: `${what}: write-only; whether it is set and its last four characters (null when unset), never the value` });

/** The settings of docs/api.md#settings as the admin API shows them. */
export const settingsBody = z.strictObject({
  commission_rate: z.number().meta({ description: 'Percent, the global rate (an affiliate may override it)' }),
  cookie_lifetime_days: z.number().int(),
  landing_url: z.string(),
  webhook_url: z.string().nullable(),
  webhook_secret: secretBody('The secret that signs the webhook requests'),
  mailbox_ttl_hours: z.number().int(),
  mailbox_max_messages: z.number().int(),
  affiliate_signup: z.enum(AFFILIATE_SIGNUP).meta({ description: 'Portal self sign-up: closed (default), review (new affiliates are pending until approved), open' }),
  holding_days: z.number().int().nullable().meta({ description: 'Days after payment until a pending commission is approved automatically (a change applies to those already pending); null: approval is manual' }),
  stripe_webhook_secret: secretBody('The signing secret (whsec_…) of the Stripe webhook pointed at /integrations/stripe'),
  paddle_webhook_secret: secretBody('The secret key of the Paddle notification destination pointed at /integrations/paddle'),
  lemonsqueezy_webhook_secret: secretBody('The signing secret of the Lemon Squeezy webhook pointed at /integrations/lemonsqueezy'),
  admin_email: z.string().nullable().meta({ description: 'Where svc mails the admin (an affiliate awaiting review, the webhook failing); null: no such mail' }),
  message_events: z.boolean().meta({ description: 'true: every mailbox copy of an arriving message emits `message.received` (webhook and adapters); default false' }),
  currency: z.string().meta({ description: 'ISO 4217 program currency (default USD); money everywhere has its decimals; changes only while no order exists (409 currency_locked)' }),
  payout_minimum: z.number().nullable().meta({ description: 'The smallest withdrawal (422 below_payout_minimum); null: none' }),
  payout_schedule: z.enum(PAYOUT_SCHEDULES).meta({ description: 'manual (default) or monthly: once a month, at the first schedule tick on or after the 1st (UTC), every active affiliate with payout details and a balance reaching the minimum gets a withdrawal of it; switched to monthly, the first run is the next month\'s' }),
  sepa_debtor_name: z.string().nullable().meta({ description: 'The debtor of SEPA payout files' }),
  sepa_debtor_iban: z.string().nullable(),
  sepa_debtor_bic: z.string().nullable(),
  fraud_rules: z
    .strictObject(Object.fromEntries(FRAUD_SIGNALS.map((k) => [k, z.enum(FRAUD_RULE_SETTINGS)])) as Record<(typeof FRAUD_SIGNALS)[number], z.ZodEnum<{ off: 'off'; flag: 'flag'; hold: 'hold' }>>)
    .meta({ description: 'docs/api.md#fraud-review: what each signal does: off, flag (opens a case), hold (opens a case that holds the affiliate\'s commissions). Defaults: self_referral hold, duplicate_payout hold, click_burst flag, refund_rate flag; a PATCH may send any of them' }),
  fraud_click_burst: z.number().int().meta({ description: 'More than this many counted clicks on one link from one IPv4 /24 or IPv6 /48 within 10 minutes fires click_burst; the clicks past it are not counted (1–100000, default 30)' }),
  click_retention_days: z.number().int().meta({ description: 'Days raw clicks are kept (7–3650, default 90); older ones are removed daily. The counts per affiliate and day behind every figure are kept for good' }),
});

const ok = z.strictObject({ success: z.literal(true) });
const session = z.strictObject({ success: z.literal(true), csrf_token: z.string(), username: z.string() });
const apiKey = z.strictObject({ success: z.literal(true), api_key: z.string() });

/** Admin session, settings and API key (docs/api.md#admin-area, docs/api.md#settings). Mounted under /admin/api. */
export function adminRoutes(app: RouteApp, ctx: AppContext): void {
  const { adminAuth, settings, apiKeys } = ctx.services;
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: ctx.config.secureCookies,
  };

  const login = {
    summary: 'Sign in to the admin area',
    description:
      'Sets the HttpOnly, SameSite=Strict session cookie; every admin mutation then sends the answered csrf_token as X-CSRF-Token. Wrong credentials: 401; repeated failures are rate limited (429).',
    body: loginSchema,
    responses: { 200: { description: 'Signed in', body: session }, ...errors(400, 401, 429) },
  };
  app.post('/login', { config: { adminPublic: true }, schema: login }, async (request, reply) => {
    const { token, session } = await adminAuth.login(request.body.username, request.body.password, request.ip);
    reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
    return { success: true, csrf_token: session.csrfToken, username: session.username };
  });

  app.post('/logout', { schema: { summary: 'Sign out (ends this session)', responses: { 200: { description: 'Signed out', body: ok } } } }, async (request, reply) => {
    if (request.admin) await adminAuth.logout(request.admin);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return { success: true };
  });

  const current = { summary: 'The signed-in admin and the CSRF token of this session', responses: { 200: { description: 'The session', body: session } } };
  app.get('/session', { schema: current }, async (request) => ({
    success: true,
    username: request.admin?.username,
    csrf_token: request.admin?.csrfToken,
  }));

  app.get('/settings', { schema: { summary: 'Read the settings', responses: { 200: { description: 'The settings', body: one('settings', settingsBody) } } } }, async () => ({
    success: true,
    settings: settingsView(await settings.get()),
  }));

  const update = {
    summary: 'Change some settings',
    description:
      'Only the fields sent change (a secret not sent keeps its value). webhook_url "" or null clears it; URLs must be http(s) and, unless SVC_WEBHOOK_ALLOW_PRIVATE, not private. Secrets are write-only: the answer shows each as {set, last4}.',
    body: settings.patchSchema,
    responses: { 200: { description: 'The settings after the change', body: one('settings', settingsBody) }, ...errors(400) },
  };
  app.patch('/settings', { schema: update }, async (request) => ({ success: true, settings: settingsView(await settings.update(request.body)) }));

  app.get('/api-key', { schema: { summary: 'Read the current API key', responses: { 200: { description: 'The key', body: apiKey } } } }, async () => ({
    success: true,
    api_key: await apiKeys.current(),
  }));

  const rotate = {
    summary: 'Rotate the API key',
    description: 'The new key is valid at once and the old one invalid at once.',
    responses: { 200: { description: 'The new key', body: apiKey } },
  };
  app.post('/api-key/rotate', { schema: rotate }, async () => ({ success: true, api_key: await apiKeys.rotate() }));
}
