import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const DAY = 24 * 3600 * 1000;

/** The whole loop through HTTP, then the summary: the ledger's writes keep the rollup the summary reads right. */
describeEachDatabase('ledger writes seen by the summary', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('counts paid orders, commissions by state, withdrawals and the balance, per day range', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'loop', commission_rate: 20 })).statusCode).toBe(201);
    // docs/api.md#payouts: a withdrawal needs payout details
    expect((await t.api('PATCH', '/api/affiliates/loop', { payout_details: { method: 'other', note: 'by hand' } })).statusCode).toBe(200);
    for (let i = 0; i < 4; i++) expect((await t.request('GET', '/go/loop', undefined, { 'user-agent': 'curl/8' })).statusCode).toBe(302);
    const emails: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await t.api('POST', '/api/mailboxes', { ref_code: 'loop' });
      expect(res.json().mailbox.ref_code).toBe('loop');
      emails.push(res.json().mailbox.address);
    }
    // day 1 (2026-01-15): three orders paid (20% of 100, 50, 10), one unpaid, one unattributed
    const ids: string[] = [];
    for (const [i, amount] of [100, 50, 10].entries()) {
      await t.api('POST', '/api/orders', { order_id: `L${i}`, email: emails[i], amount, product: 'p' });
      ids.push((await t.api('POST', '/api/orders/pay', { order_id: `L${i}` })).json().commission.id);
    }
    await t.api('POST', '/api/orders', { order_id: 'L-unpaid', email: emails[0], amount: 999, product: 'p' });
    await t.api('POST', '/api/orders', { order_id: 'L-other', email: 'someone@example.com', amount: 999, product: 'p' });
    await t.api('POST', '/api/orders/pay', { order_id: 'L-other' });
    // day 2: settle: 20 paid, 10 approved, 2 void; withdraw 5 (paid) + 3 (rejected) + 4 (requested)
    t.clock.advance(DAY);
    expect((await t.api('POST', `/api/commissions/${ids[0]}/mark-paid`)).statusCode).toBe(200);
    expect((await t.api('POST', `/api/commissions/${ids[1]}/approve`)).statusCode).toBe(200);
    expect((await t.api('POST', `/api/commissions/${ids[2]}/void`)).statusCode).toBe(200);
    const w = [];
    for (const amount of [5, 3, 4]) w.push((await t.api('POST', '/api/withdrawals', { ref_code: 'loop', amount })).json().withdrawal.id);
    await t.api('POST', `/api/withdrawals/${w[0]}/mark-paid`);
    await t.api('POST', `/api/withdrawals/${w[1]}/reject`);

    const all = await t.api('GET', '/api/affiliate/summary?ref_code=loop');
    expect(all.statusCode).toBe(200);
    const row = {
      clicks: 4,
      mailboxes: 3,
      conversion_rate: 0.75,
      orders: 3,
      order_rate: 1,
      // the paid attributed orders: 100 + 50 + 10 (not the unpaid one, not the unattributed one)
      revenue: 160,
      commission: { pending: 0, approved: 10, paid: 20, void: 2, total: 30 },
      withdrawals: { requested: 4, paid: 5 },
      balance: 11,
      currency: 'USD',
    };
    expect(all.json()).toEqual({ success: true, summary: [{ ref_code: 'loop', ...row }], totals: row });

    // commissions count on the day they were created, withdrawals on theirs
    const day1 = await t.api('GET', '/api/affiliate/summary?ref_code=loop&from=2026-01-15&to=2026-01-15');
    expect(day1.json().summary[0]).toMatchObject({ orders: 3, revenue: 160, commission: { approved: 10, paid: 20, void: 2 }, withdrawals: { requested: 0, paid: 0 }, balance: 11 });
    const day2 = await t.api('GET', '/api/affiliate/summary?ref_code=loop&from=2026-01-16');
    expect(day2.json().summary[0]).toMatchObject({ orders: 0, revenue: 0, commission: { total: 0 }, withdrawals: { requested: 4, paid: 5 } });
  });
});
