import fc from 'fast-check';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { DAILY_COUNTERS } from '../../src/loop/ledger/daily-counters.js';
import { commissionCents } from '../../src/platform/money.js';
import { addAffiliate, addMailbox } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * Random sequences of ledger actions against a reference model that is obviously right: every answer's
 * status code and the available balance must match the model after every step, and never go below zero.
 */
type Step =
  | { kind: 'pay'; amountCents: number }
  | { kind: 'repay'; i: number }
  | { kind: 'commission'; action: 'approve' | 'mark-paid' | 'void'; i: number }
  | { kind: 'withdraw'; amountCents: number }
  | { kind: 'withdrawal'; action: 'mark-paid' | 'reject'; i: number }
  | { kind: 'refund'; i: number; percent: number | 'rest' }
  | { kind: 'tick'; days: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('pay' as const), amountCents: fc.integer({ min: 1, max: 100_000 }) }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('repay' as const), i: fc.nat() }) },
  {
    weight: 4,
    arbitrary: fc.record({ kind: fc.constant('commission' as const), action: fc.constantFrom('approve' as const, 'mark-paid' as const, 'void' as const), i: fc.nat() }),
  },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('withdraw' as const), amountCents: fc.integer({ min: 1, max: 5_000 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('withdrawal' as const), action: fc.constantFrom('mark-paid' as const, 'reject' as const), i: fc.nat() }) },
  {
    weight: 2,
    arbitrary: fc.record({ kind: fc.constant('refund' as const), i: fc.nat(), percent: fc.oneof(fc.constant('rest' as const), fc.integer({ min: 1, max: 100 })) }),
  },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('tick' as const), days: fc.integer({ min: 0, max: 4 }) }) },
);

/** The holding period the model runs with (docs/ledger.md#holding-period): pending commissions approve this long after payment. */
const HOLDING_DAYS = 3;
const DAY = 86_400_000;

type CStatus = 'pending' | 'approved' | 'paid' | 'void';
type WStatus = 'requested' | 'paid' | 'rejected';

const COMMISSION_RULES: Record<'approve' | 'mark-paid' | 'void', { to: CStatus; from: CStatus[] }> = {
  approve: { to: 'approved', from: ['pending'] },
  'mark-paid': { to: 'paid', from: ['pending', 'approved'] },
  void: { to: 'void', from: ['pending', 'approved'] },
};

describeEachDatabase('ledger against a reference model (fast-check)', (dialect) => {
  let t: TestService;
  let run = 0;
  beforeAll(async () => {
    t = await startTestService(dialect);
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/settings', { holding_days: HOLDING_DAYS })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t?.close();
  });

  it('keeps status codes and balances equal to the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 0, max: 10_000 }), fc.array(stepArb, { minLength: 1, maxLength: 30 }), async (rateBp, steps) => {
        const ref = `model${++run}`;
        const email = `${ref}@svc.test`;
        await addAffiliate(t, ref, { rateBp });
        await addMailbox(t, email, ref);
        const orders: { id: string; body: unknown; amountCents: number; refundedCents: number; commission: number; paidAt: number }[] = [];
        const commissions: { id: string; status: CStatus; cents: number; dueAt: number }[] = [];
        /** Clawbacks: negative paid commissions (they count in the paid sum and the balance). */
        const clawbacks: { status: CStatus; cents: number; at: number }[] = [];
        const withdrawals: { id: string; status: WStatus; cents: number }[] = [];
        let balance = 0;

        for (const step of steps) {
          switch (step.kind) {
            case 'pay': {
              const id = `${ref}-o${orders.length}`;
              const created = await t.api('POST', '/api/orders', { order_id: id, email, amount: step.amountCents / 100, product: 'p' });
              expect(created.statusCode).toBe(201);
              const paid = await t.api('POST', '/api/orders/pay', { order_id: id });
              expect(paid.statusCode).toBe(200);
              const c = paid.json().commission;
              expect(c).toMatchObject({ status: 'pending', commission: commissionCents(step.amountCents, rateBp) / 100 });
              orders.push({ id, body: paid.json(), amountCents: step.amountCents, refundedCents: 0, commission: commissions.length, paidAt: t.clock.now() });
              commissions.push({ id: c.id, status: 'pending', cents: commissionCents(step.amountCents, rateBp), dueAt: t.clock.now() + HOLDING_DAYS * DAY });
              break;
            }
            case 'repay': {
              if (orders.length === 0) break;
              const o = orders[step.i % orders.length]!;
              const again = await t.api('POST', '/api/orders/pay', { order_id: o.id });
              expect(again.statusCode).toBe(200);
              const body = again.json();
              const idx = commissions.findIndex((c) => c.id === body.commission.id);
              // the stored commission may have moved on since; everything else is the first answer
              expect(body.commission.status).toBe(commissions[idx]!.status);
              expect(body.commission.commission).toBe(commissions[idx]!.cents / 100);
              if (o.refundedCents === 0) expect({ ...body, commission: { ...body.commission, status: 'pending', commission: (o.body as { commission: { commission: number } }).commission.commission } }).toEqual(o.body);
              else expect(body.order).toMatchObject({ order_id: o.id, refunded_amount: o.refundedCents / 100, status: o.refundedCents === o.amountCents ? 'refunded' : 'partially_refunded' });
              break;
            }
            case 'commission': {
              if (commissions.length === 0) break;
              const c = commissions[step.i % commissions.length]!;
              const rule = COMMISSION_RULES[step.action];
              const res = await t.api('POST', `/api/commissions/${c.id}/${step.action}`);
              if (c.status === rule.to) {
                expect(res.statusCode).toBe(200);
              } else if (rule.from.includes(c.status)) {
                expect(res.statusCode).toBe(200);
                if (rule.to === 'paid') balance += c.cents;
                c.status = rule.to;
              } else {
                expect(res.statusCode).toBe(409);
                expect(res.json().error.code).toBe('invalid_transition');
              }
              if (res.statusCode === 200) expect(res.json().commission.status).toBe(c.status);
              break;
            }
            case 'withdraw': {
              const res = await t.api('POST', '/api/withdrawals', { ref_code: ref, amount: step.amountCents / 100 });
              if (step.amountCents <= balance) {
                expect(res.statusCode).toBe(201);
                balance -= step.amountCents;
                withdrawals.push({ id: res.json().withdrawal.id, status: 'requested', cents: step.amountCents });
              } else {
                expect(res.statusCode).toBe(422);
                expect(res.json().error.details.available).toBe(balance / 100);
              }
              break;
            }
            case 'withdrawal': {
              if (withdrawals.length === 0) break;
              const w = withdrawals[step.i % withdrawals.length]!;
              const to: WStatus = step.action === 'mark-paid' ? 'paid' : 'rejected';
              const res = await t.api('POST', `/api/withdrawals/${w.id}/${step.action}`);
              if (w.status === to) {
                expect(res.statusCode).toBe(200);
              } else if (w.status === 'requested') {
                expect(res.statusCode).toBe(200);
                if (to === 'rejected') balance += w.cents;
                w.status = to;
              } else {
                expect(res.statusCode).toBe(409);
                expect(res.json().error.code).toBe('invalid_transition');
              }
              break;
            }
            case 'refund': {
              if (orders.length === 0) break;
              const o = orders[step.i % orders.length]!;
              const left = o.amountCents - o.refundedCents;
              const cents = step.percent === 'rest' ? left : Math.max(1, Math.floor((o.amountCents * step.percent) / 100));
              const res = await t.api('POST', '/api/orders/refund', { order_id: o.id, ...(step.percent === 'rest' ? {} : { amount: cents / 100 }) });
              if (left === 0 || cents > left) {
                expect(res.statusCode).toBe(422);
                expect(res.json().error).toMatchObject({ code: 'refund_exceeds_amount', details: { refundable: left / 100 } });
                break;
              }
              expect(res.statusCode).toBe(200);
              const c = commissions[o.commission]!;
              const before = commissionCents(left, rateBp);
              const after = commissionCents(left - cents, rateBp);
              o.refundedCents += cents;
              let claw = 0;
              if (c.status === 'pending' || c.status === 'approved') {
                if (left - cents === 0) c.status = 'void';
                else c.cents = after;
              } else if (c.status === 'paid' && before > after) {
                claw = before - after;
                balance -= claw;
                clawbacks.push({ status: 'paid', cents: -claw, at: t.clock.now() });
              }
              const body = res.json();
              expect(body.order).toMatchObject({ refunded_amount: o.refundedCents / 100, status: o.refundedCents === o.amountCents ? 'refunded' : 'partially_refunded' });
              expect(body.commission).toMatchObject({ id: c.id, status: c.status, commission: c.cents / 100 });
              expect(body.clawback === null ? 0 : -body.clawback.commission * 100).toBeCloseTo(claw, 6);
              break;
            }
            case 'tick': {
              t.clock.advance(step.days * DAY);
              await t.service.ctx.services.commissions.approveDue();
              for (const c of commissions) if (c.status === 'pending' && c.dueAt <= t.clock.now()) c.status = 'approved';
              break;
            }
          }
          // the available balance as the API reports it: a withdrawal far above it answers it in details
          const probe = await t.api('POST', '/api/withdrawals', { ref_code: ref, amount: 1_000_000_000 });
          expect(probe.statusCode).toBe(422);
          expect(probe.json().error.details.available).toBe(balance / 100);
        }

        // the daily rollups the summary reads agree with the model too
        const sum = (status: string, list: { status: string; cents: number }[]) => list.filter((x) => x.status === status).reduce((a, x) => a + x.cents, 0);
        const rows = await t.service.ctx.db.selectFrom('daily_stats').selectAll().where('ref_code', '=', ref).execute();
        const total = (k: keyof (typeof rows)[number]) => rows.reduce((a, r) => a + Number(r[k]), 0);
        expect({
          orders: total('orders'),
          pending: total('commission_pending_cents'),
          approved: total('commission_approved_cents'),
          paid: total('commission_paid_cents'),
          void: total('commission_void_cents'),
          requested: total('withdrawals_requested_cents'),
          withdrawn: total('withdrawals_paid_cents'),
        }).toEqual({
          orders: orders.length,
          pending: sum('pending', commissions),
          approved: sum('approved', commissions),
          paid: sum('paid', commissions) + sum('paid', clawbacks),
          void: sum('void', commissions),
          requested: sum('requested', withdrawals),
          withdrawn: sum('paid', withdrawals),
        });
        // day by day: revenue on the day each order was paid, a sale's paid commission on that day too, a
        // clawback's on the day of its refund (a refund days after the sale writes two days at once)
        const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
        const expectedDays = new Map<string, { revenue: number; paid: number }>();
        const onDay = (d: string) => expectedDays.get(d) ?? expectedDays.set(d, { revenue: 0, paid: 0 }).get(d)!;
        for (const o of orders) {
          onDay(day(o.paidAt)).revenue += o.amountCents - o.refundedCents;
          const c = commissions[o.commission]!;
          if (c.status === 'paid') onDay(day(o.paidAt)).paid += c.cents;
        }
        for (const c of clawbacks) onDay(day(c.at)).paid += c.cents;
        const actualDays = new Map<string, { revenue: number; paid: number }>();
        for (const r of rows) {
          const d = actualDays.get(r.day) ?? actualDays.set(r.day, { revenue: 0, paid: 0 }).get(r.day)!;
          d.revenue += Number(r.revenue_cents);
          d.paid += Number(r.commission_paid_cents);
        }
        const nonZero = (m: Map<string, { revenue: number; paid: number }>) => Object.fromEntries([...m].filter(([, v]) => v.revenue !== 0 || v.paid !== 0).sort());
        expect(nonZero(actualDays)).toEqual(nonZero(expectedDays));
        // and the all-time rows (summed over stripes) hold the days' sums, column by column
        const allTime = await t.service.ctx.db.selectFrom('affiliate_stats').selectAll().where('ref_code', '=', ref).execute();
        expect(Object.fromEntries(DAILY_COUNTERS.map((k) => [k, allTime.reduce((a, r) => a + Number(r[k]), 0)]))).toEqual(Object.fromEntries(DAILY_COUNTERS.map((k) => [k, total(k)])));
      }),
      { numRuns: dialect === 'sqlite' ? 100 : 20 },
    );
  }, 240_000);
});
