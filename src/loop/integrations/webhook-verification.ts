import { createHmac, timingSafeEqual } from 'node:crypto';
import { NodeRuntime, Webhooks as PaddleWebhooks } from '@paddle/paddle-node-sdk';
import Stripe from 'stripe';
import type { IntegrationProvider } from '../../platform/db/schema.js';
import { AppError } from '../../platform/errors.js';
import { readJsonBody } from '../../platform/http/input-guards.js';
import { lemonSqueezyEvent, paddleEvent, type ProviderEvent, stripeEvent } from './provider-events.js';

/** Stripe's own default: a signature older than five minutes is refused (replays). */
const STRIPE_TOLERANCE_S = 300;

export class InvalidSignatureError extends AppError {
  constructor(message: string) {
    super(400, 'invalid_signature', message);
  }
}

const stripeWebhooks = Stripe.webhooks;
// what `new Paddle(apiKey)` does first: the SDK's HMAC runs on Node's crypto (no API key is needed to verify)
NodeRuntime.initialize();
const paddleWebhooks = new PaddleWebhooks();

/**
 * A delivery's event, read only once its signature over the raw bytes verifies with the provider's secret
 * (docs/api.md, "Integrations"); else InvalidSignatureError, and nothing is recorded. `now`: Stripe's tolerance.
 */
export async function verifiedEvent(provider: IntegrationProvider, raw: Buffer, signature: string, secret: string, now: number): Promise<ProviderEvent> {
  if (provider === 'stripe') {
    // the signature alone (constructEvent would also parse, without the bounds of parseJson)
    const verifier = stripeWebhooks.signature;
    if (!verifier) throw new Error("Stripe's library has no signature helper");
    try {
      verifier.verifyHeader(raw, signature, secret, STRIPE_TOLERANCE_S, undefined, now);
    } catch {
      throw new InvalidSignatureError('The Stripe-Signature does not verify (wrong secret, altered body, or older than 5 minutes)');
    }
    return stripeEvent(asObject(parseJson(raw.toString('utf8'))));
  }
  if (provider === 'paddle') {
    const text = raw.toString('utf8');
    // Paddle's SDK checks the signature and its own timestamp tolerance
    const valid = await paddleWebhooks.isSignatureValid(text, secret, signature).catch(() => false);
    if (!valid) throw new InvalidSignatureError('The Paddle-Signature does not verify (wrong secret, altered body, or stale)');
    return paddleEvent(asObject(parseJson(text)));
  }
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = /^[0-9a-f]{64}$/i.test(signature) ? Buffer.from(signature, 'hex') : undefined;
  if (!given || !timingSafeEqual(expected, given)) throw new InvalidSignatureError('The X-Signature does not verify (wrong secret or altered body)');
  return lemonSqueezyEvent(asObject(parseJson(raw.toString('utf8'))));
}

export function invalidBody(message = 'The body is not a JSON object'): AppError {
  return new AppError(400, 'invalid_request', message);
}

/**
 * A verified body's JSON, read with the bounds of every request body (docs/architecture.md#every-route):
 * deeper than 32 levels or holding more than 10,000 values is refused by one linear scan before it is
 * parsed, so even a signed body cannot hold the event loop (route-sweep.test.ts, signed).
 */
function parseJson(text: string): unknown {
  const read = readJsonBody(text);
  if ('value' in read) return read.value;
  throw invalidBody();
}

function asObject(v: unknown): Record<string, unknown> {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) throw invalidBody();
  return v as Record<string, unknown>;
}
