import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Affiliate, Commission, FraudCase, Order, Withdrawal } from '../../src/platform/db/schema.js';
import { fraudCasePayload } from '../../src/loop/fraud/fraud.events.js';
import { type Currency, USD } from '../../src/platform/money.js';
import { ADAPTER_EVENT_TYPES, EVENT_TYPES, EVENTS, type EventData, type EventType, envelopeSchema, isEventType } from '../../src/platform/events/catalogue.js';
import { affiliateCreatedPayload } from '../../src/loop/affiliates/affiliate.events.js';
import { commissionChangedPayload } from '../../src/loop/commissions/commission.events.js';
import { orderPaidPayload, orderRefundedPayload } from '../../src/loop/orders/order.events.js';
import { withdrawalChangedPayload } from '../../src/loop/withdrawals/withdrawal.events.js';
import { messageReceivedPayload } from '../../src/mail/messages/message.events.js';
import { testEventPayload } from '../../src/platform/events/payloads.js';
import { eventWebhooks } from '../../src/platform/http/events.openapi.js';

const time = fc.integer({ min: Date.UTC(2020, 0, 1), max: Date.UTC(2040, 0, 1) });
const cents = fc.integer({ min: 1, max: 100_000_000_000 });
const text = fc.string({ minLength: 1, maxLength: 40 });

const order: fc.Arbitrary<Order> = fc.record({
  order_id: text,
  email: fc.emailAddress(),
  amount_cents: cents,
  product: text,
  status: fc.constant('paid' as const),
  ref_code: fc.option(text, { nil: null }),
  created_at: time,
  paid_at: time,
  refunded_cents: fc.constant(0),
  named_ref_code: fc.constant(null),
});

/** An order after a refund: refunded_cents within its amount, the status following it. */
const refundedOrder: fc.Arbitrary<Order> = fc.tuple(order, fc.integer({ min: 1, max: 100 })).map(([o, pct]) => {
  const refunded = Math.max(1, Math.floor((o.amount_cents * pct) / 100));
  return { ...o, refunded_cents: refunded, status: refunded === o.amount_cents ? 'refunded' : 'partially_refunded' };
});

const commission = (status: Commission['status']): fc.Arbitrary<Commission> =>
  fc.record({
    id: text,
    order_id: text,
    ref_code: text,
    amount_cents: cents,
    rate_bp: fc.integer({ min: 0, max: 10_000 }),
    commission_cents: fc.integer({ min: 0, max: 100_000_000_000 }),
    status: fc.constant(status),
    created_at: time,
    updated_at: time,
    approved_at: fc.option(time, { nil: null }),
    paid_at: fc.option(time, { nil: null }),
    voided_at: fc.option(time, { nil: null }),
    kind: fc.constant('sale' as const),
    rule_id: fc.option(text, { nil: null }),
    void_reason: fc.constant(status === 'void' ? ('refunded' as const) : null),
    flat_cents: fc.option(cents, { nil: null }),
    hold_case_id: fc.constant(status === 'pending' ? 'fc_1' : null),
    hold_signal: fc.constant(status === 'pending' ? ('self_referral' as const) : null),
  });

const fraudCase = (status: FraudCase['status']): fc.Arbitrary<FraudCase> =>
  fc.record({
    id: text,
    ref_code: text,
    signal: fc.constantFrom('self_referral', 'duplicate_payout', 'click_burst', 'refund_rate'),
    action: fc.constantFrom('flag', 'hold'),
    status: fc.constant(status),
    evidence: fc.constantFrom('[]', '[{"at":1,"detail":"Ordered with the affiliate\'s own email"}]', '[{"at":1,"detail":"x","order_id":"o-1","click_at":2}]'),
    held_count: fc.nat(),
    held_cents: cents,
    created_at: time,
    updated_at: time,
    resolved_at: status === 'open' ? fc.constant(null) : time,
    note: fc.option(text, { nil: null }),
  });

const clawback: fc.Arbitrary<Commission> = commission('paid').map((c) => ({ ...c, kind: 'clawback', commission_cents: -Math.max(1, c.commission_cents) }));

const affiliate: fc.Arbitrary<Affiliate> = fc.record({
  ref_code: text,
  name: fc.option(text, { nil: null }),
  email: fc.option(fc.emailAddress(), { nil: null }),
  status: fc.constantFrom('active' as const, 'disabled' as const),
  commission_rate_bp: fc.option(fc.integer({ min: 0, max: 10_000 }), { nil: null }),
  created_at: time,
  updated_at: time,
  email_confirmed_at: fc.option(time, { nil: null }),
});

/** The program currencies of docs/api.md#payouts's examples: 0, 2 and 3 decimals. */
const currency: fc.Arbitrary<Currency> = fc.constantFrom(USD, { code: 'JPY', digits: 0 }, { code: 'KWD', digits: 3 });

const withdrawal = (status: Withdrawal['status']): fc.Arbitrary<Withdrawal> =>
  fc.record({
    id: text,
    ref_code: text,
    amount_cents: cents,
    status: fc.constant(status),
    created_at: time,
    updated_at: time,
    paid_at: fc.option(time, { nil: null }),
    rejected_at: fc.option(time, { nil: null }),
    payout: fc.option(fc.constantFrom('{"method":"paypal","email":"a@b.co"}', 'free text of an older version'), { nil: null }),
    payout_method: fc.option(fc.constantFrom('paypal', 'other'), { nil: null }),
    batch_id: fc.option(text, { nil: null }),
  });

/**
 * Each catalogued event's payload, as its emitter builds it from rows. A new event does not compile
 * here until it has an entry, so every builder is checked against its schema.
 */
const payloads: { [K in EventType]: fc.Arbitrary<EventData<K>> } = {
  'order.paid': fc.tuple(order, fc.option(commission('pending'), { nil: undefined }), currency).map(([o, c, cur]) => orderPaidPayload(o, c, cur)),
  'order.refunded': fc
    .tuple(refundedOrder, cents, time, fc.option(commission('pending'), { nil: undefined }), fc.option(clawback, { nil: undefined }), currency)
    .map(([o, c, at, sale, claw, cur]) => orderRefundedPayload(o, { cents: c, at }, sale, claw, cur)),
  'commission.created': fc.tuple(fc.oneof(commission('pending'), clawback), currency).map(([c, cur]) => commissionChangedPayload(c, cur)),
  'commission.approved': fc.tuple(commission('approved'), currency).map(([c, cur]) => commissionChangedPayload(c, cur)),
  'commission.paid': fc.tuple(commission('paid'), currency).map(([c, cur]) => commissionChangedPayload(c, cur)),
  'commission.voided': fc.tuple(commission('void'), currency).map(([c, cur]) => commissionChangedPayload(c, cur)),
  'withdrawal.requested': fc.tuple(withdrawal('requested'), currency).map(([w, cur]) => withdrawalChangedPayload(w, cur)),
  'withdrawal.paid': fc.tuple(withdrawal('paid'), currency).map(([w, cur]) => withdrawalChangedPayload(w, cur)),
  'withdrawal.rejected': fc.tuple(withdrawal('rejected'), currency).map(([w, cur]) => withdrawalChangedPayload(w, cur)),
  'fraud.case_opened': fc.tuple(fraudCase('open'), fc.nat(), cents, currency).map(([c, count, held, cur]) => fraudCasePayload(c, { count, cents: held }, cur)),
  'fraud.case_resolved': fc.tuple(fc.constantFrom('released' as const, 'rejected' as const).chain((s) => fraudCase(s)), currency).map(([c, cur]) => fraudCasePayload(c, { count: c.held_count, cents: c.held_cents }, cur)),
  'affiliate.created': affiliate.map(affiliateCreatedPayload),
  'message.received': fc
    .tuple(
      fc.record({
        id: text,
        mailbox: fc.emailAddress(),
        from: fc.option(fc.emailAddress(), { nil: null }),
        subject: fc.option(text, { nil: null }),
        code: fc.option(text, { nil: null }),
        verification_link: fc.option(fc.webUrl(), { nil: undefined }),
        received_at: time,
      }),
      fc.option(text, { nil: null }),
    )
    .map(([copy, ref]) => messageReceivedPayload(copy, ref)),
  'webhook.test': fc.constant(testEventPayload()),
};

describe('event catalogue', () => {
  it.each(EVENT_TYPES)('%s: what the builder makes from any rows parses with the catalogue schema, unchanged', (type) => {
    fc.assert(
      fc.property(payloads[type] as fc.Arbitrary<unknown>, (data) => {
        const parsed = EVENTS[type].data.safeParse(data);
        expect(parsed.success, parsed.error?.message).toBe(true);
        expect(parsed.data).toEqual(data); // nothing stripped, nothing defaulted
        // and as the body receivers get
        expect(envelopeSchema(type).safeParse(JSON.parse(JSON.stringify({ event: type, id: 'evt_1', ts: 1, data }))).success).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('builds money and rates from integer cents and basis points, times as ISO strings', () => {
    const c: Commission = {
      id: 'com_1',
      order_id: 'o-1',
      ref_code: 'ann',
      amount_cents: 12050,
      rate_bp: 1250,
      commission_cents: 1506,
      status: 'pending',
      created_at: Date.UTC(2026, 0, 15, 12),
      updated_at: 0,
      approved_at: null,
      paid_at: null,
      voided_at: null,
      kind: 'sale',
      rule_id: null,
      void_reason: null,
      flat_cents: null,
      hold_case_id: null,
      hold_signal: null,
    };
    const o: Order = { order_id: 'o-1', email: 'b@svc.test', amount_cents: 12050, product: 'Pro', status: 'paid', ref_code: 'ann', created_at: 0, paid_at: 1, refunded_cents: 0, named_ref_code: null };
    expect(orderPaidPayload(o, c, USD)).toEqual({
      order: { id: 'o-1', email: 'b@svc.test', amount: 120.5, currency: 'USD', product: 'Pro', status: 'paid' },
      commission: { id: 'com_1', order_id: 'o-1', ref_code: 'ann', amount: 120.5, rate: 12.5, commission: 15.06, currency: 'USD', status: 'pending', kind: 'sale', rule_id: null, void_reason: null, hold: null, created_at: '2026-01-15T12:00:00.000Z' },
      ref_code: 'ann',
    });
    // KWD: three decimals, exactly
    expect(orderPaidPayload({ ...o, amount_cents: 1125 }, undefined, { code: 'KWD', digits: 3 }).order).toMatchObject({ amount: 1.125, currency: 'KWD' });
    expect(orderPaidPayload(o, undefined, USD)).toMatchObject({ commission: null, ref_code: null });
  });

  it('knows its types; adapters never get the webhook-only test event', () => {
    expect(EVENT_TYPES).toEqual([
      'order.paid',
      'order.refunded',
      'commission.created',
      'commission.approved',
      'commission.paid',
      'commission.voided',
      'withdrawal.requested',
      'withdrawal.paid',
      'withdrawal.rejected',
      'fraud.case_opened',
      'fraud.case_resolved',
      'affiliate.created',
      'message.received',
      'webhook.test',
    ]);
    expect(ADAPTER_EVENT_TYPES).toEqual(EVENT_TYPES.filter((t) => t !== 'webhook.test'));
    expect(isEventType('order.paid')).toBe(true);
    expect(isEventType('test.metric')).toBe(false);
    expect(isEventType('toString')).toBe(false);
  });

  it('describes every event as an OpenAPI webhook with the envelope and its payload schema', () => {
    const hooks = eventWebhooks() as Record<string, { post: { summary: string; operationId: string; requestBody: { content: { 'application/json': { schema: Record<string, unknown> } } } } }>;
    expect(Object.keys(hooks)).toEqual(EVENT_TYPES);
    expect(hooks['order.paid']!.post.operationId).toBe('webhookOrderPaid');
    expect(hooks['order.paid']!.post.summary).toBe(EVENTS['order.paid'].description);
    const schema = hooks['withdrawal.requested']!.post.requestBody.content['application/json'].schema;
    expect(schema).toMatchObject({
      type: 'object',
      required: ['event', 'id', 'ts', 'data'],
      additionalProperties: false,
      properties: { event: { const: 'withdrawal.requested' }, data: { properties: { withdrawal: { required: ['id', 'ref_code', 'amount', 'currency', 'status', 'payout', 'batch_id', 'created_at'] } } } },
    });
  });
});
