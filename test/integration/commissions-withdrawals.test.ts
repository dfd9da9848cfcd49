import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAffiliate, addMailbox, balanceCents, earn, eventsOfType } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

describeEachDatabase('commissions and withdrawals', (dialect) => {
  let t: TestService;
  let n = 0;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'ann');
    await addMailbox(t, 'ann-buyer@svc.test', 'ann');
    await addAffiliate(t, 'wd');
    await addMailbox(t, 'wd-buyer@svc.test', 'wd');
  });
  afterAll(async () => {
    await t?.close();
  });

  async function pendingCommission(amount = 100, email = 'ann-buyer@svc.test'): Promise<{ id: string; commission: number }> {
    const id = `c-${++n}`;
    await t.api('POST', '/api/orders', { order_id: id, email, amount, product: 'p' });
    return (await t.api('POST', '/api/orders/pay', { order_id: id })).json().commission;
  }

  /** The day's counters of an affiliate, its stripes summed (migration 0021-counter-stripes). */
  const dailyRow = async (ref: string) => {
    const rows = await t.service.ctx.db.selectFrom('daily_stats').selectAll().where('ref_code', '=', ref).where('day', '=', '2026-01-15').execute();
    if (rows.length === 0) throw new Error(`no daily_stats for ${ref}`);
    const sum = (k: keyof (typeof rows)[number]) => rows.reduce((a, r) => a + Number(r[k]), 0);
    return {
      orders: sum('orders'),
      revenue_cents: sum('revenue_cents'),
      commission_pending_cents: sum('commission_pending_cents'),
      commission_approved_cents: sum('commission_approved_cents'),
      commission_paid_cents: sum('commission_paid_cents'),
      commission_void_cents: sum('commission_void_cents'),
      withdrawals_requested_cents: sum('withdrawals_requested_cents'),
      withdrawals_paid_cents: sum('withdrawals_paid_cents'),
    };
  };

  describe('commission state machine', () => {
    it('approve then mark-paid credits the balance and emits events; same-state actions are 200 unchanged', async () => {
      const c = await pendingCommission(100);
      const before = await balanceCents(t, 'ann');
      const approved = await t.api('POST', `/api/commissions/${c.id}/approve`);
      expect(approved.statusCode).toBe(200);
      expect(approved.json()).toEqual({ success: true, commission: { ...c, status: 'approved' } });
      const again = await t.api('POST', `/api/commissions/${c.id}/approve`);
      expect(again.statusCode).toBe(200);
      expect(again.json().commission.status).toBe('approved');
      expect(await balanceCents(t, 'ann')).toBe(before);

      const paid = await t.api('POST', `/api/commissions/${c.id}/mark-paid`);
      expect(paid.json()).toEqual({ success: true, commission: { ...c, status: 'paid' } });
      expect(await balanceCents(t, 'ann')).toBe(before + 1000);
      expect((await t.api('POST', `/api/commissions/${c.id}/mark-paid`)).json().commission.status).toBe('paid');
      expect(await balanceCents(t, 'ann')).toBe(before + 1000);

      for (const action of ['approve', 'void']) {
        const res = await t.api('POST', `/api/commissions/${c.id}/${action}`);
        expect(res.statusCode).toBe(409);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_transition' } });
      }
      const approvedEvents = (await eventsOfType(t, 'commission.approved')).filter((e) => (e.data as { commission: { id: string } }).commission.id === c.id);
      expect(approvedEvents.map((e) => e.data)).toEqual([{ commission: { ...c, status: 'approved' }, ref_code: 'ann' }]);
      const paidEvents = (await eventsOfType(t, 'commission.paid')).filter((e) => (e.data as { commission: { id: string } }).commission.id === c.id);
      expect(paidEvents.map((e) => e.data)).toEqual([{ commission: { ...c, status: 'paid' }, ref_code: 'ann' }]);
    });

    it('mark-paid from pending approves and pays in one step', async () => {
      const c = await pendingCommission(50);
      const before = await balanceCents(t, 'ann');
      const res = await t.api('POST', `/api/commissions/${c.id}/mark-paid`);
      expect(res.json().commission).toMatchObject({ id: c.id, status: 'paid' });
      expect(await balanceCents(t, 'ann')).toBe(before + 500);
    });

    it('void from pending and from approved; void is final', async () => {
      const a = await pendingCommission(10);
      const b = await pendingCommission(10);
      await t.api('POST', `/api/commissions/${b.id}/approve`);
      const before = await balanceCents(t, 'ann');
      for (const c of [a, b]) {
        const res = await t.api('POST', `/api/commissions/${c.id}/void`);
        expect(res.statusCode).toBe(200);
        expect(res.json().commission).toMatchObject({ id: c.id, status: 'void' });
        expect((await t.api('POST', `/api/commissions/${c.id}/void`)).statusCode).toBe(200);
        for (const action of ['approve', 'mark-paid']) {
          const res2 = await t.api('POST', `/api/commissions/${c.id}/${action}`);
          expect(res2.statusCode).toBe(409);
          expect(res2.json().error.code).toBe('invalid_transition');
        }
      }
      expect(await balanceCents(t, 'ann')).toBe(before);
      const voided = (await eventsOfType(t, 'commission.voided')).map((e) => (e.data as { commission: { id: string; status: string } }).commission);
      expect(voided.filter((v) => v.id === a.id || v.id === b.id).map((v) => v.status)).toEqual(['void', 'void']);
    });

    it('answers 404 commission_not_found for unknown ids, on actions and reads', async () => {
      for (const [method, url] of [
        ['POST', '/api/commissions/com_nope/approve'],
        ['POST', '/api/commissions/com_nope/void'],
        ['GET', '/api/commissions/com_nope'],
      ] as const) {
        const res = await t.api(method, url);
        expect(res.statusCode).toBe(404);
        expect(res.json().error.code).toBe('commission_not_found');
      }
    });

    it('works under /admin/api with session and CSRF', async () => {
      const c = await pendingCommission(20);
      const admin = await t.admin();
      const noCsrf = await t.request('POST', `/admin/api/commissions/${c.id}/approve`, undefined, { cookie: admin.cookie });
      expect(noCsrf.statusCode).toBe(403);
      const res = await admin.call('POST', `/admin/api/commissions/${c.id}/approve`);
      expect(res.json()).toMatchObject({ success: true, commission: { id: c.id, status: 'approved' } });
      expect((await t.api('GET', `/api/commissions/${c.id}`)).json().commission.status).toBe('approved');
    });

    it('moves amounts between the daily buckets', async () => {
      await addAffiliate(t, 'stats');
      await addMailbox(t, 'stats@svc.test', 'stats');
      const a = await pendingCommission(10, 'stats@svc.test');
      const b = await pendingCommission(20, 'stats@svc.test');
      const c = await pendingCommission(30, 'stats@svc.test');
      await pendingCommission(40, 'stats@svc.test');
      await t.api('POST', `/api/commissions/${a.id}/approve`);
      await t.api('POST', `/api/commissions/${b.id}/mark-paid`);
      await t.api('POST', `/api/commissions/${c.id}/void`);
      expect(await dailyRow('stats')).toMatchObject({
        orders: 4,
        commission_pending_cents: 400,
        commission_approved_cents: 100,
        commission_paid_cents: 200,
        commission_void_cents: 300,
      });
    });

    it('lists with status and ref_code filters and a cursor', async () => {
      const all: string[] = [];
      let cursor: string | null = null;
      do {
        const res = await t.api('GET', `/api/commissions?ref_code=stats&limit=3${cursor ? `&cursor=${cursor}` : ''}`);
        const body = res.json();
        expect(body.success).toBe(true);
        all.push(...body.items.map((c: { id: string; ref_code: string }) => c.ref_code));
        cursor = body.next_cursor;
      } while (cursor);
      expect(all).toEqual(['stats', 'stats', 'stats', 'stats']);
      const voided = await t.api('GET', '/api/commissions?status=void&ref_code=stats');
      expect(voided.json().items).toEqual([expect.objectContaining({ ref_code: 'stats', status: 'void', commission: 3 })]);
      expect(voided.json().next_cursor).toBeNull();
      // the contract's URL template with its blanks left empty means no filter
      const blank = await t.api('GET', '/api/commissions?status=&ref_code=stats');
      expect(blank.statusCode).toBe(200);
      expect(blank.json().items).toHaveLength(4);
      expect((await t.api('GET', '/api/commissions?status=weird')).statusCode).toBe(400);
      expect((await t.api('GET', '/api/commissions?ref_code=bad%20code')).statusCode).toBe(400);
    });
  });

  describe('withdrawals', () => {
    it('answers 404 affiliate_not_found for an unknown code and 400 for bad bodies', async () => {
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'nobody', amount: 1 });
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'affiliate_not_found' } });
      for (const body of [{ ref_code: 'wd', amount: 0 }, { ref_code: 'wd', amount: 1.001 }, { ref_code: 'wd', amount: '1' }, { ref_code: 'wd' }, { amount: 1 }, { ref_code: 'a b', amount: 1 }]) {
        const bad = await t.api('POST', '/api/withdrawals', body);
        expect(bad.statusCode, JSON.stringify(body)).toBe(400);
        expect(bad.json().error.code).toBe('invalid_request');
      }
    });

    it('refuses more than the paid balance with 422 and details.available; pending and approved do not count', async () => {
      const none = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 0.01 });
      expect(none.statusCode).toBe(422);
      expect(none.json()).toEqual({ success: false, error: { code: 'insufficient_balance', message: expect.any(String), details: { available: 0 } } });
      await earn(t, 'wd-1', 'wd-buyer@svc.test', 123.4); // commission 12.34 paid
      const pending = await pendingCommission(1000, 'wd-buyer@svc.test');
      await t.api('POST', `/api/commissions/${pending.id}/approve`);
      const over = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 12.35 });
      expect(over.statusCode).toBe(422);
      expect(over.json().error.details).toEqual({ available: 12.34 });
    });

    it('creates a withdrawal with 201 and a withdrawal.requested event, and the balance drops', async () => {
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 10.34 });
      expect(res.statusCode).toBe(201);
      const w = res.json().withdrawal;
      expect(res.json()).toEqual({ success: true, withdrawal: { id: expect.stringMatching(/^wd_/), ref_code: 'wd', amount: 10.34, currency: 'USD', status: 'requested', payout: { method: 'other', note: 'paid by hand' }, batch_id: null, created_at: '2026-01-15T12:00:00.000Z' } });
      expect(await balanceCents(t, 'wd')).toBe(200);
      const ev = (await eventsOfType(t, 'withdrawal.requested')).find((e) => (e.data as { withdrawal: { id: string } }).withdrawal.id === w.id);
      expect(ev).toEqual({ event: 'withdrawal.requested', id: expect.stringMatching(/^evt_/), ts: expect.any(Number), data: { withdrawal: w, ref_code: 'wd' } });
      const over = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 2.01 });
      expect(over.json().error.details.available).toBe(2);
      expect((await t.api('GET', `/api/withdrawals/${w.id}`)).json()).toEqual({ success: true, withdrawal: w });
    });

    it('reject returns the funds; mark-paid keeps them out; both final with the 200/409 rules', async () => {
      const a = (await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 })).json().withdrawal;
      const b = (await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 })).json().withdrawal;
      expect(await balanceCents(t, 'wd')).toBe(0);
      const rejected = await t.api('POST', `/api/withdrawals/${a.id}/reject`);
      expect(rejected.json()).toEqual({ success: true, withdrawal: { ...a, status: 'rejected' } });
      expect(await balanceCents(t, 'wd')).toBe(100);
      expect((await t.api('POST', `/api/withdrawals/${a.id}/reject`)).json().withdrawal.status).toBe('rejected');
      expect(await balanceCents(t, 'wd')).toBe(100);
      const cannot = await t.api('POST', `/api/withdrawals/${a.id}/mark-paid`);
      expect(cannot.statusCode).toBe(409);
      expect(cannot.json().error.code).toBe('invalid_transition');

      const paid = await t.api('POST', `/api/withdrawals/${b.id}/mark-paid`);
      expect(paid.json()).toEqual({ success: true, withdrawal: { ...b, status: 'paid' } });
      expect((await t.api('POST', `/api/withdrawals/${b.id}/mark-paid`)).statusCode).toBe(200);
      expect((await t.api('POST', `/api/withdrawals/${b.id}/reject`)).statusCode).toBe(409);
      expect(await balanceCents(t, 'wd')).toBe(100);

      const rejectedEv = (await eventsOfType(t, 'withdrawal.rejected')).map((e) => e.data);
      expect(rejectedEv).toContainEqual({ withdrawal: { ...a, status: 'rejected' }, ref_code: 'wd' });
      const paidEv = (await eventsOfType(t, 'withdrawal.paid')).map((e) => e.data);
      expect(paidEv).toContainEqual({ withdrawal: { ...b, status: 'paid' }, ref_code: 'wd' });
      expect(await dailyRow('wd')).toMatchObject({ withdrawals_requested_cents: 1034, withdrawals_paid_cents: 100 });

      const missing = await t.api('POST', '/api/withdrawals/wd_nope/reject');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('withdrawal_not_found');
    });

    it('lets a disabled affiliate withdraw its earned balance', async () => {
      const admin = await t.admin();
      await admin.call('PATCH', '/admin/api/affiliates/wd', { status: 'disabled' });
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 });
      expect(res.statusCode).toBe(201);
      // its attributed mailboxes still earn: attribution was made while it was active
      await t.api('POST', '/api/orders', { order_id: 'after-disable', email: 'wd-buyer@svc.test', amount: 10, product: 'p' });
      expect((await t.api('POST', '/api/orders/pay', { order_id: 'after-disable' })).json().commission).toMatchObject({ ref_code: 'wd', commission: 1 });
      await admin.call('PATCH', '/admin/api/affiliates/wd', { status: 'active' });
    });

    it('lists with filters and a cursor', async () => {
      const res = await t.api('GET', '/api/withdrawals?ref_code=wd&status=requested');
      expect(res.json()).toEqual({ success: true, items: [expect.objectContaining({ ref_code: 'wd', status: 'requested' }), expect.objectContaining({ status: 'requested' })], next_cursor: null });
      const first = await t.api('GET', '/api/withdrawals?ref_code=wd&limit=2');
      expect(first.json().items).toHaveLength(2);
      const second = await t.api('GET', `/api/withdrawals?ref_code=wd&limit=2&cursor=${first.json().next_cursor}`);
      expect(second.json().items).toHaveLength(2);
      expect(second.json().next_cursor).toBeNull();
      const ids = [...first.json().items, ...second.json().items].map((w: { id: string }) => w.id);
      expect(new Set(ids).size).toBe(4);
      const blank = await t.api('GET', '/api/withdrawals?status=&ref_code=wd&cursor=');
      expect(blank.statusCode).toBe(200);
      expect(blank.json().items).toHaveLength(4);
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response without acting again', async () => {
      await earn(t, 'idem-1', 'wd-buyer@svc.test', 100); // +10.00
      const balance = await balanceCents(t, 'wd');
      const key = { 'idempotency-key': 'wd-key-1' };
      const first = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 3 }, key);
      expect(first.statusCode).toBe(201);
      const second = await t.api('POST', '/api/withdrawals', { amount: 3, ref_code: 'wd' }, key);
      expect(second.statusCode).toBe(201);
      expect(second.json()).toEqual(first.json());
      expect(second.headers['idempotent-replayed']).toBe('true');
      expect(await balanceCents(t, 'wd')).toBe(balance - 300);
      const listed = (await t.api('GET', '/api/withdrawals?ref_code=wd&limit=500')).json().items.filter((w: { id: string }) => w.id === first.json().withdrawal.id);
      expect(listed).toHaveLength(1);
    });

    it('answers 409 idempotency_conflict for another body or path under the same key', async () => {
      const key = { 'idempotency-key': 'wd-key-1' };
      const other = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 4 }, key);
      expect(other.statusCode).toBe(409);
      expect(other.json()).toMatchObject({ success: false, error: { code: 'idempotency_conflict' } });
      const otherPath = await t.api('POST', '/api/orders', { order_id: 'x', email: 'a@b.co', amount: 1, product: 'p' }, key);
      expect(otherPath.statusCode).toBe(409);
      expect(otherPath.json().error.code).toBe('idempotency_conflict');
    });

    it('replays error answers too (a 422 stays a 422) and works on orders and pay', async () => {
      const key = { 'idempotency-key': 'too-much' };
      const first = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 999999 }, key);
      expect(first.statusCode).toBe(422);
      const again = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 999999 }, key);
      expect(again.statusCode).toBe(422);
      expect(again.json()).toEqual(first.json());

      const order = { order_id: 'idem-order', email: 'ann-buyer@svc.test', amount: 10, product: 'p' };
      const created = await t.api('POST', '/api/orders', order, { 'idempotency-key': 'ord-k' });
      expect(created.statusCode).toBe(201);
      expect((await t.api('POST', '/api/orders', order, { 'idempotency-key': 'ord-k' })).statusCode).toBe(201);
      const pay1 = await t.api('POST', '/api/orders/pay', { order_id: 'idem-order' }, { 'idempotency-key': 'pay-k' });
      const pay2 = await t.api('POST', '/api/orders/pay', { order_id: 'idem-order' }, { 'idempotency-key': 'pay-k' });
      expect(pay2.json()).toEqual(pay1.json());
    });

    it('answers 409 while the first request with the key is still in flight, and frees stale claims', async () => {
      const now = t.clock.now();
      await t.service.ctx.db
        .insertInto('idempotency_keys')
        .values({ key: 'in-flight', method: 'POST', path: '/api/withdrawals', request_hash: 'h', state: 'processing', response_status: null, response_body: null, created_at: now })
        .execute();
      const res = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, { 'idempotency-key': 'in-flight' });
      expect(res.statusCode).toBe(409);
      expect(res.json().error.code).toBe('idempotency_conflict');
      // the claim of a request that died is taken over after a while
      t.clock.advance(10 * 60 * 1000);
      const later = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, { 'idempotency-key': 'in-flight' });
      expect(later.statusCode).toBe(201);
    });

    it('keeps keys for 24 hours and purges them afterwards', async () => {
      const key = { 'idempotency-key': 'day-key' };
      const first = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, key);
      expect(first.statusCode).toBe(201);
      t.clock.advance(24 * 60 * 60 * 1000);
      const replay = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, key);
      expect(replay.json()).toEqual(first.json());
      t.clock.advance(2 * 60 * 60 * 1000);
      const fresh = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, key);
      expect(fresh.statusCode).toBe(201);
      expect(fresh.json().withdrawal.id).not.toBe(first.json().withdrawal.id);
    });

    it('does not store a 5xx answer: the key is released and the retry acts', async () => {
      const db = t.service.ctx.db;
      const balance = await balanceCents(t, 'wd');
      await sql`alter table withdrawals rename to withdrawals_off`.execute(db);
      let failed: Awaited<ReturnType<TestService['api']>>;
      try {
        failed = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, { 'idempotency-key': 'fails-once' });
      } finally {
        await sql`alter table withdrawals_off rename to withdrawals`.execute(db);
      }
      expect(failed.statusCode).toBe(500);
      expect(failed.json()).toEqual({ success: false, error: { code: 'internal_error', message: expect.not.stringMatching(/withdrawals|insert|sql/i) } });
      expect(await balanceCents(t, 'wd')).toBe(balance);
      const retry = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, { 'idempotency-key': 'fails-once' });
      expect(retry.statusCode).toBe(201);
      expect(await balanceCents(t, 'wd')).toBe(balance - 100);
    });

    it('does not apply to GET or to /admin/api, and refuses a malformed key', async () => {
      const get = await t.api('GET', '/api/withdrawals?limit=1', undefined, { 'idempotency-key': 'wd-key-1' });
      expect(get.statusCode).toBe(200);
      const bad = await t.api('POST', '/api/withdrawals', { ref_code: 'wd', amount: 1 }, { 'idempotency-key': 'x'.repeat(300) });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.code).toBe('invalid_request');
    });
  });
});
