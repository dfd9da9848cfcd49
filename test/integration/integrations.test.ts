import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Stripe from 'stripe';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAffiliate, addMailbox, eventsOfType } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

// biome-ignore lint/suspicious/noExplicitAny: fixtures are edited field by field in the tests
type Json = Record<string, any>;
const fixture = (name: string): Record<string, Json> => JSON.parse(readFileSync(new URL(`../fixtures/integrations/${name}.json`, import.meta.url), 'utf8')) as Record<string, Json>;
const STRIPE = fixture('stripe');
const PADDLE = fixture('paddle');
const LEMON = fixture('lemonsqueezy');
const clone = (o: Json): Json => structuredClone(o);

const SECRETS = { stripe: 'whsec_test_0123456789abcdefghijkl', paddle: 'pdl_ntfset_01hv8x2aq_test_secret_key', lemonsqueezy: 'lemon-test-secret-42' };

/** docs/api.md, "Integrations": orders from Stripe, Paddle and Lemon Squeezy webhooks. */
describeEachDatabase('billing integrations', (dialect) => {
  let t: TestService;
  let sibling: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    sibling = await t.sibling();
    await addAffiliate(t, 'alice');
    await addAffiliate(t, 'bob', { rateBp: 2000 });
    await addMailbox(t, 'buyer@svc.test', 'bob');
    await addMailbox(t, 'subscriber@svc.test', 'alice');
    // alice gets a max_orders rule on the way: erin earns on every order
    await addAffiliate(t, 'erin');
    await addMailbox(t, 'erin-buyer@svc.test', 'erin');
    const admin = await t.admin();
    const res = await admin.call('PATCH', '/admin/api/settings', {
      stripe_webhook_secret: SECRETS.stripe,
      paddle_webhook_secret: SECRETS.paddle,
      lemonsqueezy_webhook_secret: SECRETS.lemonsqueezy,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().settings).toMatchObject({ stripe_webhook_secret: { set: true, last4: SECRETS.stripe.slice(-4) }, paddle_webhook_secret: { set: true, last4: SECRETS.paddle.slice(-4) } });
    sibling.service.ctx.services.settings.invalidate();
  });
  afterAll(async () => {
    await sibling?.close();
    await t?.close();
  });

  const stripeSign = (payload: string, at = Math.floor(t.clock.now() / 1000), secret = SECRETS.stripe) =>
    Stripe.webhooks.generateTestHeaderString({ payload, secret, timestamp: at });
  // Paddle's SDK cannot sign; its scheme (ts:body, HMAC-SHA256), with the real time its SDK checks against
  const paddleSign = (payload: string, at = Math.floor(Date.now() / 1000), secret = SECRETS.paddle) =>
    `ts=${at};h1=${createHmac('sha256', secret).update(`${at}:${payload}`).digest('hex')}`;
  const lemonSign = (payload: string, secret = SECRETS.lemonsqueezy) => createHmac('sha256', secret).update(payload).digest('hex');

  function send(provider: 'stripe' | 'paddle' | 'lemonsqueezy', event: Json, via: TestService = t) {
    const payload = JSON.stringify(event);
    const header: Record<string, string> =
      provider === 'stripe' ? { 'stripe-signature': stripeSign(payload) } : provider === 'paddle' ? { 'paddle-signature': paddleSign(payload) } : { 'x-signature': lemonSign(payload) };
    return via.request('POST', `/integrations/${provider}`, payload, { 'content-type': 'application/json', ...header });
  }
  const order = async (id: string) => (await t.api('GET', `/api/orders/${encodeURIComponent(id)}`)).json();
  const logged = async () => {
    const res = await (await t.admin()).call('GET', '/admin/api/integrations/events?limit=500');
    expect(res.statusCode, res.body).toBe(200);
    return res.json().items as Json[];
  };

  describe('signatures', () => {
    const body = JSON.stringify(STRIPE['checkout.session.completed']);
    it.each([
      ['missing', {}],
      ['wrong secret', { 'stripe-signature': Stripe.webhooks.generateTestHeaderString({ payload: body, secret: 'whsec_other' }) }],
      ['garbage', { 'stripe-signature': 't=abc,v1=zz' }],
    ])('Stripe, %s: 400 invalid_signature, nothing recorded', async (_name, headers: Record<string, string>) => {
      const res = await t.request('POST', '/integrations/stripe', body, { 'content-type': 'application/json', ...headers });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: { code: 'invalid_signature', message: expect.any(String) } });
      expect((await t.api('GET', '/api/orders/stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy')).statusCode).toBe(404);
      expect(await logged()).toEqual([]);
    });

    it('a stale Stripe signature (older than 5 minutes) and a replay of an old delivery are refused', async () => {
      const stale = stripeSign(body, Math.floor(t.clock.now() / 1000) - 301);
      const res = await t.request('POST', '/integrations/stripe', body, { 'content-type': 'application/json', 'stripe-signature': stale });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_signature');
      // an altered body under a valid header
      const altered = body.replace('4900', '9900');
      const res2 = await t.request('POST', '/integrations/stripe', altered, { 'content-type': 'application/json', 'stripe-signature': stripeSign(body) });
      expect(res2.json().error.code).toBe('invalid_signature');
      expect(await logged()).toEqual([]);
    });

    it('Paddle: wrong, stale or missing; Lemon Squeezy: wrong, not hex', async () => {
      const p = JSON.stringify(PADDLE['customer.created']);
      for (const h of [paddleSign(p, undefined, 'other'), paddleSign(p, Math.floor(Date.now() / 1000) - 60), 'nonsense']) {
        const res = await t.request('POST', '/integrations/paddle', p, { 'content-type': 'application/json', 'paddle-signature': h });
        expect([res.statusCode, res.json().error.code]).toEqual([400, 'invalid_signature']);
      }
      expect((await t.request('POST', '/integrations/paddle', p, { 'content-type': 'application/json' })).json().error.code).toBe('invalid_signature');
      const l = JSON.stringify(LEMON.order_created);
      for (const h of [lemonSign(l, 'other'), 'zz', lemonSign(l).toUpperCase().slice(2)]) {
        const res = await t.request('POST', '/integrations/lemonsqueezy', l, { 'content-type': 'application/json', 'x-signature': h });
        expect([res.statusCode, res.json().error.code]).toEqual([400, 'invalid_signature']);
      }
      expect(await logged()).toEqual([]);
    });

    it('an unset secret refuses every event', async () => {
      const other = await startTestService(dialect);
      try {
        const res = await send('stripe', STRIPE['checkout.session.completed']!, other);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('invalid_signature');
      } finally {
        await other.close();
      }
    });

    it('a Stripe API key pasted as the signing secret is refused (400, the field named) and not stored', async () => {
      const admin = await t.admin();
      const res = await admin.call('PATCH', '/admin/api/settings', { stripe_webhook_secret: 'sk_live_51NzAbCdEfGh' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.body).toContain('stripe_webhook_secret');
      expect(res.body).toContain('whsec_');
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.stripe_webhook_secret).toEqual({ set: true, last4: SECRETS.stripe.slice(-4) });
      expect((await t.service.ctx.services.settings.get()).stripe_webhook_secret).toBe(SECRETS.stripe);
    });
  });

  it('Stripe checkout.session.completed creates and pays the order, attributed by email; 5 deliveries at once on two instances act once', async () => {
    const event = STRIPE['checkout.session.completed']!;
    const answers = await Promise.all(Array.from({ length: 5 }, (_, i) => send('stripe', event, i % 2 ? sibling : t)));
    for (const a of answers) expect(a.statusCode).toBe(200);
    const bodies = answers.map((a) => a.json());
    expect(bodies.filter((b) => !b.duplicate)).toHaveLength(1);
    for (const b of bodies) expect(b).toMatchObject({ success: true, outcome: 'applied', reason: null, order_id: 'stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy' });
    const o = await order('stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy');
    expect(o.order).toMatchObject({ email: 'buyer@svc.test', amount: 49, currency: 'USD', product: 'Pro plan', status: 'paid' });
    expect(o.commission).toMatchObject({ ref_code: 'bob', commission: 9.8, currency: 'USD', status: 'pending' });
    const commissions = await t.service.ctx.db.selectFrom('commissions').selectAll().where('order_id', '=', 'stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy').execute();
    expect(commissions).toHaveLength(1);
    const paid = (await eventsOfType(t, 'order.paid')).filter((e) => JSON.stringify(e.data).includes('stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy'));
    expect(paid).toHaveLength(1);
    const log = (await logged()).filter((e) => e.provider_event_id === event.id);
    expect(log).toEqual([
      { id: expect.any(String), provider: 'stripe', type: 'checkout.session.completed', provider_event_id: event.id, received_at: '2026-01-15T12:00:00.000Z', outcome: 'applied', reason: null, order_id: 'stripe:pi_3QcS1dLkdIwHu7ix0KzZc8Xy' },
    ]);
  });

  it('partial charge.refunded events (cumulative amount_refunded) sum to the whole; a replay changes nothing', async () => {
    const ev = clone(STRIPE['checkout.session.completed']!);
    ev.id = 'evt_part_paid';
    ev.data.object.payment_intent = 'pi_part';
    await send('stripe', ev);
    const r1 = clone(STRIPE['charge.refunded']!);
    r1.id = 'evt_part_r1';
    r1.data.object.payment_intent = 'pi_part';
    r1.data.object.amount_refunded = 1900;
    const first = await send('stripe', r1);
    expect(first.json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:pi_part', duplicate: false });
    expect((await order('stripe:pi_part')).order).toMatchObject({ status: 'partially_refunded', refunded_amount: 19 });
    expect((await send('stripe', r1)).json()).toMatchObject({ duplicate: true, outcome: 'applied' });
    const r2 = clone(r1);
    r2.id = 'evt_part_r2';
    r2.data.object.amount_refunded = 4900;
    expect((await send('stripe', r2)).json()).toMatchObject({ outcome: 'applied', duplicate: false });
    const o = await order('stripe:pi_part');
    expect(o.order).toMatchObject({ status: 'refunded', refunded_amount: 49 });
    expect(o.commission).toMatchObject({ status: 'void', void_reason: 'refunded' });
    const refunded = (await eventsOfType(t, 'order.refunded')).filter((e) => JSON.stringify(e.data).includes('stripe:pi_part'));
    expect(refunded).toHaveLength(2);
  });

  it('a dispute refunds the disputed amount and voids with void_reason "disputed"', async () => {
    const ev = clone(STRIPE['checkout.session.completed']!);
    ev.id = 'evt_disp_paid';
    ev.data.object.payment_intent = 'pi_disp';
    await send('stripe', ev);
    const d = clone(STRIPE['charge.dispute.created']!);
    d.data.object.payment_intent = 'pi_disp';
    expect((await send('stripe', d)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:pi_disp' });
    const o = await order('stripe:pi_disp');
    expect(o.order).toMatchObject({ status: 'refunded', refunded_amount: 49 });
    expect(o.commission).toMatchObject({ status: 'void', void_reason: 'disputed' });
  });

  it('a dispute of an invoice\'s payment (named by its payment intent) refunds the invoice\'s order, before or after it arrives', async () => {
    const paid = clone(STRIPE['invoice.paid']!);
    paid.id = 'evt_inv_disp';
    paid.data.object.id = 'in_disp';
    paid.data.object.payment_intent = 'pi_inv_disp';
    paid.data.object.customer_email = 'buyer@svc.test';
    expect((await send('stripe', paid)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_disp' });
    const d = clone(STRIPE['charge.dispute.created']!);
    d.id = 'evt_inv_disp_d';
    d.data.object.payment_intent = 'pi_inv_disp';
    d.data.object.amount = 1900;
    expect((await send('stripe', d)).json()).toMatchObject({ outcome: 'applied', reason: null, order_id: 'stripe:in_disp' });
    const o = await order('stripe:in_disp');
    expect(o.order).toMatchObject({ status: 'refunded', refunded_amount: 19 });
    expect(o.commission).toMatchObject({ status: 'void', void_reason: 'disputed' });
    // the dispute first; the invoice (API 2025-03-31 and later: its payment intent under payments) after
    const d2 = clone(d);
    d2.id = 'evt_inv_disp_d2';
    d2.data.object.payment_intent = 'pi_inv_disp2';
    expect((await send('stripe', d2, sibling)).json()).toMatchObject({ outcome: 'ignored', reason: 'awaiting_order', order_id: 'stripe:pi_inv_disp2' });
    const paid2 = clone(paid);
    paid2.id = 'evt_inv_disp2';
    paid2.data.object.id = 'in_disp2';
    delete paid2.data.object.payment_intent;
    paid2.data.object.payments = { object: 'list', data: [{ object: 'invoice_payment', payment: { type: 'payment_intent', payment_intent: 'pi_inv_disp2' } }] };
    expect((await send('stripe', paid2)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_disp2' });
    expect((await order('stripe:in_disp2')).order).toMatchObject({ status: 'refunded', refunded_amount: 19 });
    expect((await logged()).find((e) => e.provider_event_id === 'evt_inv_disp_d2')).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_disp2' });
  });

  it('API 2025-03-31 and later: invoice_payment.paid ties an invoice to the payment intent its refunds (charges without invoice) name', async () => {
    const refund = clone(STRIPE['charge.refunded']!);
    refund.id = 'evt_basil_refund';
    delete refund.data.object.invoice;
    refund.data.object.payment_intent = 'pi_basil';
    refund.data.object.amount = 1900;
    refund.data.object.amount_refunded = 500;
    expect((await send('stripe', refund)).json()).toMatchObject({ outcome: 'ignored', reason: 'awaiting_order', order_id: 'stripe:pi_basil' });
    const paid = clone(STRIPE['invoice.paid']!);
    paid.id = 'evt_basil_paid';
    paid.data.object.id = 'in_basil';
    paid.data.object.customer_email = 'buyer@svc.test';
    delete paid.data.object.payment_intent;
    delete paid.data.object.charge;
    expect((await send('stripe', paid)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_basil' });
    const link = {
      id: 'evt_basil_link',
      object: 'event',
      api_version: '2025-03-31.basil',
      type: 'invoice_payment.paid',
      data: { object: { id: 'inpay_basil', object: 'invoice_payment', amount_paid: 1900, currency: 'usd', invoice: 'in_basil', is_default: true, payment: { type: 'payment_intent', payment_intent: 'pi_basil' }, status: 'paid' } },
    };
    expect((await send('stripe', link, sibling)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_basil' });
    expect((await send('stripe', link)).json()).toMatchObject({ duplicate: true });
    expect((await order('stripe:in_basil')).order).toMatchObject({ status: 'partially_refunded', refunded_amount: 5 });
    const more = clone(refund);
    more.id = 'evt_basil_refund2';
    more.data.object.amount_refunded = 1900;
    expect((await send('stripe', more)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_basil' });
    expect((await order('stripe:in_basil')).order).toMatchObject({ status: 'refunded', refunded_amount: 19 });
    expect((await logged()).find((e) => e.provider_event_id === 'evt_basil_refund')).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_basil' });
  });

  it('a refund before its order is kept and applied when the order arrives', async () => {
    const r = clone(STRIPE['charge.refunded']!);
    r.id = 'evt_early_refund';
    r.data.object.payment_intent = 'pi_early';
    r.data.object.amount_refunded = 900;
    const early = await send('stripe', r, sibling);
    expect(early.statusCode, early.body).toBe(200);
    expect(early.json()).toMatchObject({ outcome: 'ignored', reason: 'awaiting_order', order_id: 'stripe:pi_early' });
    const ev = clone(STRIPE['checkout.session.completed']!);
    ev.id = 'evt_early_paid';
    ev.data.object.payment_intent = 'pi_early';
    await send('stripe', ev);
    const o = await order('stripe:pi_early');
    expect(o.order).toMatchObject({ status: 'partially_refunded', refunded_amount: 9, amount: 49 });
    expect(o.commission).toMatchObject({ commission: 8, currency: 'USD', status: 'pending' }); // 20 % of 40.00
    const row = (await logged()).find((e) => e.provider_event_id === 'evt_early_refund');
    expect(row).toMatchObject({ outcome: 'applied', reason: null, order_id: 'stripe:pi_early' });
  });

  it('a subscription: the second invoice is a second order, commission per the rule\'s max_orders', async () => {
    expect((await t.api('POST', '/api/commission-rules', { ref_code: 'alice', rate: 30, max_orders: 1 })).statusCode).toBe(201);
    const first = STRIPE['invoice.paid']!;
    const second = clone(first);
    second.id = 'evt_inv_2';
    second.data.object.id = 'in_second';
    second.data.object.billing_reason = 'subscription_cycle';
    expect((await send('stripe', first)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_1QcT0aLkdIwHu7ixSubInv001' });
    t.clock.advance(30 * 86_400_000);
    expect((await send('stripe', second)).json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:in_second' });
    const one = await order('stripe:in_1QcT0aLkdIwHu7ixSubInv001');
    const two = await order('stripe:in_second');
    expect(one.order).toMatchObject({ product: '1 × Team plan (at $19.00 / month)', amount: 19, status: 'paid' });
    expect(one.commission).toMatchObject({ ref_code: 'alice', commission: 5.7 });
    expect(two.order).toMatchObject({ status: 'paid', amount: 19 });
    expect(two.commission).toBeNull();
  });

  it('another currency is not booked (currency_mismatch); an unknown type answers 200 and changes nothing', async () => {
    const jpy = clone(STRIPE['checkout.session.completed']!);
    jpy.id = 'evt_jpy';
    jpy.data.object.currency = 'jpy';
    jpy.data.object.amount_total = 4900;
    jpy.data.object.payment_intent = 'pi_jpy';
    expect((await send('stripe', jpy)).json()).toEqual({ success: true, duplicate: false, outcome: 'ignored', reason: 'currency_mismatch', order_id: 'stripe:pi_jpy' });
    expect((await t.api('GET', '/api/orders/stripe:pi_jpy')).statusCode).toBe(404);
    const before = await t.api('GET', '/api/orders?limit=500');
    const unknown = await send('stripe', STRIPE['customer.created']!);
    expect(unknown.statusCode).toBe(200);
    expect(unknown.json()).toMatchObject({ outcome: 'ignored', reason: 'unhandled_event_type', order_id: null });
    expect((await t.api('GET', '/api/orders?limit=500')).json().items).toEqual(before.json().items);
  });

  it('an amount that is not exact or beyond the largest order fails, logged, and books nothing', async () => {
    const odd = clone(STRIPE['checkout.session.completed']!);
    odd.id = 'evt_odd';
    odd.data.object.payment_intent = 'pi_odd';
    odd.data.object.amount_total = 12.5;
    expect((await send('stripe', odd)).json()).toMatchObject({ outcome: 'failed', reason: 'amount_not_exact' });
    const huge = clone(odd);
    huge.id = 'evt_huge';
    huge.data.object.amount_total = 100_000_000_001;
    expect((await send('stripe', huge)).json()).toMatchObject({ outcome: 'failed', reason: 'amount_too_large' });
    expect((await t.api('GET', '/api/orders/stripe:pi_odd')).statusCode).toBe(404);
  });

  it('a paid or refund event that names no id of what was paid fails (no_order_id) and books no order "<provider>:"', async () => {
    const inv = clone(STRIPE['invoice.paid']!);
    inv.id = 'evt_no_inv_id';
    delete inv.data.object.id;
    expect((await send('stripe', inv)).json()).toEqual({ success: true, duplicate: false, outcome: 'failed', reason: 'no_order_id', order_id: null });
    expect((await t.api('GET', '/api/orders/stripe:')).statusCode).toBe(404);
    const lemon = clone(LEMON.order_created!);
    delete lemon.data.id;
    expect((await send('lemonsqueezy', lemon)).json()).toMatchObject({ outcome: 'failed', reason: 'no_order_id', order_id: null });
    const refund = clone(LEMON.order_refunded!);
    delete refund.data.id;
    expect((await send('lemonsqueezy', refund)).json()).toMatchObject({ outcome: 'failed', reason: 'no_order_id', order_id: null });
    expect((await t.api('GET', '/api/orders/lemonsqueezy:')).statusCode).toBe(404);
  });

  it('Stripe async payment with client_reference_id: attributed to that affiliate when the email names none', async () => {
    const res = await send('stripe', STRIPE['checkout.session.async_payment_succeeded']!);
    expect(res.json()).toMatchObject({ outcome: 'applied', order_id: 'stripe:pi_3QcS3aLkdIwHu7ix1SepaDeb' });
    const o = await order('stripe:pi_3QcS3aLkdIwHu7ix1SepaDeb');
    expect(o.order).toMatchObject({ email: 'newcomer@example.com', amount: 25, product: 'Stripe' });
    expect(o.commission).toMatchObject({ ref_code: 'alice' });
  });

  it('Paddle: the customer is learnt, then its transaction pays, then an approved refund adjustment refunds once', async () => {
    const tx = PADDLE['transaction.completed']!;
    expect((await send('paddle', PADDLE['customer.created']!)).json()).toMatchObject({ outcome: 'applied' });
    const withRef = clone(tx);
    withRef.data.custom_data = { svc_ref: 'alice' };
    const paid = await send('paddle', withRef);
    expect(paid.json()).toMatchObject({ outcome: 'applied', order_id: 'paddle:txn_01hv8wptq8987qeep44cyrewp9' });
    const o = await order('paddle:txn_01hv8wptq8987qeep44cyrewp9');
    expect(o.order).toMatchObject({ email: 'paddle-buyer@svc.test', amount: 35, product: 'Monthly (per seat)' });
    expect(o.commission).toMatchObject({ ref_code: 'alice' });
    const adj = PADDLE['adjustment.created']!;
    expect((await send('paddle', adj)).json()).toMatchObject({ outcome: 'applied' });
    const updated = clone(adj);
    updated.event_id = 'evt_adj_updated';
    updated.event_type = 'adjustment.updated';
    expect((await send('paddle', updated)).json()).toMatchObject({ duplicate: true });
    expect((await order('paddle:txn_01hv8wptq8987qeep44cyrewp9')).order).toMatchObject({ status: 'partially_refunded', refunded_amount: 10 });
  });

  it('Lemon Squeezy: order_created by svc_ref, a renewal is a second order, order_refunded refunds', async () => {
    expect((await send('lemonsqueezy', LEMON.order_created!)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:1' });
    const o = await order('lemonsqueezy:1');
    expect(o.order).toMatchObject({ email: 'ls-buyer@svc.test', amount: 29.99, currency: 'USD', product: 'Lemonade Pro', status: 'paid' });
    expect((await send('lemonsqueezy', LEMON.subscription_payment_success!)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:invoice:101' });
    const initial = clone(LEMON.subscription_payment_success!);
    initial.data.id = '100';
    initial.data.attributes.billing_reason = 'initial';
    expect((await send('lemonsqueezy', initial)).json()).toMatchObject({ outcome: 'ignored', reason: 'first_payment_is_its_order' });
    expect((await send('lemonsqueezy', LEMON.order_refunded!)).json()).toMatchObject({ outcome: 'applied' });
    expect((await send('lemonsqueezy', LEMON.order_refunded!)).json()).toMatchObject({ duplicate: true });
    expect((await order('lemonsqueezy:1')).order).toMatchObject({ status: 'refunded', refunded_amount: 29.99 });
  });

  describe('Paddle transactions before their customer', () => {
    /** A transaction.completed of its own (ids from `n`) for the customer `customerId`. */
    const paddleTx = (n: string, customerId: string, svcRef?: string): Json => {
      const e = clone(PADDLE['transaction.completed']!);
      e.event_id = `evt_tx_${n}`;
      e.data.id = `txn_${n}`;
      e.data.customer_id = customerId;
      e.data.custom_data = svcRef ? { svc_ref: svcRef } : null;
      return e;
    };
    const paddleCustomer = (n: string, customerId: string, email: string, type = 'customer.created'): Json => {
      const e = clone(PADDLE['customer.created']!);
      e.event_id = `evt_ctm_${n}`;
      e.event_type = type;
      e.data.id = customerId;
      e.data.email = email;
      return e;
    };
    const status = async () => {
      const res = await (await t.admin()).call('GET', '/admin/api/integrations/status');
      expect(res.statusCode, res.body).toBe(200);
      const paddle = (res.json().providers as Json[]).find((p) => p.provider === 'paddle')!;
      return { waiting: paddle.waiting_for_customer as number, awaitingEmail: paddle.awaiting_email as number, events: paddle.events as string[] };
    };
    const paidEventsOf = async (orderId: string) => (await eventsOfType(t, 'order.paid')).filter((e) => (e.data as Json).order.id === orderId);
    const loggedOf = async (eventId: string) => (await logged()).find((e) => e.provider_event_id === eventId);

    it('is answered 200 and kept; its customer.created books it once, with a refund that waited for it; redeliveries of both change nothing', async () => {
      const before = await status();
      const tx = paddleTx('wait1', 'ctm_wait1');
      const early = await send('paddle', tx);
      expect(early.statusCode).toBe(200);
      expect(early.json()).toEqual({ success: true, duplicate: false, outcome: 'ignored', reason: 'waiting_for_customer', order_id: 'paddle:txn_wait1' });
      expect((await t.api('GET', '/api/orders/paddle:txn_wait1')).statusCode).toBe(404);
      expect(await status()).toMatchObject({ waiting: before.waiting + 1 });
      expect((await send('paddle', tx)).json()).toMatchObject({ duplicate: true, outcome: 'ignored', reason: 'waiting_for_customer' });
      // a refund of it waits for its order
      const adj = clone(PADDLE['adjustment.created']!);
      adj.event_id = 'evt_adj_wait1';
      adj.data.id = 'adj_wait1';
      adj.data.transaction_id = 'txn_wait1';
      expect((await send('paddle', adj)).json()).toMatchObject({ outcome: 'ignored', reason: 'awaiting_order' });

      const customer = paddleCustomer('wait1', 'ctm_wait1', 'Erin-Buyer@svc.test');
      expect((await send('paddle', customer)).json()).toMatchObject({ duplicate: false, outcome: 'applied' });
      const o = await order('paddle:txn_wait1');
      expect(o.order).toMatchObject({ email: 'erin-buyer@svc.test', amount: 35, product: 'Monthly (per seat)', status: 'partially_refunded', refunded_amount: 10 });
      expect(o.commission).toMatchObject({ ref_code: 'erin', amount: 35 });
      expect(await loggedOf('evt_tx_wait1')).toMatchObject({ outcome: 'applied', reason: null, order_id: 'paddle:txn_wait1' });
      expect(await loggedOf('evt_adj_wait1')).toMatchObject({ outcome: 'applied', reason: null, order_id: 'paddle:txn_wait1' });
      expect(await status()).toMatchObject({ waiting: before.waiting });

      expect((await send('paddle', customer)).json()).toMatchObject({ duplicate: true });
      expect((await send('paddle', tx)).json()).toMatchObject({ duplicate: true, outcome: 'applied', order_id: 'paddle:txn_wait1' });
      expect((await send('paddle', paddleCustomer('wait1-upd', 'ctm_wait1', 'erin-buyer@svc.test', 'customer.updated'))).json()).toMatchObject({ duplicate: false, outcome: 'applied' });
      expect(await paidEventsOf('paddle:txn_wait1')).toHaveLength(1);
      const commissions = (await t.api('GET', '/api/commissions?ref_code=erin&limit=100')).json().items as Json[];
      expect(commissions.filter((c) => c.order_id === 'paddle:txn_wait1')).toHaveLength(1);
      expect((await order('paddle:txn_wait1')).order).toMatchObject({ refunded_amount: 10 });
    });

    it('with custom_data.svc_ref of an active affiliate: booked at once with no email, which its customer notification fills in (attribution kept)', async () => {
      const before = await status();
      const res = await send('paddle', paddleTx('ref1', 'ctm_ref1', 'erin'));
      expect(res.json()).toEqual({ success: true, duplicate: false, outcome: 'applied', reason: null, order_id: 'paddle:txn_ref1' });
      const o = await order('paddle:txn_ref1');
      expect(o.order).toMatchObject({ email: '', amount: 35, status: 'paid' });
      expect(o.commission).toMatchObject({ ref_code: 'erin', amount: 35 });
      expect(await paidEventsOf('paddle:txn_ref1')).toMatchObject([{ data: { order: { email: '' }, ref_code: 'erin' } }]);
      expect(await status()).toEqual({ waiting: before.waiting, awaitingEmail: before.awaitingEmail + 1, events: expect.arrayContaining(['transaction.completed', 'customer.created', 'customer.updated']) });

      // the email is bob's mailbox: the order stays erin's, with one commission
      expect((await send('paddle', paddleCustomer('ref1', 'ctm_ref1', 'buyer@svc.test'))).json()).toMatchObject({ outcome: 'applied' });
      const after = await order('paddle:txn_ref1');
      expect(after.order).toMatchObject({ email: 'buyer@svc.test', status: 'paid' });
      expect(after.commission).toMatchObject({ id: o.commission.id, ref_code: 'erin' });
      expect(await status()).toMatchObject({ awaitingEmail: before.awaitingEmail });
      // another email later does not overwrite the one filled in
      expect((await send('paddle', paddleCustomer('ref1-upd', 'ctm_ref1', 'other@example.com', 'customer.updated'))).json()).toMatchObject({ outcome: 'applied' });
      expect((await order('paddle:txn_ref1')).order.email).toBe('buyer@svc.test');
      expect(await paidEventsOf('paddle:txn_ref1')).toHaveLength(1);
    });

    it('with svc_ref of a disabled or unknown affiliate: waits; its customer books every transaction it waited for', async () => {
      await addAffiliate(t, 'dora', { status: 'disabled' });
      expect((await send('paddle', paddleTx('dis1', 'ctm_dis', 'dora'))).json()).toMatchObject({ outcome: 'ignored', reason: 'waiting_for_customer' });
      expect((await send('paddle', paddleTx('unk1', 'ctm_dis', 'nobody'))).json()).toMatchObject({ outcome: 'ignored', reason: 'waiting_for_customer' });
      expect((await t.api('GET', '/api/orders/paddle:txn_dis1')).statusCode).toBe(404);
      expect((await send('paddle', paddleCustomer('dis', 'ctm_dis', 'walkin-paddle@example.com'))).json()).toMatchObject({ outcome: 'applied' });
      for (const id of ['paddle:txn_dis1', 'paddle:txn_unk1']) {
        const o = await order(id);
        expect(o.order).toMatchObject({ email: 'walkin-paddle@example.com', status: 'paid' });
        expect(o.commission).toBeNull();
      }
    });

    it('two instances receiving its customer notifications at once book each waiting transaction once', async () => {
      const ids = ['race1', 'race2', 'race3'];
      for (const n of ids) expect((await send('paddle', paddleTx(n, 'ctm_race'))).json()).toMatchObject({ reason: 'waiting_for_customer' });
      const created = paddleCustomer('race', 'ctm_race', 'erin-buyer@svc.test');
      const updated = paddleCustomer('race-upd', 'ctm_race', 'erin-buyer@svc.test', 'customer.updated');
      const answers = await Promise.all([send('paddle', created), send('paddle', created, sibling), send('paddle', updated, sibling), send('paddle', updated), send('paddle', created, sibling)]);
      expect(answers.map((r) => r.statusCode)).toEqual([200, 200, 200, 200, 200]);
      expect(answers.filter((r) => !r.json().duplicate)).toHaveLength(2);
      const commissions = (await t.api('GET', '/api/commissions?ref_code=erin&limit=100')).json().items as Json[];
      for (const n of ids) {
        expect((await order(`paddle:txn_${n}`)).order).toMatchObject({ email: 'erin-buyer@svc.test', status: 'paid' });
        expect(await paidEventsOf(`paddle:txn_${n}`)).toHaveLength(1);
        expect(commissions.filter((c) => c.order_id === `paddle:txn_${n}`)).toHaveLength(1);
        expect(await loggedOf(`evt_tx_${n}`)).toMatchObject({ outcome: 'applied', reason: null });
      }
    });

    it('a transaction and its customer notification arriving at once on two instances: booked once, never left waiting', async () => {
      const ns = ['both1', 'both2', 'both3', 'both4'];
      await Promise.all(
        ns.flatMap((n, k) => [
          send('paddle', paddleTx(n, `ctm_${n}`), k % 2 ? t : sibling),
          send('paddle', paddleCustomer(n, `ctm_${n}`, 'erin-buyer@svc.test'), k % 2 ? sibling : t),
        ]),
      );
      for (const n of ns) {
        expect((await order(`paddle:txn_${n}`)).order).toMatchObject({ email: 'erin-buyer@svc.test', status: 'paid' });
        expect(await paidEventsOf(`paddle:txn_${n}`)).toHaveLength(1);
        expect(await loggedOf(`evt_tx_${n}`)).toMatchObject({ outcome: 'applied', reason: null });
      }
    });
  });

  it('Lemon Squeezy: a renewal whose invoice id is an order id is booked apart (lemonsqueezy:invoice:<id>); each refund refunds its own', async () => {
    const first = clone(LEMON.order_created!);
    first.data.id = '7';
    const renewal = clone(LEMON.subscription_payment_success!);
    renewal.data.id = '7';
    renewal.meta.custom_data.svc_ref = 'erin';
    expect((await send('lemonsqueezy', first)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:7' });
    expect((await send('lemonsqueezy', renewal)).json()).toEqual({ success: true, duplicate: false, outcome: 'applied', reason: null, order_id: 'lemonsqueezy:invoice:7' });
    expect((await send('lemonsqueezy', renewal)).json()).toMatchObject({ duplicate: true, order_id: 'lemonsqueezy:invoice:7' });
    expect((await order('lemonsqueezy:7')).order).toMatchObject({ amount: 29.99, product: 'Lemonade Pro', status: 'paid' });
    const booked = await order('lemonsqueezy:invoice:7');
    expect(booked.order).toMatchObject({ amount: 9.99, email: 'ls-buyer@svc.test', status: 'paid' });
    expect(booked.commission).toMatchObject({ ref_code: 'erin' });

    const refundRenewal = clone(LEMON.subscription_payment_refunded!);
    refundRenewal.data.id = '7';
    expect((await send('lemonsqueezy', refundRenewal)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:invoice:7' });
    expect((await send('lemonsqueezy', refundRenewal)).json()).toMatchObject({ duplicate: true });
    expect((await order('lemonsqueezy:invoice:7')).order).toMatchObject({ status: 'refunded', refunded_amount: 9.99 });
    expect((await order('lemonsqueezy:7')).order.status).toBe('paid');
    const refundOrder = clone(LEMON.order_refunded!);
    refundOrder.data.id = '7';
    refundOrder.data.attributes.refunded_amount = 1000;
    expect((await send('lemonsqueezy', refundOrder)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:7' });
    expect((await order('lemonsqueezy:7')).order).toMatchObject({ status: 'partially_refunded', refunded_amount: 10 });
    expect((await order('lemonsqueezy:invoice:7')).order).toMatchObject({ refunded_amount: 9.99 });
  });

  it('Lemon Squeezy: a renewal booked under its old id (lemonsqueezy:<invoice id>) is refunded there', async () => {
    // what a release before distinct renewal ids left: the order, and its renewal's log row naming it
    expect((await t.api('POST', '/api/orders', { order_id: 'lemonsqueezy:55', email: 'ls-buyer@svc.test', amount: 9.99, product: 'Lemon Squeezy' })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/orders/pay', { order_id: 'lemonsqueezy:55' })).statusCode).toBe(200);
    await t.service.ctx.db
      .insertInto('integration_events')
      .values({
        id: 'ie_legacy55',
        provider: 'lemonsqueezy',
        dedupe_key: 'subscription_payment_success:55',
        type: 'subscription_payment_success',
        provider_event_id: null,
        received_at: t.clock.now(),
        outcome: 'applied',
        reason: null,
        order_id: 'lemonsqueezy:55',
        waiting_order_id: null,
        refund_json: null,
        payment_ref: null,
        waiting_customer_id: null,
        pay_json: null,
      })
      .execute();
    const refund = clone(LEMON.subscription_payment_refunded!);
    refund.data.id = '55';
    refund.data.attributes.refunded_amount = 500;
    expect((await send('lemonsqueezy', refund)).json()).toMatchObject({ outcome: 'applied', order_id: 'lemonsqueezy:55' });
    expect((await order('lemonsqueezy:55')).order).toMatchObject({ status: 'partially_refunded', refunded_amount: 5 });
    expect((await t.api('GET', '/api/orders/lemonsqueezy:invoice:55')).statusCode).toBe(404);
  });

  it('POST /api/orders takes ref_code: used when the email names no attributed mailbox, ignored when not an active affiliate', async () => {
    expect((await t.api('POST', '/api/orders', { order_id: 'ref-1', email: 'walkin@example.com', amount: 10, product: 'p', ref_code: 'alice' })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/orders/pay', { order_id: 'ref-1' })).json().commission).toMatchObject({ ref_code: 'alice' });
    expect((await t.api('POST', '/api/orders', { order_id: 'ref-2', email: 'buyer@svc.test', amount: 10, product: 'p', ref_code: 'alice' })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/orders/pay', { order_id: 'ref-2' })).json().commission).toMatchObject({ ref_code: 'bob' });
    expect((await t.api('POST', '/api/orders', { order_id: 'ref-3', email: 'walkin@example.com', amount: 10, product: 'p', ref_code: 'nobody' })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/orders/pay', { order_id: 'ref-3' })).json()).toMatchObject({ commission: null, order: { status: 'paid' } });
  });

  it('the event log pages newest first and filters by provider', async () => {
    const admin = await t.admin();
    const page = (await admin.call('GET', '/admin/api/integrations/events?limit=2&provider=lemonsqueezy')).json();
    expect(page.items).toHaveLength(2);
    expect(page.items.every((e: Json) => e.provider === 'lemonsqueezy' && e.provider_event_id === null)).toBe(true);
    expect(page.next_cursor).toEqual(expect.any(String));
    const next = (await admin.call('GET', `/admin/api/integrations/events?limit=2&provider=lemonsqueezy&cursor=${encodeURIComponent(page.next_cursor)}`)).json();
    expect(next.items.map((e: Json) => e.id)).not.toContain(page.items[0].id);
    expect((await t.request('GET', '/admin/api/integrations/events')).statusCode).toBe(401);
  });
});
