import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bumpDailyStats } from '../../src/loop/ledger/executor.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const DAY = 24 * 3600 * 1000;

const zeroRow = {
  clicks: 0,
  mailboxes: 0,
  conversion_rate: 0,
  orders: 0,
  order_rate: 0,
  revenue: 0,
  commission: { pending: 0, approved: 0, paid: 0, void: 0, total: 0 },
  withdrawals: { requested: 0, paid: 0 },
  balance: 0,
  currency: 'USD',
};

describeEachDatabase('affiliate summary', (dialect) => {
  let t: TestService;
  const go = async (ref: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await t.request('GET', `/go/${ref}`)).statusCode).toBe(302);
  };
  const mailboxes = async (ref: string, n: number) => {
    for (let i = 0; i < n; i++) expect((await t.api('POST', '/api/mailboxes', { ref_code: ref })).json().mailbox.ref_code).toBe(ref);
  };

  beforeAll(async () => {
    t = await startTestService(dialect);
    for (const ref_code of ['alice', 'bob', 'idle']) expect((await t.api('POST', '/api/affiliates', { ref_code })).statusCode).toBe(201);
    // 2026-01-15: alice 3 clicks, 1 mailbox; bob 1 click
    await go('alice', 3);
    await mailboxes('alice', 1);
    await go('bob', 1);
    // 2026-01-16: alice 1 click, 2 mailboxes; the ledger's counters for an order paid that day
    t.clock.advance(DAY);
    await go('alice', 1);
    await mailboxes('alice', 2);
    await bumpDailyStats(t.service.ctx.db, 'alice', '2026-01-16', {
      orders: 1,
      revenue_cents: 4990,
      commission_pending_cents: 1001,
      commission_approved_cents: 250,
      commission_paid_cents: 333,
      commission_void_cents: 7,
      withdrawals_requested_cents: 100,
      withdrawals_paid_cents: 50,
    });
    // a balance in two stripes' shares (migration 0043): the summary shows their sum
    await t.service.ctx.db.insertInto('affiliate_stats').values([{ ref_code: 'alice', stripe: 5, balance_cents: 200 }, { ref_code: 'alice', stripe: 6, balance_cents: -17 }]).execute();
    // 2026-01-18: bob 2 clicks and 1 mailbox; a mailbox without any click for bob
    t.clock.advance(2 * DAY);
    await go('bob', 2);
    await mailboxes('bob', 1);
  });
  afterAll(async () => {
    await t.close();
  });

  it('sums all time per affiliate, including those without activity, with totals', async () => {
    const res = await t.api('GET', '/api/affiliate/summary');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      success: true,
      summary: [
        {
          ref_code: 'alice',
          clicks: 4,
          mailboxes: 3,
          conversion_rate: 0.75,
          orders: 1,
          order_rate: 0.3333,
          revenue: 49.9,
          commission: { pending: 10.01, approved: 2.5, paid: 3.33, void: 0.07, total: 15.84 },
          withdrawals: { requested: 1, paid: 0.5 },
          balance: 1.83,
          currency: 'USD',
        },
        { ...zeroRow, ref_code: 'bob', clicks: 3, mailboxes: 1, conversion_rate: 0.3333 },
        { ...zeroRow, ref_code: 'idle' },
      ],
      totals: {
        clicks: 7,
        mailboxes: 4,
        conversion_rate: 0.5714,
        orders: 1,
        order_rate: 0.25,
        revenue: 49.9,
        commission: { pending: 10.01, approved: 2.5, paid: 3.33, void: 0.07, total: 15.84 },
        withdrawals: { requested: 1, paid: 0.5 },
        balance: 1.83,
        currency: 'USD',
      },
    });
  });

  it('filters by day range (inclusive) and ref_code; balance stays all-time', async () => {
    const day15 = (await t.api('GET', '/api/affiliate/summary?from=2026-01-15&to=2026-01-15')).json();
    expect(day15.summary.map((r: { ref_code: string; clicks: number; mailboxes: number }) => [r.ref_code, r.clicks, r.mailboxes])).toEqual([
      ['alice', 3, 1],
      ['bob', 1, 0],
      ['idle', 0, 0],
    ]);
    expect(day15.summary[0]).toMatchObject({ conversion_rate: 0.3333, orders: 0, commission: { total: 0 }, balance: 1.83 });
    expect(day15.totals).toMatchObject({ clicks: 4, mailboxes: 1, conversion_rate: 0.25, orders: 0 });

    const from16 = (await t.api('GET', '/api/affiliate/summary?from=2026-01-16&ref_code=alice')).json();
    expect(from16.summary).toEqual([
      {
        ref_code: 'alice',
        clicks: 1,
        mailboxes: 2,
        conversion_rate: 2,
        orders: 1,
        order_rate: 0.5,
        revenue: 49.9,
        commission: { pending: 10.01, approved: 2.5, paid: 3.33, void: 0.07, total: 15.84 },
        withdrawals: { requested: 1, paid: 0.5 },
        balance: 1.83,
        currency: 'USD',
      },
    ]);
    expect(from16.totals).toEqual({ ...from16.summary[0], ref_code: undefined });

    const to17 = (await t.api('GET', '/api/affiliate/summary?to=2026-01-17&ref_code=bob')).json();
    expect(to17.summary).toEqual([{ ...zeroRow, ref_code: 'bob', clicks: 1 }]);

    const empty = (await t.api('GET', '/api/affiliate/summary?from=2026-02-01')).json();
    expect(empty.totals).toEqual({ ...zeroRow, balance: 1.83 });
  });

  it('gives the same all-time numbers with and without an all-covering date range', async () => {
    const plain = (await t.api('GET', '/api/affiliate/summary')).json();
    const ranged = (await t.api('GET', '/api/affiliate/summary?from=2000-01-01&to=2099-12-31')).json();
    expect(ranged).toEqual(plain);
    const fromOnly = (await t.api('GET', '/api/affiliate/summary?from=2026-01-15')).json();
    expect(fromOnly).toEqual(plain);
  });

  it('answers an unknown ref_code with no rows and zero totals', async () => {
    const res = await t.api('GET', '/api/affiliate/summary?ref_code=nobody');
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ success: true, summary: [], totals: zeroRow });
  });

  it.each(['from=2026-1-5', 'to=yesterday', 'from=2026-02-30', 'from=2026-01-20&to=2026-01-10', 'ref_code=bad%20code', 'from=20260101'])(
    'refuses %s with 400',
    async (q) => {
      const res = await t.api('GET', `/api/affiliate/summary?${q}`);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: expect.any(Array) } });
    },
  );

  it('names each bad date once', async () => {
    const res = await t.api('GET', '/api/affiliate/summary?from=bad&to=2026-02-30');
    expect(res.json().error.details).toEqual([
      { field: 'from', message: 'must be a date YYYY-MM-DD' },
      { field: 'to', message: expect.stringMatching(/date/) },
    ]);
  });

  it('needs the API key, and is also under /admin/api', async () => {
    expect((await t.request('GET', '/api/affiliate/summary')).statusCode).toBe(401);
    const admin = await t.admin();
    const res = await admin.call('GET', '/admin/api/affiliate/summary?ref_code=bob');
    expect(res.json().summary[0]).toMatchObject({ ref_code: 'bob', clicks: 3 });
  });

  it('does not count what the rollup does not hold (reads only daily_stats)', async () => {
    // A click row written behind the service's back is not in the summary: proof it never scans clicks.
    await t.service.ctx.db.insertInto('clicks').values({ ref_code: 'idle', created_at: t.clock.now(), ip_hash: null, user_agent: null, referer: null, network_click_ids: null }).execute();
    const res = await t.api('GET', '/api/affiliate/summary?ref_code=idle');
    expect(res.json().summary).toEqual([{ ...zeroRow, ref_code: 'idle' }]);
  });

  describe('daily report', () => {
    it('lists the last 30 days by default, zero-filled', async () => {
      const res = await t.api('GET', '/api/reports/daily');
      expect(res.statusCode).toBe(200);
      const items = res.json().items as { day: string }[];
      expect(items).toHaveLength(30);
      expect(items[0]?.day).toBe('2025-12-20');
      expect(items.at(-1)?.day).toBe('2026-01-18');
      expect(items.slice(-4)).toEqual([
        { day: '2026-01-15', clicks: 4, mailboxes: 1, orders: 0, revenue: 0, commission: 0 },
        { day: '2026-01-16', clicks: 1, mailboxes: 2, orders: 1, revenue: 49.9, commission: 15.84 },
        { day: '2026-01-17', clicks: 0, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
        { day: '2026-01-18', clicks: 2, mailboxes: 1, orders: 0, revenue: 0, commission: 0 },
      ]);
    });

    it('filters by ref_code and range', async () => {
      const res = await t.api('GET', '/api/reports/daily?ref_code=bob&from=2026-01-14&to=2026-01-18');
      expect(res.json()).toEqual({
        success: true,
        items: [
          { day: '2026-01-14', clicks: 0, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
          { day: '2026-01-15', clicks: 1, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
          { day: '2026-01-16', clicks: 0, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
          { day: '2026-01-17', clicks: 0, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
          { day: '2026-01-18', clicks: 2, mailboxes: 1, orders: 0, revenue: 0, commission: 0 },
        ],
      });
    });

    it('refuses a malformed or huge range', async () => {
      for (const q of ['from=nope', 'from=2000-01-01&to=2026-01-01', 'from=2026-01-10&to=2026-01-01']) {
        const res = await t.api('GET', `/api/reports/daily?${q}`);
        expect(res.statusCode).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
    });
  });
});
