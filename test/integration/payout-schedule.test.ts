import { afterAll, afterEach, beforeAll, beforeEach, expect, it, vi } from 'vitest';
import { ScheduleIncomplete } from '../../src/loop/payouts/payout.service.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn, eventsOfType, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * docs/api.md#payouts payout_schedule monthly: each month's run is the first schedule tick on or after its 1st
 * (UTC); every active affiliate with payout details and a balance reaching the minimum gets one withdrawal of
 * its balance, exactly once per affiliate and month even with two instances on one database. A month whose
 * run is over gets no other run (qualifying later waits for the next month), and switching the schedule to
 * monthly mid-month pays nothing before the next 1st. An affiliate that fails holds up nobody else and is
 * tried again at the next tick. The clock moves; the schedule is drained.
 */

/** Two instances on one database and clock; `drain` runs the schedule once on each, at the same time. */
async function twoInstances(dialect: Dialect): Promise<{ a: TestService; b: TestService; drain: () => Promise<{ ref_code: string; amount_cents: number }[]> }> {
  const a = await startTestService(dialect);
  const b = await a.sibling();
  const drain = async () => [...(await Promise.all([a.service.ctx.services.payouts.runSchedule(), b.service.ctx.services.payouts.runSchedule()])).flat()];
  return { a, b, drain };
}

/** Until restored, every withdrawal `refCode` requests on `t` throws `message`; the others go through. */
function failWithdrawalOf(t: TestService, refCode: string, message: string): { mockRestore: () => void } {
  const withdrawals = t.service.ctx.services.withdrawals;
  const requestIn = withdrawals.requestIn.bind(withdrawals);
  return vi.spyOn(withdrawals, 'requestIn').mockImplementation(async (tx, ref, cents, terms) => {
    if (ref === refCode) throw new Error(message);
    return requestIn(tx, ref, cents, terms);
  });
}

const paid = (made: { ref_code: string; amount_cents: number }[]) => made.map((w) => [w.ref_code, w.amount_cents]).sort();

describeEachDatabase('payout schedule', (dialect) => {
  let a: TestService;
  let b: TestService;
  let drainBoth: () => Promise<{ ref_code: string; amount_cents: number }[]>;
  beforeAll(async () => {
    ({ a, b, drain: drainBoth } = await twoInstances(dialect));
    // switched on on 2026-01-15 (the test clock's start): January has no run
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

  it('does nothing for the rest of the month it was switched on in, and before the first of the next', async () => {
    a.clock.set(Date.UTC(2026, 0, 15, 12, 1, 0));
    expect(await drainBoth()).toEqual([]);
    a.clock.set(Date.UTC(2026, 0, 31, 23, 59, 0));
    expect(await drainBoth()).toEqual([]);
  });

  it('requests each balance once across two instances on the first of the month, and once more the next month', async () => {
    a.clock.set(Date.UTC(2026, 1, 1, 0, 1, 0));
    expect(paid(await drainBoth())).toEqual([
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
  });

  it('an affiliate who qualifies on the 10th, after the month\'s run, is paid at the next month\'s first tick, not before', async () => {
    // low reaches the minimum, nodet gets payout details: both after February's run
    a.clock.set(Date.UTC(2026, 1, 10, 9, 0, 0));
    await earn(a, 'o-low-2', 'low-buyer@svc.test', 20); // 4.00 + 2.00
    await givePayoutDetails(a, 'nodet');
    expect(await drainBoth()).toEqual([]);
    a.clock.set(Date.UTC(2026, 1, 28, 23, 59, 59));
    expect(await drainBoth()).toEqual([]);

    // March: m1 earned again, m2 did not; no instance ran on the 1st or 2nd
    await earn(a, 'o-m1-2', 'm1-buyer@svc.test', 60);
    a.clock.set(Date.UTC(2026, 2, 3, 8, 0, 0));
    expect(paid(await drainBoth())).toEqual([
      ['low', 600],
      ['m1', 600],
      ['nodet', 1000],
    ]);
    a.clock.set(Date.UTC(2026, 2, 20, 8, 0, 0));
    expect(await drainBoth()).toEqual([]);
  });

  it('a details change after the run leaves the requested withdrawal where it was', async () => {
    await givePayoutDetails(a, 'm2', { method: 'paypal', email: 'new@example.com' });
    const listed = (await a.api('GET', '/api/withdrawals?ref_code=m2')).json().items as { payout: { method: string } }[];
    expect(listed[0]?.payout.method).toBe('other');
  });
});

describeEachDatabase('payout schedule catch-up', (dialect) => {
  let a: TestService;
  let b: TestService;
  let drainBoth: () => Promise<{ ref_code: string; amount_cents: number }[]>;
  const month = async () => (await a.service.ctx.db.selectFrom('payout_schedule_months').select('month').orderBy('month').execute()).map((r) => r.month);

  beforeEach(async () => {
    ({ a, b, drain: drainBoth } = await twoInstances(dialect));
    for (const ref of ['c1', 'c2']) {
      await addAffiliate(a, ref);
      await addMailbox(a, `${ref}-buyer@svc.test`, ref);
    }
    await earn(a, 'o-c1', 'c1-buyer@svc.test', 100);
    await earn(a, 'o-c2', 'c2-buyer@svc.test', 70);
  });
  afterEach(async () => {
    await b?.close();
    await a?.close();
  });

  it('no instance on the 1st: two instances on the 3rd pay that month once, one withdrawal per affiliate', async () => {
    const admin = await a.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly' })).statusCode).toBe(200);
    expect(await month()).toEqual(['2026-01']);
    a.clock.set(Date.UTC(2026, 1, 3, 14, 0, 0));
    expect(paid(await drainBoth())).toEqual([
      ['c1', 1000],
      ['c2', 700],
    ]);
    expect(await month()).toEqual(['2026-01', '2026-02']);
    // more earned, later that month: the month is done
    await earn(a, 'o-c1-2', 'c1-buyer@svc.test', 30);
    a.clock.set(Date.UTC(2026, 1, 3, 14, 1, 0));
    expect(await drainBoth()).toEqual([]);
    const listed = (await a.api('GET', '/api/withdrawals?limit=500')).json().items as { ref_code: string }[];
    expect(listed.map((w) => w.ref_code).sort()).toEqual(['c1', 'c2']);
    expect((await eventsOfType(a, 'withdrawal.requested')).length).toBe(2);
  });

  it('a run cut short after some affiliates is finished by the next tick, paying nobody twice', async () => {
    const admin = await a.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly' })).statusCode).toBe(200);
    a.clock.set(Date.UTC(2026, 1, 1, 0, 1, 0));
    // the run dies at c2 (ref_code order: c1 first), after c1's withdrawal was committed
    const crash = failWithdrawalOf(a, 'c2', 'the process died here');
    await expect(a.service.ctx.services.payouts.runSchedule()).rejects.toThrow('the process died here');
    crash.mockRestore();
    expect(await month()).toEqual(['2026-01']);
    expect(((await a.api('GET', '/api/withdrawals')).json().items as { ref_code: string }[]).map((w) => w.ref_code)).toEqual(['c1']);

    a.clock.set(Date.UTC(2026, 1, 1, 0, 2, 0));
    expect(paid(await drainBoth())).toEqual([['c2', 700]]);
    expect(await month()).toEqual(['2026-01', '2026-02']);
    expect(await drainBoth()).toEqual([]);
  });

  it('one affiliate that fails does not hold up the others: they are paid in that run, and the next tick pays it', async () => {
    const admin = await a.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly' })).statusCode).toBe(200);
    a.clock.set(Date.UTC(2026, 1, 1, 0, 1, 0));
    // c1 (first in ref_code order) fails this tick, as a withdrawal whose write fails would
    const failing = failWithdrawalOf(a, 'c1', 'c1 could not be written');
    const incomplete = await a.service.ctx.services.payouts.runSchedule().catch((e: unknown) => e);
    failing.mockRestore();
    expect(incomplete).toBeInstanceOf(ScheduleIncomplete);
    expect(incomplete).toMatchObject({ month: '2026-02', failed: [{ refCode: 'c1' }], requested: [{ ref_code: 'c2', amount_cents: 700 }] });
    expect((incomplete as Error).message).toContain('c1 could not be written');
    expect(((await a.api('GET', '/api/withdrawals')).json().items as { ref_code: string }[]).map((w) => w.ref_code)).toEqual(['c2']);
    expect(await month()).toEqual(['2026-01']);

    a.clock.set(Date.UTC(2026, 1, 1, 0, 2, 0));
    expect(paid(await drainBoth())).toEqual([['c1', 1000]]);
    expect(await month()).toEqual(['2026-01', '2026-02']);
    expect((await eventsOfType(a, 'withdrawal.requested')).length).toBe(2);
  });

  it('switched from manual to monthly on the 15th: nothing is paid until the 1st, and saving monthly again changes nothing', async () => {
    a.clock.set(Date.UTC(2026, 2, 15, 10, 0, 0));
    // manual meanwhile: no run, no month recorded
    expect(await drainBoth()).toEqual([]);
    expect(await month()).toEqual([]);
    const admin = await a.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly' })).statusCode).toBe(200);
    expect(await drainBoth()).toEqual([]);
    a.clock.set(Date.UTC(2026, 2, 31, 23, 59, 0));
    expect(await drainBoth()).toEqual([]);

    // on 1 April, before the first tick, the form saves `monthly` again with its other fields: April's run still happens
    a.clock.set(Date.UTC(2026, 3, 1, 0, 0, 10));
    expect((await (await a.admin()).call('PATCH', '/admin/api/settings', { payout_schedule: 'monthly', payout_minimum: 5 })).statusCode).toBe(200);
    expect(await month()).toEqual(['2026-03']);
    expect(paid(await drainBoth())).toEqual([
      ['c1', 1000],
      ['c2', 700],
    ]);
    expect(await month()).toEqual(['2026-03', '2026-04']);
  });
});
