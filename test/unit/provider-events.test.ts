import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { lemonSqueezyEvent, paddleEvent } from '../../src/loop/integrations/provider-events.js';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited field by field
type Json = Record<string, any>;
const fixture = (name: string): Record<string, Json> => JSON.parse(readFileSync(new URL(`../fixtures/integrations/${name}.json`, import.meta.url), 'utf8')) as Record<string, Json>;
const LEMON = fixture('lemonsqueezy');
const PADDLE = fixture('paddle');

/** What each provider event books or refunds, by name (docs/api.md, "Integrations"). */
describe('provider event ids', () => {
  const withId = (e: Json, id: string): Json => {
    const c = structuredClone(e);
    c.data.id = id;
    return c;
  };

  it('Lemon Squeezy: an order and a renewal with the same number are two orders; each refund names its own', () => {
    const order = lemonSqueezyEvent(withId(LEMON.order_created!, '7'));
    const renewal = lemonSqueezyEvent(withId(LEMON.subscription_payment_success!, '7'));
    expect(order.action).toMatchObject({ kind: 'pay', orderId: 'lemonsqueezy:7', amountMinor: 2999, product: 'Lemonade Pro', refCode: 'alice' });
    expect(renewal.action).toMatchObject({ kind: 'pay', orderId: 'lemonsqueezy:invoice:7', amountMinor: 999, email: 'ls-buyer@svc.test' });
    expect(order.dedupeKey).not.toBe(renewal.dedupeKey);
    expect(lemonSqueezyEvent(withId(LEMON.order_refunded!, '7')).action).toMatchObject({ kind: 'refund', orderId: 'lemonsqueezy:7', minor: { total: 2999 } });
    const refund = lemonSqueezyEvent(withId(LEMON.subscription_payment_refunded!, '7'));
    expect(refund).toMatchObject({
      dedupeKey: 'subscription_payment_refunded:7:999',
      action: { kind: 'refund', orderId: 'lemonsqueezy:invoice:7', minor: { total: 999 }, voidReason: 'refunded', bookedBy: renewal.dedupeKey },
    });
  });

  it('Lemon Squeezy: a subscription\'s first payment is its order_created, not a renewal', () => {
    const initial = withId(LEMON.subscription_payment_success!, '8');
    initial.data.attributes.billing_reason = 'initial';
    expect(lemonSqueezyEvent(initial).action).toEqual({ kind: 'ignore', reason: 'first_payment_is_its_order' });
  });

  it('Paddle: a transaction names its customer and svc_ref, not an email', () => {
    const tx = structuredClone(PADDLE['transaction.completed']!);
    tx.data.custom_data = { svc_ref: 'alice' };
    expect(paddleEvent(tx).action).toMatchObject({
      kind: 'pay',
      orderId: 'paddle:txn_01hv8wptq8987qeep44cyrewp9',
      email: undefined,
      customerId: 'ctm_01hv8wt8nffez4p2t6tj6ascvd',
      refCode: 'alice',
      amountMinor: 3500,
    });
    expect(paddleEvent(PADDLE['customer.created']!).action).toEqual({ kind: 'customer', customerId: 'ctm_01hv8wt8nffez4p2t6tj6ascvd', email: 'Paddle-Buyer@svc.test' });
  });
});
