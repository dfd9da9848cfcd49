import { afterAll, beforeAll, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn, eventsOfType, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * docs/api.md#payouts payout_schedule monthly: on the first day of a month (UTC) every active affiliate with
 * payout details and a balance reaching the minimum gets one withdrawal of its balance, exactly once per
 * affiliate and month even with two instances on one database. The clock moves; the schedule is drained.
 */
describeEachDatabase('payout schedule', (dialect) => {
  let a: TestService;
  let b: TestService;
  beforeAll(async () => {
    a = await startTestService(dialect);
    b = await a.sibling();
    const admin = await a.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly', payout_minimum: 5 })).statusCode).toBe(200);
    for (const ref of ['m1', 'm2', 'low', 'nodet']) {
      await addAffiliate(a, ref);
      await addMailbox(a, `${ref}-buyer@svc.test`, ref);
    }
    await earn(a, 'o-m1', 'm1-buyer@svc.test', 100); // 10.00
    await earn(a, 'o-m2', 'm2-buyer@svc.test', 250); // 25.00
    await earn(a, 'o-low', 'low-buyer@svc.test', 40); // 4.00: below the minimum
    await earn(a, 'o-nodet', 'nodet-buyer@svc.test', 100);
    await a.api('PATCH', '/api/affiliates/nodet', { payout_details: null });
  });
  afterAll(async () => {
    await b?.close();
    await a?.close();
  });

  const drainBoth = async () => [...(await Promise.all([a.service.ctx.services.payouts.runSchedule(), b.service.ctx.services.payouts.runSchedule()])).flat()];

  it('does nothing before the first of the month', async () => {
    a.clock.set(Date.UTC(2026, 0, 31, 23, 59, 0));
    expect(await drainBoth()).toEqual([]);
  });

  it('requests each balance once across two instances on the first of the month, and once more the next month', async () => {
    a.clock.set(Date.UTC(2026, 1, 1, 0, 1, 0));
    const made = await drainBoth();
    expect(made.map((w) => [w.ref_code, w.amount_cents]).sort()).toEqual([
      ['m1', 1000],
      ['m2', 2500],
    ]);
    // later that day, on either instance: nothing more
    a.clock.set(Date.UTC(2026, 1, 1, 18, 0, 0));
    expect(await drainBoth()).toEqual([]);
    const listed = (await a.api('GET', '/api/withdrawals?limit=500')).json().items as { ref_code: string; payout: { method: string } }[];
    expect(listed.map((w) => w.ref_code).sort()).toEqual(['m1', 'm2']);
    expect(listed.every((w) => w.payout?.method === 'other')).toBe(true);
    expect((await eventsOfType(a, 'withdrawal.requested')).length).toBe(2);

    // the next month: m1 earned again, m2 did not
    await earn(a, 'o-m1-2', 'm1-buyer@svc.test', 60);
    a.clock.set(Date.UTC(2026, 2, 1, 0, 0, 30));
    const march = await drainBoth();
    expect(march.map((w) => [w.ref_code, w.amount_cents])).toEqual([['m1', 600]]);
    expect(await drainBoth()).toEqual([]);
  });

  it('a details change after the run leaves the requested withdrawal where it was', async () => {
    await givePayoutDetails(a, 'm2', { method: 'paypal', email: 'new@example.com' });
    const listed = (await a.api('GET', '/api/withdrawals?ref_code=m2')).json().items as { payout: { method: string } }[];
    expect(listed[0]?.payout.method).toBe('other');
  });
});
