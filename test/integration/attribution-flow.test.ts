import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const DAY = 24 * 3600 * 1000;

/** The whole loop through HTTP: click, cookie, mailbox, order, pay, commission, withdrawal, summary. */
describeEachDatabase('attribution flow into the summary', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('counts every stage on its day and the summary matches the ledger', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'carol', commission_rate: 20 })).statusCode).toBe(201);
    // docs/api.md#payouts: a withdrawal needs payout details
    expect((await t.api('PATCH', '/api/affiliates/carol', { payout_details: { method: 'other', note: 'by hand' } })).statusCode).toBe(200);
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'dave' })).statusCode).toBe(201);
    // docs/api.md#payouts: a withdrawal needs payout details
    expect((await t.api('PATCH', '/api/affiliates/dave', { payout_details: { method: 'other', note: 'by hand' } })).statusCode).toBe(200);

    // day 1 (2026-01-15): two clicks for carol; the second browser keeps its cookie and makes a mailbox
    await t.request('GET', '/go/carol');
    const click = await t.request('GET', '/go/carol?awc=AWIN-1');
    const cookie = ([] as string[])
      .concat(click.headers['set-cookie'] as string | string[])
      .map((c) => c.split(';')[0])
      .join('; ');
    const mb = await t.request('POST', '/mailboxes', {}, { cookie });
    expect(mb.statusCode).toBe(201);
    const address = mb.json().mailbox.address as string;
    expect(mb.json().mailbox.ref_code).toBe('carol');

    // day 2: the order for that mailbox is created and paid; commission 20% of 49.99 = 10.00 (9.998 half-up)
    t.clock.advance(DAY);
    expect((await t.api('POST', '/api/orders', { order_id: 'o-1', email: address.toUpperCase(), amount: 49.99, product: 'Pro' })).statusCode).toBe(201);
    const paid = await t.api('POST', '/api/orders/pay', { order_id: 'o-1' });
    expect(paid.statusCode).toBe(200);
    expect(paid.json().commission).toMatchObject({ ref_code: 'carol', commission: 10, status: 'pending' });
    const commissionId = paid.json().commission.id as string;

    // an unattributed order is paid too, without commission
    await t.api('POST', '/api/orders', { order_id: 'o-2', email: 'someone@else.test', amount: 5, product: 'Pro' });
    expect((await t.api('POST', '/api/orders/pay', { order_id: 'o-2' })).json().commission).toBeNull();

    // day 3: commission paid out, 4.00 withdrawn and 1.00 requested then rejected
    t.clock.advance(DAY);
    expect((await t.api('POST', `/api/commissions/${commissionId}/mark-paid`)).statusCode).toBe(200);
    expect((await t.api('POST', '/api/withdrawals', { ref_code: 'carol', amount: 4 })).statusCode).toBe(201);
    const w2 = await t.api('POST', '/api/withdrawals', { ref_code: 'carol', amount: 1 });
    expect((await t.api('POST', `/api/withdrawals/${w2.json().withdrawal.id}/reject`)).statusCode).toBe(200);

    const all = (await t.api('GET', '/api/affiliate/summary')).json();
    const carol = {
      ref_code: 'carol',
      clicks: 2,
      mailboxes: 1,
      conversion_rate: 0.5,
      orders: 1,
      order_rate: 1,
      revenue: 49.99,
      commission: { pending: 0, approved: 0, paid: 10, void: 0, total: 10 },
      withdrawals: { requested: 4, paid: 0 },
      balance: 6,
      currency: 'USD',
    };
    expect(all).toEqual({
      success: true,
      summary: [
        carol,
        {
          ref_code: 'dave',
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
        },
      ],
      totals: { ...carol, ref_code: undefined },
    });

    // by day: clicks and mailbox on the 15th, the order and commission on the 16th
    const day1 = (await t.api('GET', '/api/affiliate/summary?ref_code=carol&from=2026-01-15&to=2026-01-15')).json().summary[0];
    expect(day1).toMatchObject({ clicks: 2, mailboxes: 1, orders: 0, commission: { total: 0 }, balance: 6 });
    const day2 = (await t.api('GET', '/api/affiliate/summary?ref_code=carol&from=2026-01-16&to=2026-01-16')).json().summary[0];
    expect(day2).toMatchObject({ clicks: 0, mailboxes: 0, orders: 1, commission: { paid: 10, total: 10 } });

    const daily = (await t.api('GET', '/api/reports/daily?from=2026-01-15&to=2026-01-17')).json();
    expect(daily.items).toEqual([
      { day: '2026-01-15', clicks: 2, mailboxes: 1, orders: 0, revenue: 0, commission: 0 },
      { day: '2026-01-16', clicks: 0, mailboxes: 0, orders: 1, revenue: 49.99, commission: 10 },
      { day: '2026-01-17', clicks: 0, mailboxes: 0, orders: 0, revenue: 0, commission: 0 },
    ]);

    // the network click id travelled from the link to the referral
    const referral = await t.service.ctx.db.selectFrom('referrals').selectAll().where('mailbox_address', '=', address).executeTakeFirstOrThrow();
    expect(JSON.parse(referral.network_click_ids ?? 'null')).toEqual({ awc: 'AWIN-1' });
  });
});
