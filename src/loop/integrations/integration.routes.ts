import { isUtf8 } from 'node:buffer';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { IntegrationProvider } from '../../platform/db/schema.js';
import { AppError } from '../../platform/errors.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, isoTime, pageOf } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { ACTED_ON } from './provider-events.js';

/** A provider's event is far smaller; a larger body is refused (413) before it is read. */
export const INTEGRATION_BODY_LIMIT = 1024 * 1024;

const PROVIDERS = {
  stripe: { name: 'Stripe', header: 'stripe-signature', scheme: 'Stripe-Signature (t=…,v1=…: HMAC-SHA256 of "t.body", verified by Stripe\'s library, 5 minutes tolerance)' },
  paddle: { name: 'Paddle Billing', header: 'paddle-signature', scheme: 'Paddle-Signature (ts=…;h1=…: HMAC-SHA256 of "ts:body", verified by Paddle\'s SDK with its tolerance)' },
  lemonsqueezy: { name: 'Lemon Squeezy', header: 'x-signature', scheme: 'X-Signature (hex HMAC-SHA256 of the body)' },
} as const satisfies Record<IntegrationProvider, { name: string; header: string; scheme: string }>;

const outcome = z.enum(['applied', 'ignored', 'failed']);

const receiptBody = z.strictObject({
  success: z.literal(true),
  duplicate: z.boolean().meta({ description: 'true when this delivery repeats an event acted on already (nothing happened now)' }),
  outcome,
  reason: z.string().nullable(),
  order_id: z.string().nullable(),
});

export const integrationEventBody = z.strictObject({
  id: z.string(),
  provider: z.enum(['stripe', 'paddle', 'lemonsqueezy']),
  type: z.string().meta({ description: 'The provider\'s event type' }),
  provider_event_id: z.string().nullable().meta({ description: 'null for Lemon Squeezy, which sends none' }),
  received_at: isoTime,
  outcome,
  reason: z
    .string()
    .nullable()
    .meta({
      description:
        'Why it was ignored or failed: unhandled_event_type, currency_mismatch, order_exists, awaiting_order (a refund kept until its order arrives), waiting_for_customer (a Paddle transaction kept until its customer notification arrives, then booked and applied), already_refunded, not_paid, nothing_paid, amount_too_large, not_approved, not_a_refund, first_payment_is_its_order, no_email, no_order_id, nothing_to_link, amount_not_exact',
    }),
  order_id: z.string().nullable(),
});

const statusBody = z.strictObject({
  success: z.literal(true),
  providers: z.array(
    z.strictObject({
      provider: z.enum(['stripe', 'paddle', 'lemonsqueezy']),
      events: z.array(z.string()).meta({ description: 'The event types to enable in the provider\'s webhook settings: the ones svc acts on' }),
      waiting_for_customer: z.number().int().meta({ description: 'Paddle: transactions received whose customer notification (customer.created / customer.updated) has not arrived; each is booked when it does' }),
      awaiting_email: z.number().int().meta({ description: 'Paddle: transactions booked at once by their custom_data.svc_ref whose order email is filled in when the customer notification arrives' }),
    }),
  ),
});

const listSchema = listQuerySchema.extend({ provider: z.enum(['stripe', 'paddle', 'lemonsqueezy']).optional() });

/** The providers' webhook endpoints: public, trusting only each provider's signature over the raw body. */
export function integrationPublicRoutes(app: RouteApp, ctx: AppContext): void {
  // The raw bytes, whatever the content type: the signature covers them exactly, and nothing else looks at
  // them first (docs/architecture.md#every-route). Every provider signs UTF-8 JSON, and their libraries
  // decode the body before the HMAC: bytes that are not UTF-8 cannot verify, and decoding them cost the
  // event loop 70-400 ms per MiB (route-sweep.test.ts, raw bytes), so they are refused by the native
  // check alone (under 1 ms per MiB).
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: INTEGRATION_BODY_LIMIT }, (_request, body, done) => {
    const raw = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
    if (!isUtf8(raw)) return done(new AppError(400, 'invalid_signature', 'The body is not UTF-8 text, so no provider signed it'), undefined);
    done(null, raw);
  });
  for (const [provider, p] of Object.entries(PROVIDERS) as [IntegrationProvider, (typeof PROVIDERS)[IntegrationProvider]][]) {
    const schema = {
      tags: ['integrations'],
      summary: `Receive a ${p.name} webhook event`,
      description: `Point ${p.name}'s webhook at this URL with the secret in the setting ${provider}_webhook_secret. Trusts only ${p.scheme}; a missing, wrong or stale signature, or an unset secret, is 400 invalid_signature and records nothing. Acted on: ${ACTED_ON[provider].join(', ')}. Any other type answers 200 and changes nothing. Each event is acted on once however often it is delivered.`,
      responses: {
        200: { description: 'Received (acted on now, before, or ignored)', body: receiptBody },
        ...errors(400, 413),
      },
    };
    app.post(`/integrations/${provider}`, { schema, bodyLimit: INTEGRATION_BODY_LIMIT }, async (request) => {
      const raw = Buffer.isBuffer(request.body) ? request.body : Buffer.alloc(0);
      const header = request.headers[p.header];
      const r = await ctx.services.integrations.receive(provider, raw, typeof header === 'string' ? header : undefined);
      return { success: true, duplicate: !r.first, outcome: r.outcome, reason: r.reason, order_id: r.orderId };
    });
  }
}

/** The admin's log of received provider events. */
export function integrationAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const list = {
    tags: ['integrations'],
    summary: 'List received billing-system events, newest first',
    description: 'Every verified event from Stripe, Paddle and Lemon Squeezy, with what svc did with it.',
    querystring: listSchema,
    responses: { 200: { description: 'A page', body: pageOf(integrationEventBody) }, ...errors(400) },
  };
  app.get('/integrations/events', { schema: list }, async (request) => {
    const { provider, cursor, limit } = request.query;
    return { success: true, ...(await ctx.services.integrations.list({ provider, cursor, limit })) };
  });
  const status = {
    tags: ['integrations'],
    summary: 'Per billing system: the events to enable, and the Paddle transactions waiting for their customer',
    description: 'What the Integrations page shows: per provider the event types svc acts on (enable exactly these), and for Paddle how many transactions wait for their customer\'s notification.',
    responses: { 200: { description: 'Per provider', body: statusBody } },
  };
  app.get('/integrations/status', { schema: status }, async () => {
    const providers = await ctx.services.integrations.status();
    return {
      success: true,
      providers: providers.map((p) => ({ provider: p.provider, events: [...p.events], waiting_for_customer: p.waitingForCustomer, awaiting_email: p.awaitingEmail })),
    };
  });
}
