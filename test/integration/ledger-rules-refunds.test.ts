import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { addAffiliate, addMailbox, balanceCents, earn, eventsOfType } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';

const DAY = 86_400_000;

/** The ledger (docs/ledger.md#the-ledger) through HTTP: exact rates, commission rules, refunds and clawbacks, the holding period. */
describeEachDatabase('ledger of real affiliate programs', (dialect) => {
  let t: TestService;
  let admin: AdminClient;
  let n = 0;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  // a fresh session per test: tests move the clock by weeks
  beforeEach(async () => {
    admin = await t.admin();
  });
  afterAll(async () => {
    await t?.close();
  });

  /** An affiliate with one attributed customer mailbox; returns the mailbox address. */
  async function affiliateWithCustomer(ref: string, rateBp?: number): Promise<string> {
    await addAffiliate(t, ref, { rateBp });
    const email = `${ref}-buyer@svc.test`;
    await addMailbox(t, email, ref);
    return email;
  }

  async function pay(email: string, amount: number, product = 'Pro'): Promise<{ order: Record<string, unknown>; commission: Record<string, unknown> | null }> {
    const id = `lr-${++n}`;
    expect((await t.api('POST', '/api/orders', { order_id: id, email, amount, product })).statusCode).toBe(201);
    const res = await t.api('POST', '/api/orders/pay', { order_id: id });
    expect(res.statusCode).toBe(200);
    return res.json();
  }

  const rule = async (body: Record<string, unknown>) => {
    const res = await t.api('POST', '/api/commission-rules', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().rule as { id: string };
  };

  describe('exact rates', () => {
    it('refuses a rate with more than 2 decimals everywhere one is given, and books exactly the stored one', async () => {
      for (const bad of [25.0000000001, 10.555, 100.01, -0.01, '10']) {
        const s = await admin.call('PATCH', '/admin/api/settings', { commission_rate: bad });
        expect(s.statusCode).toBe(400);
        expect(s.json().error).toMatchObject({ code: 'invalid_request', details: [expect.objectContaining({ field: 'commission_rate' })] });
        expect((await t.api('POST', '/api/affiliates', { ref_code: 'badrate', commission_rate: bad })).statusCode).toBe(400);
        expect((await t.api('POST', '/api/commission-rules', { product: 'X', rate: bad })).statusCode).toBe(400);
      }
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.commission_rate).toBe(10);
      const set = await admin.call('PATCH', '/admin/api/settings', { commission_rate: 25.55 });
      expect(set.json().settings.commission_rate).toBe(25.55);
      const email = await affiliateWithCustomer('exact');
      const paid = await pay(email, 100);
      expect(paid.commission).toMatchObject({ rate: 25.55, commission: 25.55, rule_id: null });
      expect((await admin.call('PATCH', '/admin/api/settings', { commission_rate: 10 })).statusCode).toBe(200);
    });
  });

  describe('commission rules', () => {
    it('uses the first match: affiliate+product, then product, then affiliate, else the affiliate rate, else the global rate', async () => {
      const email = await affiliateWithCustomer('ruled', 2000);
      const both = await rule({ ref_code: 'ruled', product: 'Gold', rate: 50 });
      const product = await rule({ product: 'Gold', rate: 30 });
      const productOnly = await rule({ product: 'Silver', flat: 7 });
      const affiliate = await rule({ ref_code: 'ruled', rate: 40 });
      expect((await pay(email, 100, 'Gold')).commission).toMatchObject({ commission: 50, rate: 50, rule_id: both.id });
      expect((await pay(email, 100, 'Silver')).commission).toMatchObject({ commission: 7, rate: 0, rule_id: productOnly.id });
      expect((await pay(email, 100, 'Other')).commission).toMatchObject({ commission: 40, rule_id: affiliate.id });
      // another affiliate buying Gold gets the product rule
      const other = await affiliateWithCustomer('plain', 1500);
      expect((await pay(other, 100, 'Gold')).commission).toMatchObject({ commission: 30, rule_id: product.id });
      expect((await pay(other, 100, 'Other')).commission).toMatchObject({ commission: 15, rule_id: null });
      const global = await affiliateWithCustomer('globalrate');
      expect((await pay(global, 100, 'Other')).commission).toMatchObject({ commission: 10, rate: 10, rule_id: null });
      // deleting the affiliate rule returns it to its own rate; booked commissions keep their rule_id
      expect((await t.api('DELETE', `/api/commission-rules/${affiliate.id}`)).json()).toEqual({ success: true });
      expect((await pay(email, 100, 'Other')).commission).toMatchObject({ commission: 20, rule_id: null });
      const listed = (await t.api('GET', '/api/commissions?ref_code=ruled')).json().items.map((c: { rule_id: string | null }) => c.rule_id);
      expect(listed).toContain(affiliate.id);
    });

    it('caps a flat amount at the order amount', async () => {
      const email = await affiliateWithCustomer('flatcap');
      await rule({ ref_code: 'flatcap', flat: 25 });
      expect((await pay(email, 10)).commission).toMatchObject({ commission: 10 });
      expect((await pay(email, 100)).commission).toMatchObject({ commission: 25 });
    });

    it('duration_days: no commission for an order paid more than that many days after attribution', async () => {
      const email = await affiliateWithCustomer('durable');
      const r = await rule({ ref_code: 'durable', rate: 20, duration_days: 30 });
      t.clock.advance(29 * DAY);
      expect((await pay(email, 100)).commission).toMatchObject({ commission: 20, rule_id: r.id });
      t.clock.advance(2 * DAY);
      const late = await pay(email, 100);
      expect(late.commission).toBeNull();
      expect(late.order.status).toBe('paid');
    });

    it('max_orders: no commission after that many commissioned orders of the same customer', async () => {
      const email = await affiliateWithCustomer('capped');
      await rule({ ref_code: 'capped', rate: 10, max_orders: 2 });
      expect((await pay(email, 100)).commission).toMatchObject({ commission: 10 });
      expect((await pay(email, 100)).commission).toMatchObject({ commission: 10 });
      const uncommissioned = await pay(email, 100);
      expect(uncommissioned.commission).toBeNull();
      // another customer of the same affiliate starts at zero
      await addMailbox(t, 'capped-second@svc.test', 'capped');
      expect((await pay('capped-second@svc.test', 100)).commission).toMatchObject({ commission: 10 });
      // an order the rule booked nothing for is still a paid attributed order (docs/api.md#reports), and its
      // refund lowers the revenue like any other
      const summary = async () => (await t.api('GET', '/api/affiliate/summary?ref_code=capped')).json().summary[0];
      expect(await summary()).toMatchObject({ orders: 4, revenue: 400, commission: { pending: 30, total: 30 } });
      const refunded = await t.api('POST', '/api/orders/refund', { order_id: uncommissioned.order.order_id, amount: 40 });
      expect(refunded.json()).toMatchObject({ order: { status: 'partially_refunded', refunded_amount: 40 }, commission: null, clawback: null });
      expect(await summary()).toMatchObject({ orders: 4, revenue: 360, commission: { pending: 30, total: 30 } });
    });

    it('validates rules: exactly one of rate and flat, an affiliate or a product, a known affiliate; patch and 404', async () => {
      for (const body of [{ product: 'P', rate: 5, flat: 1 }, { product: 'P' }, { rate: 5 }, { product: 'P', rate: 5, duration_days: 0 }, { product: 'P', flat: 0 }, { product: 'P', rate: 5, extra: 1 }]) {
        const res = await t.api('POST', '/api/commission-rules', body);
        expect(res.statusCode, JSON.stringify(body)).toBe(400);
        expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
      }
      expect((await t.api('POST', '/api/commission-rules', { ref_code: 'ghost', rate: 5 })).json().error.code).toBe('affiliate_not_found');
      const r = await rule({ product: 'Patchable', flat: 2 });
      const patched = await admin.call('PATCH', `/admin/api/commission-rules/${r.id}`, { rate: 12.5, max_orders: 3 });
      expect(patched.json().rule).toEqual({ id: r.id, ref_code: null, product: 'Patchable', rate: 12.5, flat: null, currency: 'USD', duration_days: null, max_orders: 3, created_at: expect.any(String) });
      expect((await t.api('PATCH', `/api/commission-rules/${r.id}`, { flat: 1, rate: 2 })).statusCode).toBe(400);
      expect((await t.api('PATCH', '/api/commission-rules/nope', { rate: 1 })).json().error.code).toBe('commission_rule_not_found');
      const listed = (await admin.call('GET', '/admin/api/commission-rules?limit=500')).json().items.map((x: { id: string }) => x.id);
      expect(listed).toContain(r.id);
      expect((await admin.call('DELETE', `/admin/api/commission-rules/${r.id}`)).statusCode).toBe(200);
      expect((await t.api('DELETE', `/api/commission-rules/${r.id}`)).statusCode).toBe(404);
    });
  });

  describe('refunds', () => {
    it('reduces a pending commission, voids it on a full refund, and answers the errors of the contract', async () => {
      const email = await affiliateWithCustomer('refunder');
      const { order, commission } = await pay(email, 100);
      const partial = await t.api('POST', '/api/orders/refund', { order_id: order.order_id, amount: 30 });
      expect(partial.statusCode).toBe(200);
      expect(partial.json()).toMatchObject({
        order: { status: 'partially_refunded', refunded_amount: 30, amount: 100 },
        refund: { amount: 30 },
        commission: { id: commission?.id, status: 'pending', commission: 7 },
        clawback: null,
      });
      const over = await t.api('POST', '/api/orders/refund', { order_id: order.order_id, amount: 70.01 });
      expect(over.statusCode).toBe(422);
      expect(over.json().error).toMatchObject({ code: 'refund_exceeds_amount', details: { refundable: 70 } });
      const rest = await t.api('POST', '/api/orders/refund', { order_id: order.order_id });
      expect(rest.json()).toMatchObject({ order: { status: 'refunded', refunded_amount: 100 }, refund: { amount: 70 }, commission: { status: 'void', void_reason: 'refunded', commission: 7 } });
      expect((await t.api('POST', '/api/orders/refund', { order_id: order.order_id })).json().error.code).toBe('refund_exceeds_amount');
      expect((await t.api('POST', '/api/orders/refund', { order_id: 'never-there' })).json().error.code).toBe('order_not_found');
      await t.api('POST', '/api/orders', { order_id: 'unpaid-refund', email, amount: 5, product: 'Pro' });
      const unpaid = await t.api('POST', '/api/orders/refund', { order_id: 'unpaid-refund' });
      expect(unpaid.statusCode).toBe(409);
      expect(unpaid.json().error.code).toBe('invalid_transition');
      expect((await t.api('POST', '/api/orders/refund', { order_id: order.order_id, amount: 0 })).statusCode).toBe(400);
      // a voided-by-refund commission cannot be approved; the summary counts it as void
      expect((await t.api('POST', `/api/commissions/${commission?.id}/approve`)).statusCode).toBe(409);
      const row = (await t.api('GET', '/api/affiliate/summary?ref_code=refunder')).json().summary[0];
      expect(row.commission).toEqual({ pending: 0, approved: 0, paid: 0, void: 7, total: 0 });
      const events = (await eventsOfType(t, 'order.refunded')).filter((e) => (e.data as { order: { id: string } }).order.id === order.order_id);
      expect(events.map((e) => (e.data as { refund: { amount: number } }).refund.amount)).toEqual([30, 70]);
    });

    it('claws back a paid commission with a negative paid commission; a negative balance blocks withdrawals', async () => {
      const email = await affiliateWithCustomer('clawed');
      await earn(t, 'claw-1', email, 100);
      expect(await balanceCents(t, 'clawed')).toBe(1000);
      expect((await t.api('POST', '/api/withdrawals', { ref_code: 'clawed', amount: 8 })).statusCode).toBe(201);
      const res = await t.api('POST', '/api/orders/refund', { order_id: 'claw-1', amount: 50 });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json().clawback).toEqual({
        id: expect.stringMatching(/^com_/),
        order_id: 'claw-1',
        ref_code: 'clawed',
        amount: 50,
        rate: 10,
        commission: -5,
        currency: 'USD',
        status: 'paid',
        kind: 'clawback',
        rule_id: null,
        void_reason: null,
        hold: null,
        created_at: expect.any(String),
      });
      expect(res.json().commission).toMatchObject({ status: 'paid', commission: 10 });
      expect(await balanceCents(t, 'clawed')).toBe(-300);
      const wd = await t.api('POST', '/api/withdrawals', { ref_code: 'clawed', amount: 0.01 });
      expect(wd.statusCode).toBe(422);
      expect(wd.json().error.details).toEqual({ available: -3 });
      const summary = (await t.api('GET', '/api/affiliate/summary?ref_code=clawed')).json().summary[0];
      expect(summary).toMatchObject({ balance: -3, commission: { pending: 0, approved: 0, paid: 5, void: 0, total: 5 }, withdrawals: { requested: 8, paid: 0 } });
      const claws = (await t.api('GET', '/api/commissions?ref_code=clawed&kind=clawback')).json().items;
      expect(claws.map((c: { commission: number }) => c.commission)).toEqual([-5]);
      const created = (await eventsOfType(t, 'commission.created')).filter((e) => (e.data as { commission: { kind: string; ref_code: string } }).commission.ref_code === 'clawed');
      expect(created.map((e) => (e.data as { commission: { kind: string } }).commission.kind)).toEqual(['sale', 'clawback']);
    });

    it('fails a refund whose writes can never match (its order row frozen by a trigger) instead of retrying forever', async () => {
      const email = await affiliateWithCustomer('frozen');
      await earn(t, 'frozen-1', email, 100);
      const db = t.service.ctx.db;
      // a trigger that silently skips every update of the order: its conditional write matches nothing on
      // every attempt, whatever the refund reads
      if (dialect === 'postgres') {
        await sql`create function freeze_order() returns trigger language plpgsql as $$ begin return null; end $$`.execute(db);
        await sql`create trigger freeze_order before update on orders for each row when (old.order_id = 'frozen-1') execute function freeze_order()`.execute(db);
      } else {
        await sql`create trigger freeze_order before update on orders for each row when old.order_id = 'frozen-1' begin select raise(ignore); end`.execute(db);
      }
      try {
        const res = await t.api('POST', '/api/orders/refund', { order_id: 'frozen-1', amount: 10 });
        expect(res.statusCode).toBe(500);
        expect(res.json().error).toMatchObject({ code: 'internal_error' });
      } finally {
        await sql`drop trigger freeze_order${dialect === 'postgres' ? sql` on orders` : sql``}`.execute(db);
        if (dialect === 'postgres') await sql`drop function freeze_order()`.execute(db);
      }
      expect((await t.api('GET', '/api/orders/frozen-1')).json().order).not.toHaveProperty('refunded_amount');
      // nothing of it stayed: no clawback, the balance and the summary as before
      expect(await balanceCents(t, 'frozen')).toBe(1000);
      expect((await t.api('GET', '/api/commissions?ref_code=frozen&kind=clawback')).json().items).toEqual([]);
      expect((await t.api('GET', '/api/affiliate/summary?ref_code=frozen')).json().summary[0]).toMatchObject({ revenue: 100, balance: 10 });
    });

    it('refunds an order whose affiliate row was deleted by hand: the clawback lands on the balance it left behind', async () => {
      const email = await affiliateWithCustomer('vanished');
      await earn(t, 'vanished-1', email, 100);
      await t.service.ctx.db.deleteFrom('affiliates').where('ref_code', '=', 'vanished').execute();
      const res = await t.api('POST', '/api/orders/refund', { order_id: 'vanished-1', amount: 100 });
      expect(res.statusCode, res.body).toBe(200);
      expect(await balanceCents(t, 'vanished')).toBe(0);
    });

    it('counts a clawback days after the sale on its own day, and the refunded revenue on the sale day', async () => {
      const email = await affiliateWithCustomer('later');
      const saleDay = new Date(t.clock.now()).toISOString().slice(0, 10);
      await earn(t, 'later-1', email, 100);
      t.clock.advance(2 * DAY);
      const refundDay = new Date(t.clock.now()).toISOString().slice(0, 10);
      const res = await t.api('POST', '/api/orders/refund', { order_id: 'later-1', amount: 30 });
      expect(res.json().clawback).toMatchObject({ commission: -3, created_at: expect.stringMatching(new RegExp(`^${refundDay}`)) });
      const paidOn = async (day: string) => (await t.api('GET', `/api/affiliate/summary?ref_code=later&from=${day}&to=${day}`)).json().summary[0].commission.paid;
      expect([await paidOn(saleDay), await paidOn(refundDay)]).toEqual([10, -3]);
      const days = await t.service.ctx.db.selectFrom('daily_stats').select(['day', 'revenue_cents', 'commission_paid_cents']).where('ref_code', '=', 'later').execute();
      const byDay = (day: string) => days.filter((d) => d.day === day).reduce((a, d) => ({ revenue: a.revenue + Number(d.revenue_cents), paid: a.paid + Number(d.commission_paid_cents) }), { revenue: 0, paid: 0 });
      expect([byDay(saleDay), byDay(refundDay)]).toEqual([{ revenue: 7000, paid: 1000 }, { revenue: 0, paid: -300 }]);
      const allTime = await t.service.ctx.db.selectFrom('affiliate_stats').select(['revenue_cents', 'commission_paid_cents']).where('ref_code', '=', 'later').execute();
      expect(allTime.reduce((a, r) => ({ revenue: a.revenue + Number(r.revenue_cents), paid: a.paid + Number(r.commission_paid_cents) }), { revenue: 0, paid: 0 })).toEqual({ revenue: 7000, paid: 700 });
    });
  });

  describe('holding period', () => {
    it('approves a pending commission holding_days after payment, once, unless voided or refunded first', async () => {
      const held = await admin.call('PATCH', '/admin/api/settings', { holding_days: 14 });
      expect(held.statusCode, held.body).toBe(200);
      expect(held.json().settings.holding_days).toBe(14);
      // the setting applies to every pending commission: those the tests above left, older than 14 days, go first
      await t.service.ctx.services.commissions.approveDue();
      const email = await affiliateWithCustomer('held');
      const a = (await pay(email, 100)).commission as { id: string };
      const b = (await pay(email, 100)).commission as { id: string };
      const c = await pay(email, 100);
      await t.api('POST', `/api/commissions/${b.id}/void`);
      await t.api('POST', '/api/orders/refund', { order_id: c.order.order_id });
      t.clock.advance(14 * DAY - 1);
      const commissions = t.service.ctx.services.commissions;
      await commissions.approveDue(); // other tests' pending commissions may come due meanwhile
      expect((await t.api('GET', `/api/commissions/${a.id}`)).json().commission.status).toBe('pending');
      t.clock.advance(1);
      const sibling = await t.sibling();
      try {
        const eventsBefore = (await eventsOfType(t, 'commission.approved')).length;
        const approved = await Promise.all([commissions.approveDue(), sibling.service.ctx.services.commissions.approveDue()]);
        // both instances claimed at once: every approval they report happened once (one event each)
        expect(approved[0] + approved[1]).toBeGreaterThanOrEqual(1);
        expect((await eventsOfType(t, 'commission.approved')).length - eventsBefore).toBe(approved[0] + approved[1]);
      } finally {
        await sibling.close();
      }
      expect((await t.api('GET', `/api/commissions/${a.id}`)).json().commission.status).toBe('approved');
      expect((await t.api('GET', `/api/commissions/${b.id}`)).json().commission.status).toBe('void');
      const approvedEvents = (await eventsOfType(t, 'commission.approved')).filter((e) => (e.data as { commission: { id: string } }).commission.id === a.id);
      expect(approvedEvents).toHaveLength(1);
      expect(await commissions.approveDue()).toBe(0);
      admin = await t.admin(); // the session did not outlive the 14 days
      expect((await admin.call('PATCH', '/admin/api/settings', { holding_days: null })).json().settings.holding_days).toBeNull();
      const manual = (await pay(email, 100)).commission as { id: string };
      t.clock.advance(400 * DAY);
      expect(await commissions.approveDue()).toBe(0);
      expect((await t.api('GET', `/api/commissions/${manual.id}`)).json().commission.status).toBe('pending');
      admin = await t.admin();
      expect((await admin.call('PATCH', '/admin/api/settings', { holding_days: 366 })).statusCode).toBe(400);
    });

    it('measures the holding period from the payment with the setting as it is now, so a change applies to the commissions already pending', async () => {
      const setHolding = async (days: number | null) => {
        admin = await t.admin(); // a fresh session: the clock moves days between the changes
        const res = await admin.call('PATCH', '/admin/api/settings', { holding_days: days });
        expect(res.json().settings.holding_days).toBe(days);
      };
      const commissions = t.service.ctx.services.commissions;
      // the statuses of this test's commissions after a pass of the holding period (other tests' pending
      // commissions may be approved by the same pass)
      const afterPass = async (...ids: string[]) => {
        await commissions.approveDue();
        return Promise.all(ids.map(async (id) => (await t.api('GET', `/api/commissions/${id}`)).json().commission.status));
      };
      await setHolding(null);
      const email = await affiliateWithCustomer('rehold');
      const a = (await pay(email, 100)).commission as { id: string };
      t.clock.advance(5 * DAY);
      expect(await afterPass(a.id)).toEqual(['pending']); // unset: manual
      await setHolding(7); // a's order was paid 5 days ago: 2 days to go
      expect(await afterPass(a.id)).toEqual(['pending']);
      t.clock.advance(2 * DAY - 1);
      expect(await afterPass(a.id)).toEqual(['pending']);
      t.clock.advance(1);
      expect(await afterPass(a.id)).toEqual(['approved']);
      await setHolding(30); // lengthened: b waits 30 days from its payment
      const b = (await pay(email, 100)).commission as { id: string };
      t.clock.advance(10 * DAY);
      expect(await afterPass(b.id)).toEqual(['pending']);
      await setHolding(3); // shortened: b's 3 days after payment are long over
      expect(await afterPass(b.id)).toEqual(['approved']);
      const c = (await pay(email, 100)).commission as { id: string };
      await setHolding(null); // unset again: c stays pending however long
      t.clock.advance(100 * DAY);
      expect(await afterPass(c.id)).toEqual(['pending']);
      expect((await eventsOfType(t, 'commission.approved')).filter((e) => [a.id, b.id].includes((e.data as { commission: { id: string } }).commission.id))).toHaveLength(2);
    });
  });
});
