import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAffiliate, addMailbox, disableAffiliate, eventsOfType, insertDanglingMailbox } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeEachDatabase('orders and pay', (dialect) => {
  let t: TestService;
  let n = 0;
  const nextId = () => `ord-${++n}`;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'alice');
    await addAffiliate(t, 'bob', { rateBp: 2550 });
    await addAffiliate(t, 'gone');
    await addMailbox(t, 'buyer@svc.test', 'alice');
    await addMailbox(t, 'bobs@svc.test', 'bob');
    await addMailbox(t, 'plain@svc.test', null);
    await addMailbox(t, 'late@svc.test', 'gone');
    await disableAffiliate(t, 'gone'); // after attributing a mailbox
    await insertDanglingMailbox(t, 'ghost@svc.test', 'nobody');
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('POST /api/orders', () => {
    it('creates an order with 201 and normalises the email', async () => {
      const res = await t.api('POST', '/api/orders', { order_id: 'A-1', email: '  Buyer@SVC.test ', amount: 19.99, product: 'Pro plan' });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({
        success: true,
        order: { order_id: 'A-1', email: 'buyer@svc.test', amount: 19.99, currency: 'USD', product: 'Pro plan', status: 'created', created_at: '2026-01-15T12:00:00.000Z' },
      });
    });

    it('replays the same order with 200 and refuses different fields with 409 order_exists', async () => {
      const body = { order_id: 'A-2', email: 'x@example.com', amount: 5, product: 'p' };
      expect((await t.api('POST', '/api/orders', body)).statusCode).toBe(201);
      t.clock.advance(1000);
      const again = await t.api('POST', '/api/orders', { ...body, email: 'X@Example.com' });
      expect(again.statusCode).toBe(200);
      expect(again.json().order).toMatchObject({ order_id: 'A-2', amount: 5, created_at: '2026-01-15T12:00:00.000Z' });
      for (const diff of [{ amount: 5.01 }, { product: 'q' }, { email: 'y@example.com' }]) {
        const res = await t.api('POST', '/api/orders', { ...body, ...diff });
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'order_exists' } });
      }
    });

    it.each([
      [{ amount: 10.123 }, 'amount'],
      [{ amount: 0 }, 'amount'],
      [{ amount: -5 }, 'amount'],
      [{ amount: '10' }, 'amount'],
      [{ amount: null }, 'amount'],
      [{ amount: 1000000000.01 }, 'amount'],
      [{ amount: 1000000000.004 }, 'amount'],
      [{ amount: 123456789.123 }, 'amount'],
      [{ amount: 10000000.005 }, 'amount'],
      [{ amount: 999999999.999 }, 'amount'],
      [{ amount: 1e10 }, 'amount'],
      [{ amount: undefined }, 'amount'],
      [{ order_id: '' }, 'order_id'],
      [{ order_id: 'x'.repeat(129) }, 'order_id'],
      [{ order_id: 42 }, 'order_id'],
      [{ email: 'not-an-email' }, 'email'],
      [{ email: 'two@@example.com' }, 'email'],
      [{ email: 'sp ace@example.com' }, 'email'],
      [{ email: 'a@-bad-.com' }, 'email'],
      [{ email: 42 }, 'email'],
      [{ email: undefined }, 'email'],
      [{ product: '' }, 'product'],
      [{ product: '   ' }, 'product'],
      [{ product: 'x'.repeat(501) }, 'product'],
    ])('refuses %j with 400 naming %s', async (patch, field) => {
      const body = { order_id: nextId(), email: 'a@b.co', amount: 10, product: 'p', ...patch };
      const res = await t.api('POST', '/api/orders', body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('refuses NaN-ish and non-JSON bodies with 400', async () => {
      const res = await t.api('POST', '/api/orders', '{"order_id":"z","email":"a@b.co","amount":NaN,"product":"p"}', { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      const inf = await t.api('POST', '/api/orders', '{"order_id":"z","email":"a@b.co","amount":1e400,"product":"p"}', { 'content-type': 'application/json' });
      expect(inf.statusCode).toBe(400);
    });

    it('accepts emails on single-label mail domains', async () => {
      const res = await t.api('POST', '/api/orders', { order_id: nextId(), email: 'Box.1+x@LOCALHOST', amount: 1, product: 'p' });
      expect(res.statusCode).toBe(201);
      expect(res.json().order.email).toBe('box.1+x@localhost');
    });

    it('accepts the largest amount exactly and keeps cents exact', async () => {
      const big = await t.api('POST', '/api/orders', { order_id: nextId(), email: 'a@b.co', amount: 1000000000, product: 'p' });
      expect(big.statusCode).toBe(201);
      expect(big.json().order.amount).toBe(1000000000);
      const odd = await t.api('POST', '/api/orders', { order_id: nextId(), email: 'a@b.co', amount: 0.29, product: 'p' });
      expect(odd.json().order.amount).toBe(0.29);
      const tiny = await t.api('POST', '/api/orders', { order_id: nextId(), email: 'a@b.co', amount: 0.01, product: 'p' });
      expect(tiny.json().order.amount).toBe(0.01);
    });
  });

  describe('POST /api/orders/pay', () => {
    it('answers 404 order_not_found for an unknown order', async () => {
      const res = await t.api('POST', '/api/orders/pay', { order_id: 'nope' });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'order_not_found' } });
    });

    it('refuses a missing order_id with 400', async () => {
      const res = await t.api('POST', '/api/orders/pay', {});
      expect(res.statusCode).toBe(400);
      expect(res.json().error.details[0].field).toBe('order_id');
    });

    it('pays an attributed order: pending commission at the global rate, order.paid event, replay without a second one', async () => {
      const id = nextId();
      await t.api('POST', '/api/orders', { order_id: id, email: 'BUYER@svc.test', amount: 123.45, product: 'Box' });
      t.clock.advance(60_000);
      const res = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(res.statusCode).toBe(200);
      const body = res.json();
      expect(body).toEqual({
        success: true,
        order: { order_id: id, email: 'buyer@svc.test', amount: 123.45, currency: 'USD', product: 'Box', status: 'paid', created_at: expect.stringMatching(ISO), paid_at: expect.stringMatching(ISO) },
        commission: { id: expect.stringMatching(/^com_/), order_id: id, ref_code: 'alice', amount: 123.45, rate: 10, commission: 12.35, currency: 'USD', status: 'pending', kind: 'sale', rule_id: null, void_reason: null, hold: null, created_at: body.order.paid_at },
      });
      const events = (await eventsOfType(t, 'order.paid')).filter((e) => (e.data as { order: { id: string } }).order.id === id);
      expect(events).toHaveLength(1);
      expect(events[0]).toEqual({
        event: 'order.paid',
        id: expect.stringMatching(/^evt_/),
        ts: Math.floor(t.clock.now() / 1000),
        data: { order: { id, email: 'buyer@svc.test', amount: 123.45, currency: 'USD', product: 'Box', status: 'paid' }, commission: body.commission, ref_code: 'alice' },
      });

      t.clock.advance(60_000);
      const again = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(again.statusCode).toBe(200);
      expect(again.json()).toEqual(body);
      expect((await eventsOfType(t, 'order.paid')).filter((e) => (e.data as { order: { id: string } }).order.id === id)).toHaveLength(1);
      const list = await t.api('GET', `/api/commissions?ref_code=alice`);
      expect(list.json().items.filter((c: { order_id: string }) => c.order_id === id)).toHaveLength(1);
    });

    it("uses the affiliate's own rate over the global one", async () => {
      const id = nextId();
      await t.api('POST', '/api/orders', { order_id: id, email: 'bobs@svc.test', amount: 10, product: 'p' });
      const res = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(res.json().commission).toMatchObject({ ref_code: 'bob', rate: 25.5, commission: 2.55 });
    });

    it('uses the global commission_rate setting as it is at payment time', async () => {
      const admin = await t.admin();
      await admin.call('PATCH', '/admin/api/settings', { commission_rate: 7.5 });
      const id = nextId();
      await t.api('POST', '/api/orders', { order_id: id, email: 'buyer@svc.test', amount: 100, product: 'p' });
      const res = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(res.json().commission).toMatchObject({ rate: 7.5, commission: 7.5 });
      await admin.call('PATCH', '/admin/api/settings', { commission_rate: 10 });
    });

    it.each([
      // amount, rate (percent), expected commission: half-up to the cent
      [0.05, 10, 0.01], // 0.005 -> 0.01
      [0.04, 10, 0], // 0.004 -> 0.00
      [0.15, 10, 0.02], // 0.015 -> 0.02 (a float would say 0.01)
      [1.05, 50, 0.53], // 0.525 -> 0.53
      [10.01, 33.33, 3.34], // 3.336333 -> 3.34
      [99.99, 12.5, 12.5], // 12.49875 -> 12.50
      [2.5, 1, 0.03], // 0.025 -> 0.03
      [1000000000, 100, 1000000000],
    ])('rounds %d at %d%% half-up to %d', async (amount, rate, expected) => {
      const ref = `r${String(rate).replace('.', '_')}`;
      const exists = await t.service.ctx.db.selectFrom('affiliates').select('ref_code').where('ref_code', '=', ref).executeTakeFirst();
      if (!exists) {
        await addAffiliate(t, ref, { rateBp: Math.round(rate * 100) });
        await addMailbox(t, `${ref}@svc.test`, ref);
      }
      const id = nextId();
      await t.api('POST', '/api/orders', { order_id: id, email: `${ref}@svc.test`, amount, product: 'p' });
      const res = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(res.json().commission).toMatchObject({ amount, rate, commission: expected });
    });

    it('pays an unattributed order with commission null and an order.paid event with nulls', async () => {
      for (const email of ['plain@svc.test', 'nomailbox@example.com', 'ghost@svc.test']) {
        const id = nextId();
        await t.api('POST', '/api/orders', { order_id: id, email, amount: 10, product: 'p' });
        const res = await t.api('POST', '/api/orders/pay', { order_id: id });
        expect(res.statusCode).toBe(200);
        expect(res.json()).toMatchObject({ success: true, order: { order_id: id, status: 'paid' }, commission: null });
        const ev = (await eventsOfType(t, 'order.paid')).find((e) => (e.data as { order: { id: string } }).order.id === id);
        expect(ev?.data).toEqual({ order: { id, email, amount: 10, currency: 'USD', product: 'p', status: 'paid' }, commission: null, ref_code: null });
      }
    });

    it('still credits an affiliate disabled after attribution', async () => {
      const id = nextId();
      await t.api('POST', '/api/orders', { order_id: id, email: 'late@svc.test', amount: 10, product: 'p' });
      const res = await t.api('POST', '/api/orders/pay', { order_id: id });
      expect(res.json().commission).toMatchObject({ ref_code: 'gone', commission: 1 });
    });

    it('counts paid attributed orders and pending commission in the daily rollup', async () => {
      const rows = await t.service.ctx.db.selectFrom('daily_stats').selectAll().where('ref_code', '=', 'bob').execute();
      // one day, its stripes summed (migration 0021-counter-stripes)
      expect(new Set(rows.map((r) => r.day)).size).toBe(1);
      expect(rows.reduce((a, r) => a + Number(r.orders), 0)).toBe(1);
      expect(rows.reduce((a, r) => a + Number(r.commission_pending_cents), 0)).toBe(255);
    });
  });

  describe('GET /api/orders', () => {
    it('reads one order and 404s an unknown one', async () => {
      const res = await t.api('GET', '/api/orders/A-1');
      expect(res.json()).toEqual({ success: true, order: expect.objectContaining({ order_id: 'A-1', status: 'created' }), commission: null });
      const paid = (await t.api('GET', '/api/orders?status=paid&q=ord-&limit=500')).json().items as { order_id: string; email: string }[];
      const attributed = paid.find((o) => o.email === 'bobs@svc.test') as { order_id: string };
      const withCommission = await t.api('GET', `/api/orders/${attributed.order_id}`);
      expect(withCommission.json()).toMatchObject({ success: true, order: { status: 'paid', paid_at: expect.any(String) }, commission: { ref_code: 'bob', order_id: attributed.order_id } });
      const missing = await t.api('GET', '/api/orders/none');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('order_not_found');
    });

    it('filters by status, email and prefix and pages with a cursor', async () => {
      for (let i = 0; i < 5; i++) {
        await t.api('POST', '/api/orders', { order_id: `page-${i}`, email: 'pager@example.com', amount: 1, product: 'p' });
        t.clock.advance(i % 2 === 0 ? 0 : 1000);
      }
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.api('GET', `/api/orders?email=PAGER@example.com&limit=2${cursor ? `&cursor=${cursor}` : ''}`);
        expect(res.statusCode).toBe(200);
        const body = res.json();
        expect(body.items.length).toBeLessThanOrEqual(2);
        seen.push(...body.items.map((o: { order_id: string }) => o.order_id));
        cursor = body.next_cursor;
      } while (cursor);
      expect(seen.sort()).toEqual(['page-0', 'page-1', 'page-2', 'page-3', 'page-4']);
      const byPrefix = await t.api('GET', '/api/orders?q=page-&limit=500');
      expect(byPrefix.json().items).toHaveLength(5);
      const byEmailPrefix = await t.api('GET', '/api/orders?q=PAGER&limit=500');
      expect(byEmailPrefix.json().items).toHaveLength(5);
      const paid = await t.api('GET', '/api/orders?status=paid&limit=500');
      expect(paid.json().items.every((o: { status: string }) => o.status === 'paid')).toBe(true);
      expect(paid.json().next_cursor).toBeNull();
    });

    it('refuses bad list parameters with 400', async () => {
      for (const q of ['limit=0', 'limit=501', 'limit=x', 'status=gone', 'cursor=!!!']) {
        const res = await t.api('GET', `/api/orders?${q}`);
        expect(res.statusCode, q).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
    });

    it('is also served under /admin/api with a session', async () => {
      const admin = await t.admin();
      const res = await admin.call('GET', '/admin/api/orders/A-1');
      expect(res.json()).toMatchObject({ success: true, order: { order_id: 'A-1' } });
    });
  });
});
