import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineAdapter } from '../../src/platform/adapters/adapter.js';
import { ADAPTERS } from '../../src/platform/adapters/registry.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { EVENT_TYPES, type EventType } from '../../src/platform/events/catalogue.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox } from '../helpers/ledger-fixtures.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

/**
 * A network added the way the README says (one definition; here registered by the test instead of the
 * registry line): it subscribes to two event types and declares one environment variable of its own.
 */
const received: { label: string; event: string; amount: number; id: string }[] = [];
const sinkAdapter = defineAdapter({
  name: 'sink',
  description: 'Test adapter: records withdrawal requests and paid commissions',
  events: ['withdrawal.requested', 'commission.paid'],
  env: {
    SVC_TEST_SINK_LABEL: { schema: z.string().regex(/^[a-z]+$/, 'must be lower-case letters').default('sink'), description: 'A label for what it records' },
  },
  create: ({ SVC_TEST_SINK_LABEL: label }) => ({
    enabled: true,
    async onEvent(event, data, meta) {
      // `data` is narrowed by `event`, from the catalogue
      const amount = event === 'withdrawal.requested' ? data.withdrawal.amount : data.commission.commission;
      received.push({ label, event, amount, id: meta.id });
    },
  }),
});

describe('adapter configuration', () => {
  it('validates every registered adapter\'s variables at start, in one line, without echoing the value', () => {
    const load = (env: Record<string, string>) => () => loadConfig(env, { adapters: [...ADAPTERS, sinkAdapter] });
    expect(load({ SVC_TEST_SINK_LABEL: 'Not Letters' })).toThrow(new ConfigError('SVC_TEST_SINK_LABEL: must be lower-case letters'));
    const config = loadConfig({ SVC_TEST_SINK_LABEL: 'seen' }, { adapters: [...ADAPTERS, sinkAdapter] });
    expect(config.adapters.map((a) => [a.definition.name, a.env])).toEqual([
      ['logging', {}],
      ['network-postback', { SVC_NETWORK_POSTBACK_URL: undefined }],
      ['sink', { SVC_TEST_SINK_LABEL: 'seen' }],
    ]);
    // the registry alone knows nothing of the test's variable
    expect(loadConfig({ SVC_TEST_SINK_LABEL: 'Not Letters' }).adapters.map((a) => a.definition.name)).toEqual(['logging', 'network-postback']);
  });
});

describeEachDatabase('event catalogue', (dialect) => {
  let t: TestService;
  let rx: WebhookReceiver;
  let admin: AdminClient;

  // One of every event, made through the public API as clients make them.
  beforeAll(async () => {
    received.length = 0;
    rx = await startReceiver();
    t = await startTestService(dialect, {
      adapters: [...ADAPTERS, sinkAdapter],
      env: { SVC_TEST_SINK_LABEL: 'seen', SVC_NETWORK_POSTBACK_URL: `http://127.0.0.1:${rx.port}/postback?order={order_id}` },
    });
    admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { webhook_url: `${rx.url}/hook` })).statusCode).toBe(200);
    await addAffiliate(t, 'cat');
    await addMailbox(t, 'buyer1@svc.test', 'cat');
    await addMailbox(t, 'buyer2@svc.test', 'cat');
    const ok = async (res: Promise<{ statusCode: number; body: string }>, status = 200) => {
      const r = await res;
      expect(r.statusCode, r.body).toBe(status);
      return JSON.parse(r.body);
    };
    for (const [id, email] of [
      ['O1', 'buyer1@svc.test'],
      ['O2', 'buyer2@svc.test'],
      ['O3', 'nobody@svc.test'],
    ]) {
      await ok(t.api('POST', '/api/orders', { order_id: id, email, amount: 100, product: 'Pro' }), 201);
    }
    const c1 = (await ok(t.api('POST', '/api/orders/pay', { order_id: 'O1' }))).commission;
    await ok(t.api('POST', `/api/commissions/${c1.id}/approve`));
    await ok(t.api('POST', `/api/commissions/${c1.id}/mark-paid`));
    const c2 = (await ok(t.api('POST', '/api/orders/pay', { order_id: 'O2' }))).commission;
    await ok(t.api('POST', `/api/commissions/${c2.id}/void`));
    await ok(t.api('POST', '/api/orders/pay', { order_id: 'O3' }));
    const w1 = (await ok(t.api('POST', '/api/withdrawals', { ref_code: 'cat', amount: 1.5 }), 201)).withdrawal;
    await ok(t.api('POST', `/api/withdrawals/${w1.id}/mark-paid`));
    const w2 = (await ok(t.api('POST', '/api/withdrawals', { ref_code: 'cat', amount: 2 }), 201)).withdrawal;
    await ok(t.api('POST', `/api/withdrawals/${w2.id}/reject`));
    await ok(admin.call('POST', '/admin/api/webhooks/test'), 201);
    await ok(t.api('POST', '/api/orders/refund', { order_id: 'O1', amount: 40 }));
    // docs/api.md#fraud-review: an order with the affiliate's own email opens a case that holds; rejected
    await ok(t.api('POST', '/api/affiliates', { ref_code: 'dog', email: 'dog@dog-shop.example' }), 201);
    await ok(t.api('POST', '/api/orders', { order_id: 'O4', email: 'dog@dog-shop.example', amount: 50, product: 'Pro', ref_code: 'dog' }), 201);
    await ok(t.api('POST', '/api/orders/pay', { order_id: 'O4' }));
    const dogCase = (await ok(t.api('GET', '/api/fraud/cases?ref_code=dog'))).items[0];
    await ok(t.api('POST', `/api/fraud/cases/${dogCase.id}/reject`, { note: 'own order' }));
    // message.received only while the setting is on (off by default)
    await ok(admin.call('PATCH', '/admin/api/settings', { message_events: true }));
    await ok(t.api('POST', '/api/inbound', { from: 'shop@example.org', to: 'buyer1@svc.test', subject: 'Your code', text: 'Your code is 482913' }), 201);
    await t.service.ctx.dispatcher.drain();
  });
  afterAll(async () => {
    await t.close();
    await rx.close();
  });

  const hooks = () => rx.requests.filter((r) => r.url === '/hook').map((r) => JSON.parse(r.body) as { event: EventType; id: string; ts: number; data: Record<string, unknown> });
  const deliveredTypes = async (target: string) => {
    const { items } = (await admin.call('GET', `/admin/api/deliveries?target=${target}&limit=500`)).json() as { items: { event: string; status: string }[] };
    expect(items.every((d) => d.status === 'delivered')).toBe(true);
    return items.map((d) => d.event).sort();
  };

  it('delivers every catalogued event to the webhook, and each body parses with its schema from /openapi.json', async () => {
    const bodies = hooks();
    expect([...new Set(bodies.map((b) => b.event))].sort()).toEqual([...EVENT_TYPES].sort());
    const doc = (await t.request('GET', '/openapi.json')).json() as { webhooks: Record<string, { post: { summary: string; requestBody: { content: Record<string, { schema: Parameters<typeof z.fromJSONSchema>[0] }> } } }> };
    expect(Object.keys(doc.webhooks).sort()).toEqual([...EVENT_TYPES].sort());
    for (const body of bodies) {
      const schema = z.fromJSONSchema(doc.webhooks[body.event]!.post.requestBody.content['application/json']!.schema);
      const parsed = schema.safeParse(body);
      expect(parsed.success, `${body.event}: ${parsed.error?.message}`).toBe(true);
      // the schemas are closed: a field the catalogue does not declare is a drift, not a detail
      expect(schema.safeParse({ ...body, data: { ...body.data, surprise: 1 } }).success, body.event).toBe(false);
    }
  });

  it('keeps the webhook payloads of README.md#webhooks exactly, field order included', async () => {
    const bodies = hooks();
    const one = (event: EventType, pick: (b: (typeof bodies)[number]) => boolean = () => true) => {
      const found = bodies.filter((b) => b.event === event && pick(b));
      expect(found, event).toHaveLength(1);
      return found[0]!;
    };
    const iso = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const commission = (order: string, status: string) => ({ id: expect.stringMatching(/^com_/), order_id: order, ref_code: 'cat', amount: 100, rate: 10, commission: 10, currency: 'USD', status, kind: 'sale', rule_id: null, void_reason: null, hold: null, created_at: iso });
    const paid = one('order.paid', (b) => (b.data.order as { id: string }).id === 'O1');
    expect(Object.keys(paid)).toEqual(['event', 'id', 'ts', 'data']);
    expect(paid.data).toEqual({ order: { id: 'O1', email: 'buyer1@svc.test', amount: 100, currency: 'USD', product: 'Pro', status: 'paid' }, commission: commission('O1', 'pending'), ref_code: 'cat' });
    expect(Object.keys(paid.data.commission as object)).toEqual(['id', 'order_id', 'ref_code', 'amount', 'rate', 'commission', 'currency', 'status', 'kind', 'rule_id', 'void_reason', 'hold', 'created_at']);
    expect(one('order.paid', (b) => (b.data.order as { id: string }).id === 'O3').data).toEqual({
      order: { id: 'O3', email: 'nobody@svc.test', amount: 100, currency: 'USD', product: 'Pro', status: 'paid' },
      commission: null,
      ref_code: null,
    });
    expect(one('commission.approved').data).toEqual({ commission: commission('O1', 'approved'), ref_code: 'cat' });
    expect(one('commission.paid').data).toEqual({ commission: commission('O1', 'paid'), ref_code: 'cat' });
    expect(one('commission.voided', (b) => b.data.ref_code === 'cat').data).toEqual({ commission: commission('O2', 'void'), ref_code: 'cat' });
    const withdrawal = (amount: number, status: string) => ({ id: expect.stringMatching(/^wd_/), ref_code: 'cat', amount, currency: 'USD', status, payout: { method: 'other', note: 'paid by hand' }, batch_id: null, created_at: iso });
    // (delivered concurrently: in any order)
    const requested = bodies
      .filter((b) => b.event === 'withdrawal.requested')
      .map((b) => b.data as { withdrawal: { amount: number } })
      .sort((a, b) => a.withdrawal.amount - b.withdrawal.amount);
    expect(requested).toEqual([
      { withdrawal: withdrawal(1.5, 'requested'), ref_code: 'cat' },
      { withdrawal: withdrawal(2, 'requested'), ref_code: 'cat' },
    ]);
    expect(Object.keys(requested[0]!.withdrawal as object)).toEqual(['id', 'ref_code', 'amount', 'currency', 'status', 'payout', 'batch_id', 'created_at']);
    expect(one('withdrawal.paid').data).toEqual({ withdrawal: withdrawal(1.5, 'paid'), ref_code: 'cat' });
    expect(one('withdrawal.rejected').data).toEqual({ withdrawal: withdrawal(2, 'rejected'), ref_code: 'cat' });
    expect(one('webhook.test').data).toEqual({ message: 'This is a test event from svc.' });
    const clawback = { ...commission('O1', 'paid'), amount: 40, commission: -4, kind: 'clawback' };
    expect(one('order.refunded').data).toEqual({
      order: { id: 'O1', email: 'buyer1@svc.test', amount: 100, currency: 'USD', product: 'Pro', status: 'partially_refunded', refunded_amount: 40 },
      refund: { amount: 40, created_at: iso },
      commission: commission('O1', 'paid'),
      clawback,
      ref_code: 'cat',
    });
    const created = bodies.filter((b) => b.event === 'commission.created' && b.data.ref_code === 'cat').map((b) => b.data);
    expect(created).toHaveLength(3);
    expect(created).toContainEqual({ commission: clawback, ref_code: 'cat' });
    expect(created).toContainEqual({ commission: commission('O2', 'pending'), ref_code: 'cat' });
    expect(one('affiliate.created', (b) => b.data.ref_code === 'cat').data).toEqual({
      affiliate: { ref_code: 'cat', name: null, email: null, status: 'active', commission_rate: null, created_at: iso },
      ref_code: 'cat',
    });
    // fraud review: the case as opened (holding the new commission) and as rejected
    const heldCommission = { id: expect.stringMatching(/^com_/), order_id: 'O4', ref_code: 'dog', amount: 50, rate: 10, commission: 5, currency: 'USD', status: 'pending', kind: 'sale', rule_id: null, void_reason: null, hold: { case_id: expect.stringMatching(/^fc_/), signal: 'self_referral' }, created_at: iso };
    expect(one('commission.created', (b) => b.data.ref_code === 'dog').data).toEqual({ commission: heldCommission, ref_code: 'dog' });
    const fraudCase = (status: string, held: { count: number; amount: number }, more: object) => ({
      id: expect.stringMatching(/^fc_/),
      ref_code: 'dog',
      signal: 'self_referral',
      action: 'hold',
      status,
      evidence: [{ at: iso, detail: "Ordered with the affiliate's own email dog@dog-shop.example", order_id: 'O4' }],
      held: { ...held, currency: 'USD' },
      opened_at: iso,
      ...more,
    });
    const opened = one('fraud.case_opened');
    expect(opened.data).toEqual({ case: fraudCase('open', { count: 0, amount: 0 }, { resolved_at: null, note: null }), ref_code: 'dog' });
    expect(Object.keys(opened.data.case as object)).toEqual(['id', 'ref_code', 'signal', 'action', 'status', 'evidence', 'held', 'opened_at', 'resolved_at', 'note']);
    expect(one('fraud.case_resolved').data).toEqual({ case: fraudCase('rejected', { count: 1, amount: 5 }, { resolved_at: iso, note: 'own order' }), ref_code: 'dog' });
    expect(one('commission.voided', (b) => b.data.ref_code === 'dog').data).toEqual({ commission: { ...heldCommission, status: 'void', void_reason: 'fraud', hold: null }, ref_code: 'dog' });
  });

  it('gives each adapter delivery rows only for the event types it subscribed to', async () => {
    const all = hooks();
    const typesOf = (pick: (e: EventType) => boolean) => all.map((b) => b.event).filter(pick).sort();
    expect(await deliveredTypes('webhook')).toEqual(typesOf(() => true));
    expect(await deliveredTypes('adapter:logging')).toEqual(typesOf((e) => e !== 'webhook.test'));
    expect(await deliveredTypes('adapter:network-postback')).toEqual(['order.paid', 'order.paid', 'order.paid', 'order.paid']);
    expect(await deliveredTypes('adapter:sink')).toEqual(['commission.paid', 'withdrawal.requested', 'withdrawal.requested']);
    // the throwaway adapter got typed payloads and its own configuration
    const ids = new Map(all.map((b) => [b.id, b.event]));
    expect(received.map((r) => [r.label, r.event, r.amount, ids.get(r.id)]).sort()).toEqual([
      ['seen', 'commission.paid', 10, 'commission.paid'],
      ['seen', 'withdrawal.requested', 1.5, 'withdrawal.requested'],
      ['seen', 'withdrawal.requested', 2, 'withdrawal.requested'],
    ]);
    // the network only heard of the attributed paid orders, not of O4, whose commission is held for review
    expect(rx.requests.filter((r) => r.url.startsWith('/postback')).map((r) => r.url).sort()).toEqual(['/postback?order=O1', '/postback?order=O2']);
    expect((await admin.call('GET', '/admin/api/adapters')).json().items).toEqual([
      { name: 'logging', enabled: true, description: expect.any(String) },
      { name: 'network-postback', enabled: true, description: expect.any(String) },
      { name: 'sink', enabled: true, description: 'Test adapter: records withdrawal requests and paid commissions' },
    ]);
  });

  it('lists the catalogue for the admin area', async () => {
    const res = await admin.call('GET', '/admin/api/event-types');
    expect(res.statusCode).toBe(200);
    const body = res.json() as { success: boolean; items: { type: string; description: string }[] };
    expect(body.success).toBe(true);
    expect(body.items.map((i) => i.type)).toEqual(EVENT_TYPES);
    expect(body.items.every((i) => i.description.length > 10 && !i.description.includes('\n'))).toBe(true);
    expect((await t.request('GET', '/admin/api/event-types')).statusCode).toBe(401);
  });
});
