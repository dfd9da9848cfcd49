import { createHash } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import type { EventData, EventType } from '../../src/platform/events/catalogue.js';
import { recordEvent } from '../../src/platform/events/outbox.js';
import type { DeliveryAdminService } from '../../src/platform/webhooks/delivery-admin.service.js';
import type { DeliveryDispatcher } from '../../src/platform/webhooks/delivery-dispatcher.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox } from '../helpers/ledger-fixtures.js';
import { startTestService, type AdminClient, type TestService } from '../helpers/service.js';
import { startReceiver, type WebhookReceiver } from '../helpers/webhook-receiver.js';

const orderPaidData = (orderId: string): EventData<'order.paid'> => ({
  order: { id: orderId, email: 'buyer@svc.test', amount: 120.5, currency: 'USD', product: 'Pro', status: 'paid' },
  commission: { id: `com_${orderId}`, order_id: orderId, ref_code: 'alice', amount: 120.5, rate: 10, commission: 12.05, currency: 'USD', status: 'pending', kind: 'sale', rule_id: null, void_reason: null, hold: null, created_at: '2026-01-15T12:00:00.000Z' },
  ref_code: 'alice',
});
const withdrawalData = (refCode: string): EventData<'withdrawal.requested'> => ({
  withdrawal: { id: `wd_${refCode}`, ref_code: refCode, amount: 5, currency: 'USD', status: 'requested', payout: null, batch_id: null, created_at: '2026-01-15T12:00:00.000Z' },
  ref_code: refCode,
});

describeEachDatabase('webhooks and delivery', (dialect) => {
  let t: TestService;
  let rx: WebhookReceiver;
  let admin: AdminClient;
  let deliveries: DeliveryAdminService;
  let dispatcher: DeliveryDispatcher;
  let secret: string;

  // Real wall time on the fake clock, so a Standard Webhooks receiver's timestamp tolerance accepts us.
  beforeEach(async () => {
    rx = await startReceiver();
    t = await startTestService(dialect, { clock: new FakeClock(Date.now()) });
    admin = await t.admin();
    deliveries = t.service.ctx.services.deliveries;
    dispatcher = t.service.ctx.dispatcher;
    const res = await admin.call('PATCH', '/admin/api/settings', { webhook_url: `${rx.url}/hook` });
    expect(res.statusCode).toBe(200);
    // write-only in every answer (docs/api.md#settings): the generated secret is read where the service keeps it
    expect(res.json().settings.webhook_secret).toMatchObject({ set: true, last4: expect.any(String) });
    secret = (await t.service.ctx.services.settings.get()).webhook_secret;
  });
  afterEach(async () => {
    await t.close();
    await rx.close();
  });

  const emit = async <T extends EventType>(type: T, data: EventData<T>) => {
    const e = await recordEvent(t.service.ctx.db, t.clock, type, data);
    t.service.ctx.outbox.kick();
    return e;
  };
  // Through the service, not HTTP: some tests move the clock past the admin session's lifetime.
  const webhookDelivery = async (eventId: string) => {
    const { items } = await deliveries.list({ target: 'webhook', limit: 500 });
    const item = items.find((d) => d.event_id === eventId);
    if (!item) throw new Error(`no webhook delivery for ${eventId}`);
    return JSON.parse(JSON.stringify(await deliveries.get(item.id)));
  };

  it('posts the event body with both signatures; a Standard Webhooks library verifies it', async () => {
    expect(secret).toMatch(/^whsec_/);
    const e = await emit('order.paid', orderPaidData('o-1'));
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(1);
    const req = rx.requests[0]!;
    expect(req.method).toBe('POST');
    expect(req.url).toBe('/hook');
    expect(JSON.parse(req.body)).toEqual({ event: 'order.paid', id: e.id, ts: e.ts, data: orderPaidData('o-1') });
    expect(Object.keys(JSON.parse(req.body))).toEqual(['event', 'id', 'ts', 'data']);
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['x-svc-event']).toBe('order.paid');
    expect(req.headers['x-svc-event-id']).toBe(e.id);
    expect(req.headers['x-svc-signature']).toBe(createHash('sha256').update(secret + req.body).digest('hex'));
    expect(req.headers['webhook-id']).toBe(e.id);
    expect(req.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(req.body, {
      'webhook-id': req.headers['webhook-id'] as string,
      'webhook-timestamp': req.headers['webhook-timestamp'] as string,
      'webhook-signature': req.headers['webhook-signature'] as string,
    });
    expect(verified).toEqual(JSON.parse(req.body));
    // A tampered body fails both schemes.
    expect(() =>
      new Webhook(secret).verify(`${req.body} `, {
        'webhook-id': req.headers['webhook-id'] as string,
        'webhook-timestamp': req.headers['webhook-timestamp'] as string,
        'webhook-signature': req.headers['webhook-signature'] as string,
      }),
    ).toThrow();

    const d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ event_id: e.id, event: 'order.paid', target: 'webhook', url: `${rx.url}/hook`, status: 'delivered', attempt_count: 1, next_attempt_at: null });
    expect(d.attempts).toEqual([{ at: expect.any(String), status_code: 200, latency_ms: expect.any(Number), error: null, response_body: 'ok' }]);
  });

  it('signs with the UTF-8 bytes of a secret set without the whsec_ prefix', async () => {
    const plain = 'my-plain-secret-0123456789';
    expect((await admin.call('PATCH', '/admin/api/settings', { webhook_secret: plain })).statusCode).toBe(200);
    await emit('withdrawal.requested', withdrawalData('bob'));
    await dispatcher.drain();
    const req = rx.requests[0]!;
    expect(req.headers['x-svc-signature']).toBe(createHash('sha256').update(plain + req.body).digest('hex'));
    const key = `whsec_${Buffer.from(plain).toString('base64')}`;
    expect(new Webhook(key).verify(req.body, req.headers as Record<string, string>)).toMatchObject({ event: 'withdrawal.requested' });
  });

  it('retries after a 500 with the same event id, about 5 s later, and logs each attempt', async () => {
    let n = 0;
    rx.respond = () => (n++ === 0 ? { status: 500, body: 'boom' } : { status: 204 });
    const e = await emit('order.paid', orderPaidData('o-2'));
    await dispatcher.drain();
    let d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: 500, last_error: 'HTTP 500' });
    const wait = Date.parse(d.next_attempt_at) - t.clock.now();
    expect(wait).toBeGreaterThanOrEqual(4500);
    expect(wait).toBeLessThanOrEqual(5500);

    await dispatcher.drain(); // not due yet
    expect(rx.requests).toHaveLength(1);
    t.clock.advance(5600);
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(2);
    expect(rx.requests.map((r) => r.headers['x-svc-event-id'])).toEqual([e.id, e.id]);
    expect(rx.requests[0]!.body).toBe(rx.requests[1]!.body);
    d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 2, last_status_code: 204 });
    expect(d.attempts.map((a: { status_code: number }) => a.status_code)).toEqual([500, 204]);
    expect(d.attempts[0].response_body).toBe('boom');
  });

  it('treats a slow answer as a timeout and retries it', async () => {
    dispatcher.options.timeoutMs = 200;
    let n = 0;
    rx.respond = () => (n++ === 0 ? { status: 200, delayMs: 1000 } : { status: 200 });
    const e = await emit('order.paid', orderPaidData('o-3'));
    await dispatcher.drain();
    let d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'pending', attempt_count: 1, last_status_code: null });
    expect(d.last_error).toMatch(/timeout after 200 ms/);
    t.clock.advance(6000);
    await dispatcher.drain();
    d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 2 });
  });

  it('honours Retry-After within bounds', async () => {
    rx.respond = () => ({ status: 503, headers: { 'retry-after': '120' } });
    const e = await emit('order.paid', orderPaidData('o-4'));
    await dispatcher.drain();
    const d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'pending', last_status_code: 503 });
    expect(Date.parse(d.next_attempt_at) - t.clock.now()).toBe(120_000);

    rx.respond = () => ({ status: 429, headers: { 'retry-after': '999999999' } });
    t.clock.advance(120_000);
    await dispatcher.drain();
    const d2 = await webhookDelivery(e.id);
    expect(Date.parse(d2.next_attempt_at) - t.clock.now()).toBe(10 * 3600_000);
  });

  it('does not follow redirects: a 3xx is a failed attempt', async () => {
    rx.respond = (req) => (req.url === '/hook' ? { status: 302, headers: { location: `${rx.url}/elsewhere` } } : { status: 200 });
    const e = await emit('order.paid', orderPaidData('o-5'));
    await dispatcher.drain();
    expect(rx.requests.map((r) => r.url)).toEqual(['/hook']);
    const d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'pending', last_status_code: 302, last_error: 'redirect (302) not followed' });
  });

  it('follows the schedule 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h and then marks the delivery failed', async () => {
    rx.respond = () => ({ status: 500 });
    const e = await emit('order.paid', orderPaidData('o-6'));
    const expected = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000];
    for (let i = 0; i < expected.length; i++) {
      await dispatcher.drain();
      const d = await webhookDelivery(e.id);
      expect(d).toMatchObject({ status: 'pending', attempt_count: i + 1 });
      const wait = Date.parse(d.next_attempt_at) - t.clock.now();
      expect(wait).toBeGreaterThanOrEqual(expected[i]! * 0.9 - 1);
      expect(wait).toBeLessThanOrEqual(expected[i]! * 1.1 + 1);
      t.clock.advance(wait - 1);
      await dispatcher.drain();
      expect(rx.requests).toHaveLength(i + 1); // not a millisecond early
      t.clock.advance(1);
    }
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(8);
    const d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'failed', attempt_count: 8, next_attempt_at: null });
    expect(d.attempts).toHaveLength(8);
    t.clock.advance(100 * 3600_000);
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(8);
    expect((await deliveries.list({ status: 'failed', limit: 50 })).items.map((x) => x.event_id)).toEqual([e.id]);
  });

  it('records the results of a batch, but leaves a delivery alone whose lease another worker took meanwhile', async () => {
    const db = t.service.ctx.db;
    const events = [await emit('order.paid', orderPaidData('o-b1')), await emit('order.paid', orderPaidData('o-b2')), await emit('order.paid', orderPaidData('o-b3'))];
    const stolen = events[1]!.id;
    dispatcher.options.afterSend = async (d) => {
      // another instance's claim after our lease ran out
      if (d.event_id === stolen && d.target === 'webhook') await db.updateTable('deliveries').set({ lock_token: 'other-worker' }).where('id', '=', d.id).execute();
    };
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(3);
    const rows = await db.selectFrom('deliveries').selectAll().where('target', '=', 'webhook').orderBy('event_id').execute();
    expect(rows.map((r) => [r.event_id, r.status, r.attempts, r.lock_token, r.delivered_at])).toEqual(
      [...events].sort((a, b) => (a.id < b.id ? -1 : 1)).map((e) => (e.id === stolen ? [e.id, 'pending', 0, 'other-worker', null] : [e.id, 'delivered', 1, null, t.clock.now()])),
    );
    const logged = await db.selectFrom('delivery_attempts').innerJoin('deliveries', 'deliveries.id', 'delivery_attempts.delivery_id').select(['event_id', 'status_code']).where('target', '=', 'webhook').execute();
    expect(logged.map((a) => a.event_id).sort()).toEqual(events.filter((e) => e.id !== stolen).map((e) => e.id).sort());
    expect(logged.every((a) => a.status_code === 200 || a.status_code === 204)).toBe(true);
  });

  it('refuses to redeliver a delivery while its attempt is in flight, and redelivers it once recorded', async () => {
    const e = await emit('order.paid', orderPaidData('o-live'));
    let during: { statusCode: number; body: unknown } | undefined;
    dispatcher.options.afterSend = async (d) => {
      if (d.target !== 'webhook' || during) return;
      const res = await admin.call('POST', `/admin/api/deliveries/${d.id}/redeliver`);
      during = { statusCode: res.statusCode, body: res.json() };
    };
    await dispatcher.drain();
    expect(during).toEqual({ statusCode: 409, body: { success: false, error: { code: 'invalid_transition', message: expect.stringMatching(/being sent right now/) } } });
    const d = await webhookDelivery(e.id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 1 });
    expect(d.attempts).toHaveLength(1);
    const again = await admin.call('POST', `/admin/api/deliveries/${d.id}/redeliver`);
    expect(again.json()).toMatchObject({ success: true, delivery: { status: 'pending', attempt_count: 0 } });
    await dispatcher.drain();
    expect(rx.requests.map((r) => r.headers['x-svc-event-id'])).toEqual([e.id, e.id]);
  });

  it('deletes finished deliveries, their attempts and their events after the retention period; pending ones stay', async () => {
    const db = t.service.ctx.db;
    const failing = new Set<string>();
    rx.respond = (req) => (failing.has(req.headers['x-svc-event-id'] as string) ? { status: 500 } : { status: 204 });
    const old = await emit('order.paid', orderPaidData('o-old'));
    const stuck = await emit('order.paid', orderPaidData('o-stuck'));
    const redone = await emit('order.paid', orderPaidData('o-redone'));
    failing.add(stuck.id);
    await dispatcher.drain();
    t.clock.advance(31 * 86_400_000);
    await deliveries.redeliver((await webhookDelivery(redone.id)).id); // an old delivery sent again today
    const recent = await emit('order.paid', orderPaidData('o-recent'));
    await dispatcher.drain(); // the stuck one is retried and fails again: still pending
    const deliveryRows = () => db.selectFrom('deliveries').select(['event_id', 'target', 'status']).orderBy('event_id').orderBy('target').execute();
    const before = await deliveryRows();
    const targets = [...new Set(before.map((r) => r.target))].sort();
    expect(targets).toContain('webhook');
    expect(targets.length).toBeGreaterThan(1); // the logging adapter too
    expect(before.filter((r) => r.event_id === old.id).map((r) => r.status)).toEqual(targets.map(() => 'delivered'));

    expect(await t.service.ctx.services.deliveryRetention.purgeFinished(0)).toBe(0);
    expect(await t.service.ctx.services.deliveryRetention.purgeFinished(45)).toBe(0);
    expect(await deliveryRows()).toEqual(before);

    const deleted = await t.service.ctx.services.deliveryRetention.purgeFinished(30);
    const after = await deliveryRows();
    // old: everything gone; stuck: its pending webhook stays, its delivered adapter rows go; recent: all stay
    // redone: its webhook row, delivered again today, stays
    expect(after).toEqual(before.filter((r) => r.event_id === recent.id || (r.event_id === stuck.id && r.status === 'pending') || (r.event_id === redone.id && r.target === 'webhook')));
    expect(after.filter((r) => r.event_id === stuck.id)).toEqual([{ event_id: stuck.id, target: 'webhook', status: 'pending' }]);
    expect(after.filter((r) => r.event_id === redone.id)).toEqual([{ event_id: redone.id, target: 'webhook', status: 'delivered' }]);
    expect(deleted).toBe(before.length - after.length);
    const events = (await db.selectFrom('events').select('id').execute()).map((e) => e.id).sort();
    expect(events).toEqual([stuck.id, redone.id, recent.id].sort());
    const orphans = await db.selectFrom('delivery_attempts').leftJoin('deliveries', 'deliveries.id', 'delivery_attempts.delivery_id').select('deliveries.id').where('deliveries.id', 'is', null).execute();
    expect(orphans).toEqual([]);

    // the stuck delivery still has its event and is delivered once the receiver recovers
    failing.clear();
    t.clock.advance(3_600_000);
    await dispatcher.drain();
    expect((await webhookDelivery(stuck.id)).status).toBe('delivered');
  });

  it('sums up the queue for the admin page: waiting, failed, the oldest waiting', async () => {
    const empty = await admin.call('GET', '/admin/api/deliveries/stats');
    expect(empty.json()).toEqual({ success: true, stats: { pending: 0, failed: 0, oldest_pending_at: null, unfanned_events: 0 } });
    rx.respond = () => ({ status: 500 });
    await emit('order.paid', orderPaidData('o-stats-1'));
    await dispatcher.drain(); // the webhook fails and waits for its retry; the logging adapter is done
    const firstAt = new Date(t.clock.now()).toISOString();
    t.clock.advance(1000);
    await recordEvent(t.service.ctx.db, t.clock, 'order.paid', orderPaidData('o-stats-2')); // not fanned out yet
    const res = await admin.call('GET', '/admin/api/deliveries/stats');
    expect(res.json()).toEqual({ success: true, stats: { pending: 1, failed: 0, oldest_pending_at: firstAt, unfanned_events: 1 } });
  });

  it('delivers at least once after a crash between send and record', async () => {
    dispatcher.options.afterSend = async () => {
      throw new Error('simulated crash after send');
    };
    const e = await emit('order.paid', orderPaidData('o-7'));
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(1);
    await t.service.destroy(); // the crashed instance is gone; its lease is still on the row

    const next = await t.sibling();
    try {
      const nextDeliveries = next.service.ctx.dispatcher;
      await nextDeliveries.drain();
      expect(rx.requests).toHaveLength(1); // the lease still holds
      t.clock.advance(60_001);
      await nextDeliveries.drain();
      expect(rx.requests).toHaveLength(2);
      expect(rx.requests.map((r) => r.headers['x-svc-event-id'])).toEqual([e.id, e.id]);
      const nextAdmin = await next.admin();
      const list = await nextAdmin.call('GET', '/admin/api/deliveries?target=webhook');
      expect(list.json().items).toMatchObject([{ event_id: e.id, status: 'delivered', attempt_count: 1 }]);
    } finally {
      await next.service.destroy();
    }
  });

  // Many instances are a PostgreSQL setup; SQLite runs one process (two drains of one instance still race here).
  it('sends every event exactly once when two instances drain at the same time', async () => {
    const other = dialect === 'postgres' ? await t.sibling() : t;
    try {
      const ids = new Set<string>();
      for (let i = 0; i < 120; i++) ids.add((await recordEvent(t.service.ctx.db, t.clock, 'order.paid', orderPaidData(`m-${i}`))).id);
      await Promise.all([dispatcher.drain(), other.service.ctx.dispatcher.drain(), dispatcher.drain()]);
      const got = rx.requests.map((r) => r.headers['x-svc-event-id'] as string);
      expect(got).toHaveLength(120);
      expect(new Set(got)).toEqual(ids);
      const delivered = await admin.call('GET', '/admin/api/deliveries?target=webhook&status=delivered&limit=500');
      expect(delivered.json().items).toHaveLength(120);
      const logging = await admin.call('GET', '/admin/api/deliveries?target=adapter:logging&status=delivered&limit=500');
      expect(logging.json().items).toHaveLength(120);
    } finally {
      if (other !== t) await other.service.destroy();
    }
  });

  it('snapshots webhook_url when the event is fanned out; no URL, no webhook delivery', async () => {
    expect((await admin.call('PATCH', '/admin/api/settings', { webhook_url: null })).statusCode).toBe(200);
    const e = await emit('order.paid', orderPaidData('o-8'));
    await dispatcher.drain();
    expect(rx.requests).toHaveLength(0);
    const list = await admin.call('GET', `/admin/api/deliveries?event=order.paid`);
    expect(list.json().items).toMatchObject([{ event_id: e.id, target: 'adapter:logging', status: 'delivered' }]);
  });

  it('the background worker delivers right after the kick, without a poll or a drain', async () => {
    const tasks = t.service.ctx.background.filter((task) => task.name === 'delivery-worker');
    expect(tasks).toHaveLength(1);
    for (const task of tasks) await task.start();
    try {
      for (let i = 0; i < 3; i++) {
        const e = await emit('order.paid', orderPaidData(`w-${i}`));
        const started = performance.now();
        await rx.waitFor(i + 1, 5000);
        expect(performance.now() - started).toBeLessThan(900); // well inside the 1 s poll
        expect(rx.requests[i]!.headers['x-svc-event-id']).toBe(e.id);
      }
    } finally {
      for (const task of tasks) await task.stop();
    }
    const d = await webhookDelivery(JSON.parse(rx.requests[0]!.body).id);
    expect(d).toMatchObject({ status: 'delivered', attempt_count: 1 });
  });

  it('end to end: pay answered, then order.paid arrives signed, once, with the commission', async () => {
    await addAffiliate(t, 'alice');
    await addMailbox(t, 'buyer@svc.test', 'alice');
    const tasks = t.service.ctx.background;
    for (const task of tasks) await task.start();
    try {
      expect((await t.api('POST', '/api/orders', { order_id: 'E2E-1', email: 'buyer@svc.test', amount: 120.5, product: 'Pro' })).statusCode).toBe(201);
      const paid = await t.api('POST', '/api/orders/pay', { order_id: 'E2E-1' });
      expect(paid.statusCode).toBe(200);
      await rx.waitFor(3, 5000); // affiliate.created, commission.created, order.paid
      const again = await t.api('POST', '/api/orders/pay', { order_id: 'E2E-1' });
      expect(again.statusCode).toBe(200);
    } finally {
      for (const task of tasks) await task.stop();
    }
    await dispatcher.drain();
    expect(rx.requests.map((r) => JSON.parse(r.body).event).sort()).toEqual(['affiliate.created', 'commission.created', 'order.paid']);
    const req = rx.requests.find((r) => JSON.parse(r.body).event === 'order.paid')!;
    const body = JSON.parse(req.body);
    expect(body).toEqual({
      event: 'order.paid',
      id: expect.stringMatching(/^evt_/),
      ts: Math.floor(t.clock.now() / 1000),
      data: {
        order: { id: 'E2E-1', email: 'buyer@svc.test', amount: 120.5, currency: 'USD', product: 'Pro', status: 'paid' },
        commission: expect.objectContaining({ ref_code: 'alice', commission: 12.05, currency: 'USD', status: 'pending' }),
        ref_code: 'alice',
      },
    });
    expect(req.headers['x-svc-event']).toBe('order.paid');
    expect(req.headers['x-svc-signature']).toBe(createHash('sha256').update(secret + req.body).digest('hex'));
    expect(new Webhook(secret).verify(req.body, req.headers as Record<string, string>)).toEqual(body);
  });

  it('SVC_WORKER=off starts no delivery worker', async () => {
    const off = await startTestService(dialect, { env: { SVC_WORKER: 'off' } });
    try {
      expect(off.service.ctx.background.map((task) => task.name)).not.toContain('delivery-worker');
    } finally {
      await off.close();
    }
  });

  describe('admin API', () => {
    it('lists with filters and cursor, shows one with attempts, redelivers, and 404s unknown ids', async () => {
      const a = await emit('order.paid', orderPaidData('o-9'));
      const b = await emit('withdrawal.requested', withdrawalData('alice'));
      await dispatcher.drain();

      const all = await admin.call('GET', '/admin/api/deliveries');
      expect(all.statusCode).toBe(200);
      expect(all.json()).toMatchObject({ success: true, next_cursor: null });
      expect(all.json().items).toHaveLength(4); // 2 events x (webhook + logging)

      const page1 = await admin.call('GET', '/admin/api/deliveries?limit=3');
      expect(page1.json().items).toHaveLength(3);
      expect(page1.json().next_cursor).toEqual(expect.any(String));
      const page2 = await admin.call('GET', `/admin/api/deliveries?limit=3&cursor=${page1.json().next_cursor}`);
      expect(page2.json()).toMatchObject({ success: true, next_cursor: null });
      const badCursor = await admin.call('GET', '/admin/api/deliveries?cursor=bad');
      expect(badCursor.statusCode).toBe(400);
      expect(badCursor.json().error.details).toEqual([{ field: 'cursor', message: 'is not a cursor this list returned' }]);
      expect(page2.json().items).toHaveLength(1);
      const seen = [...page1.json().items, ...page2.json().items].map((x: { id: string }) => x.id);
      expect(new Set(seen).size).toBe(4);

      const byEvent = await admin.call('GET', '/admin/api/deliveries?event=withdrawal.requested&target=webhook&status=delivered');
      expect(byEvent.json().items).toMatchObject([{ event_id: b.id, event: 'withdrawal.requested', target: 'webhook', status: 'delivered' }]);
      expect((await admin.call('GET', '/admin/api/deliveries?status=failed')).json().items).toEqual([]);
      const bad = await admin.call('GET', '/admin/api/deliveries?status=bogus&limit=0');
      expect(bad.statusCode).toBe(400);
      expect(bad.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });

      const d = await webhookDelivery(a.id);
      const re = await admin.call('POST', `/admin/api/deliveries/${d.id}/redeliver`);
      expect(re.statusCode).toBe(200);
      expect(re.json()).toMatchObject({ success: true, delivery: { id: d.id, status: 'pending', attempt_count: 0 } });
      await dispatcher.drain();
      expect(rx.requests.filter((r) => r.headers['x-svc-event-id'] === a.id)).toHaveLength(2);
      const after = await webhookDelivery(a.id);
      expect(after).toMatchObject({ status: 'delivered', attempt_count: 1 });
      expect(after.attempts).toHaveLength(2);

      for (const [method, url] of [
        ['GET', '/admin/api/deliveries/dlv_nope'],
        ['POST', '/admin/api/deliveries/dlv_nope/redeliver'],
      ] as const) {
        const res = await admin.call(method, url);
        expect(res.statusCode).toBe(404);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      }
      const noSession = await t.request('GET', '/admin/api/deliveries');
      expect(noSession.statusCode).toBe(401);
      expect((await t.api('GET', '/api/deliveries')).statusCode).toBe(404);
    });

    it('sends a test event to the webhook only', async () => {
      const res = await admin.call('POST', '/admin/api/webhooks/test');
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toMatchObject({ success: true, event: { event: 'webhook.test', id: expect.any(String) }, delivery: { target: 'webhook', status: 'pending' } });
      await dispatcher.drain();
      expect(rx.requests).toHaveLength(1);
      expect(JSON.parse(rx.requests[0]!.body)).toMatchObject({ event: 'webhook.test', id: body.event.id, data: { message: expect.any(String) } });
      const list = await admin.call('GET', '/admin/api/deliveries?event=webhook.test');
      expect(list.json().items).toMatchObject([{ target: 'webhook', status: 'delivered' }]);

      const csrf = await t.request('POST', '/admin/api/webhooks/test', undefined, { cookie: admin.cookie });
      expect(csrf.statusCode).toBe(403);
      await admin.call('PATCH', '/admin/api/settings', { webhook_url: null });
      const none = await admin.call('POST', '/admin/api/webhooks/test');
      expect(none.statusCode).toBe(400);
      expect(none.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'webhook_url' }] } });
    });

    it('lists the adapters', async () => {
      const res = await admin.call('GET', '/admin/api/adapters');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({
        success: true,
        items: [
          { name: 'logging', enabled: true, description: expect.any(String) },
          { name: 'network-postback', enabled: false, description: expect.any(String) },
        ],
      });
    });
  });
});

describeEachDatabase('network postback adapter', (dialect) => {
  let t: TestService;
  let rx: WebhookReceiver;
  beforeEach(async () => {
    rx = await startReceiver();
    t = await startTestService(dialect, {
      env: { SVC_NETWORK_POSTBACK_URL: `http://127.0.0.1:${rx.port}/postback?order={order_id}&amount={amount}&click={click_id}` },
    });
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', { webhook_url: `${rx.url}/hook` });
  });
  afterEach(async () => {
    await t.close();
    await rx.close();
  });

  it('reports a paid commission with the stored click id; a failing, slow adapter never holds up the webhook', async () => {
    const db = t.service.ctx.db;
    const now = t.clock.now();
    await db.insertInto('referrals').values({ id: 'ref_1', mailbox_address: 'buyer@svc.test', ref_code: 'alice', source: 'cookie', network_click_ids: JSON.stringify({ click_id: 'nc 42' }), created_at: now }).execute();
    const dispatcher = t.service.ctx.dispatcher;
    dispatcher.options.timeoutMs = 3000; // generous: this part is about the 500, not the clock
    rx.respond = (req) => (req.url.startsWith('/postback') ? { status: 500, delayMs: 50 } : { status: 200 });
    const e = await recordEvent(db, t.clock, 'order.paid', orderPaidData('ord/1'));
    await recordEvent(db, t.clock, 'order.paid', { ...orderPaidData('o-nocomm'), commission: null, ref_code: null });
    await dispatcher.drain();

    const hooks = rx.requests.filter((r) => r.url === '/hook');
    const posts = rx.requests.filter((r) => r.url.startsWith('/postback'));
    expect(hooks).toHaveLength(2);
    expect(posts.map((r) => [r.method, r.url])).toEqual([['GET', '/postback?order=ord%2F1&amount=120.5&click=nc%2042']]);

    const admin = await t.admin();
    const list = await admin.call('GET', '/admin/api/deliveries?target=adapter:network-postback');
    const forPaid = (list.json().items as { event_id: string }[]).find((d) => d.event_id === e.id);
    expect(forPaid).toMatchObject({ status: 'pending', attempt_count: 1, last_error: 'network answered 500' });
    const webhook = await admin.call('GET', '/admin/api/deliveries?target=webhook&status=delivered');
    expect(webhook.json().items).toHaveLength(2);
    const adapters = await admin.call('GET', '/admin/api/adapters');
    expect(adapters.json().items).toContainEqual({ name: 'network-postback', enabled: true, description: expect.any(String) });

    // An adapter that hangs is cut off by the timeout and retried; the others finished long before.
    dispatcher.options.timeoutMs = 500;
    rx.respond = (req) => (req.url.startsWith('/postback') ? { status: 200, delayMs: 5000 } : { status: 200 });
    t.clock.advance(6000);
    const started = performance.now();
    await dispatcher.drain();
    expect(performance.now() - started).toBeLessThan(4000);
    const again = (await admin.call('GET', '/admin/api/deliveries?target=adapter:network-postback')).json().items.find((d: { event_id: string }) => d.event_id === e.id);
    expect(again).toMatchObject({ status: 'pending', attempt_count: 2 });
    expect(again.last_error).toMatch(/timeout/);
  });
  it('end to end: a /go click with a network click id, a mailbox from that visit, pay, then the postback', async () => {
    await addAffiliate(t, 'alice');
    const go = await t.request('GET', '/go/alice?clickid=nc-77&awc=A1');
    expect(go.statusCode, go.body).toBe(302);
    const setCookie = go.headers['set-cookie'];
    const cookies = (Array.isArray(setCookie) ? setCookie : [setCookie ?? '']).map((c) => c.split(';')[0]).join('; ');
    const mb = await t.request('POST', '/mailboxes', { name: 'shopper' }, { cookie: cookies });
    expect(mb.statusCode, mb.body).toBe(201);
    const address = mb.json().mailbox.address as string;
    expect((await t.api('POST', '/api/orders', { order_id: 'NP-1', email: address, amount: 50, product: 'Pro' })).statusCode).toBe(201);
    const paid = await t.api('POST', '/api/orders/pay', { order_id: 'NP-1' });
    expect(paid.json().commission, `${paid.body} ${cookies} ${mb.body}`).toMatchObject({ ref_code: 'alice', commission: 5 });
    await t.service.ctx.dispatcher.drain();
    const posts = rx.requests.filter((r) => r.url.startsWith('/postback'));
    expect(posts.map((r) => r.url), JSON.stringify(await t.service.ctx.services.deliveries.list({ limit: 50 }))).toEqual(['/postback?order=NP-1&amount=50&click=nc-77']);
  });
});

describeEachDatabase('SSRF guard', (dialect) => {
  let t: TestService;
  let rx: WebhookReceiver;
  let rebound = false;
  beforeEach(async () => {
    rebound = false;
    rx = await startReceiver();
    t = await startTestService(dialect, {
      env: { SVC_WEBHOOK_ALLOW_PRIVATE: 'false' },
      resolver: async (host) => {
        if (host === 'localhost') return [{ address: '127.0.0.1', family: 4 }];
        if (host === 'public.example') return [{ address: '93.184.216.34', family: 4 }];
        if (host === 'rebind.example') return [{ address: rebound ? '127.0.0.1' : '93.184.216.34', family: 4 }];
        if (host === 'mixed.example') return [{ address: '93.184.216.34', family: 4 }, { address: '::1', family: 6 }];
        throw Object.assign(new Error('not found'), { code: 'ENOTFOUND' });
      },
    });
  });
  afterEach(async () => {
    await t.close();
    await rx.close();
  });

  it('refuses private, loopback, link-local, CGNAT and mapped addresses when the URL is saved', async () => {
    const admin = await t.admin();
    for (const url of [
      'http://127.0.0.1/hook',
      'http://169.254.169.254/latest/meta-data',
      'http://[::ffff:127.0.0.1]/hook',
      'http://[::ffff:7f00:1]/hook',
      'http://10.0.0.1/hook',
      'http://192.168.1.5/hook',
      'http://100.64.0.1/hook',
      'http://[::1]/hook',
      'http://0.0.0.0/hook',
      'http://224.0.0.1/hook',
      'http://localhost:8080/hook',
      'http://mixed.example/hook',
      'http://nowhere.invalid/hook',
    ]) {
      const res = await admin.call('PATCH', '/admin/api/settings', { webhook_url: url });
      expect(res.statusCode, url).toBe(400);
      expect(res.json(), url).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'webhook_url', message: expect.any(String) }] } });
    }
    // a local receiver is refused with the way to allow it
    const local = await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'http://localhost:8080/hook' });
    expect(local.json().error.details[0].message).toBe(
      'resolves to a private or reserved address (127.0.0.1); to allow loopback and private addresses (a local receiver), start svc with SVC_WEBHOOK_ALLOW_PRIVATE=true',
    );
    const ok = await admin.call('PATCH', '/admin/api/settings', { webhook_url: 'https://public.example/hook' });
    expect(ok.statusCode).toBe(200);
    expect(ok.json().settings.webhook_url).toBe('https://public.example/hook');
  });

  it('checks the resolved address at connect time, so DNS rebinding fails', async () => {
    const admin = await t.admin();
    const saved = await admin.call('PATCH', '/admin/api/settings', { webhook_url: `http://rebind.example:${rx.port}/hook` });
    expect(saved.statusCode).toBe(200);
    rebound = true;
    const e = await recordEvent(t.service.ctx.db, t.clock, 'order.paid', orderPaidData('o-ssrf'));
    await t.service.ctx.dispatcher.drain();
    expect(rx.requests).toHaveLength(0);
    const list = await admin.call('GET', '/admin/api/deliveries?target=webhook');
    expect(list.json().items).toMatchObject([{ event_id: e.id, status: 'pending', last_status_code: null }]);
    expect(list.json().items[0].last_error).toMatch(/private or reserved address \(127\.0\.0\.1\)/);
  });

  it('refuses a private IP literal at connect time (a URL stored before the guard)', async () => {
    await t.service.ctx.db.insertInto('settings').values({ key: 'webhook_url', value: JSON.stringify(`${rx.url}/hook`), updated_at: t.clock.now() }).execute();
    t.service.ctx.services.settings.invalidate();
    await recordEvent(t.service.ctx.db, t.clock, 'order.paid', orderPaidData('o-lit'));
    await t.service.ctx.dispatcher.drain();
    expect(rx.requests).toHaveLength(0);
    const admin = await t.admin();
    const items = (await admin.call('GET', '/admin/api/deliveries?target=webhook')).json().items;
    expect(items).toMatchObject([{ status: 'pending', attempt_count: 1 }]);
    expect(items[0].last_error).toMatch(/refused: 127\.0\.0\.1/);
  });
});
