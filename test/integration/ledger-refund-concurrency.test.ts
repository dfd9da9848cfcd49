import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { addAffiliate, addMailbox, balanceCents, earn, eventsOfType } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase, POSTGRES_URL } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

/** docs/ledger.md#refunds-and-clawbacks: concurrent refunds never refund or claw back more than once per amount. */
describeEachDatabase('refunds under concurrency', (dialect) => {
  let t: TestService;
  let sibling: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    sibling = await t.sibling();
    await addAffiliate(t, 'rush');
    await addMailbox(t, 'rush-buyer@svc.test', 'rush');
  });
  afterAll(async () => {
    await sibling?.close();
    await t?.close();
  });

  /** Both instances, alternately: on PostgreSQL they are two pools racing on one database. */
  const call = (i: number, method: string, url: string, body?: unknown) => (i % 2 === 0 ? t : sibling).api(method, url, body);

  /** docs/ledger.md#balance-and-withdrawals: balance = paid commissions (clawbacks included) − withdrawals requested or paid. */
  async function expectBalanceMatchesRows(refCode: string): Promise<number> {
    const db = t.service.ctx.db;
    const paid = await db.selectFrom('commissions').select('commission_cents').where('ref_code', '=', refCode).where('status', '=', 'paid').execute();
    const out = await db.selectFrom('withdrawals').select('amount_cents').where('ref_code', '=', refCode).where('status', 'in', ['requested', 'paid']).execute();
    const expected = paid.reduce((s, c) => s + Number(c.commission_cents), 0) - out.reduce((s, w) => s + Number(w.amount_cents), 0);
    const balance = await balanceCents(t, refCode);
    expect(balance).toBe(expected);
    return balance;
  }

  it('20 parallel full refunds of one paid order: one refund, one clawback, one event', async () => {
    await earn(t, 'rush-full', 'rush-buyer@svc.test', 100);
    const before = await balanceCents(t, 'rush');
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(i, 'POST', '/api/orders/refund', { order_id: 'rush-full' })));
    const ok = answers.filter((a) => a.statusCode === 200);
    expect(ok).toHaveLength(1);
    for (const a of answers.filter((x) => x.statusCode !== 200)) {
      expect(a.statusCode).toBe(422);
      expect(a.json().error).toMatchObject({ code: 'refund_exceeds_amount', details: { refundable: 0 } });
    }
    expect(ok[0]!.json()).toMatchObject({ order: { status: 'refunded', refunded_amount: 100 }, clawback: { commission: -10, kind: 'clawback' } });
    const claws = await t.service.ctx.db.selectFrom('commissions').select('commission_cents').where('order_id', '=', 'rush-full').where('kind', '=', 'clawback').execute();
    expect(claws.map((c) => Number(c.commission_cents))).toEqual([-1000]);
    expect(await balanceCents(t, 'rush')).toBe(before - 1000);
    const events = (await eventsOfType(t, 'order.refunded')).filter((e) => (e.data as { order: { id: string } }).order.id === 'rush-full');
    expect(events).toHaveLength(1);
    await expectBalanceMatchesRows('rush');
  });

  it('parallel partial refunds never exceed the amount; the open commission follows what remains', async () => {
    await t.api('POST', '/api/orders', { order_id: 'rush-part', email: 'rush-buyer@svc.test', amount: 100, product: 'p' });
    await t.api('POST', '/api/orders/pay', { order_id: 'rush-part' });
    const answers = await Promise.all(Array.from({ length: 30 }, (_, i) => call(i, 'POST', '/api/orders/refund', { order_id: 'rush-part', amount: 7 })));
    const ok = answers.filter((a) => a.statusCode === 200);
    expect(ok).toHaveLength(14); // 14 × 7 = 98 <= 100 < 15 × 7
    for (const a of answers.filter((x) => x.statusCode !== 200)) expect(a.json().error.code).toBe('refund_exceeds_amount');
    const order = (await t.api('GET', '/api/orders/rush-part')).json();
    expect(order.order).toMatchObject({ status: 'partially_refunded', refunded_amount: 98 });
    expect(order.commission).toMatchObject({ status: 'pending', commission: 0.2 }); // 10 % of the 2.00 left
    const refunds = ok.map((a) => a.json().order.refunded_amount as number).sort((a, b) => a - b);
    expect(refunds).toEqual(Array.from({ length: 14 }, (_, i) => (i + 1) * 7));
  });

  /** Resolves once `n` sessions of the test database wait for a lock (PostgreSQL). */
  async function lockWaiters(client: pg.Client, n: number): Promise<void> {
    for (let i = 0; i < 200; i++) {
      const { rows } = await client.query<{ n: number }>(
        "select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'",
      );
      if ((rows[0]?.n ?? 0) >= n) return;
      await new Promise((r) => setTimeout(r, 25));
    }
    throw new Error(`fewer than ${n} sessions ever waited for a lock`);
  }

  it('a mark-paid that read the commission before a refund reduced it credits what the refund left', async () => {
    await t.api('POST', '/api/orders', { order_id: 'rush-stale', email: 'rush-buyer@svc.test', amount: 100, product: 'p' });
    const sale = (await t.api('POST', '/api/orders/pay', { order_id: 'rush-stale' })).json().commission;
    expect(sale).toMatchObject({ commission: 10, status: 'pending' });
    const before = await balanceCents(t, 'rush');
    let refund: Awaited<ReturnType<TestService['api']>>;
    let markPaid: Awaited<ReturnType<TestService['api']>>;
    if (dialect === 'postgres') {
      // A third session holds the commission's row lock; the refund queues on it first (having read 10.00),
      // then the mark-paid (having read the same 10.00); the refund wins and leaves 4.00.
      const holder = new pg.Client({ connectionString: POSTGRES_URL });
      await holder.connect();
      try {
        await holder.query('begin');
        await holder.query(`select 1 from "${t.database.pgSchema}".commissions where id = $1 for update`, [sale.id]);
        const refunding = call(0, 'POST', '/api/orders/refund', { order_id: 'rush-stale', amount: 60 });
        await lockWaiters(holder, 1);
        const paying = call(1, 'POST', `/api/commissions/${sale.id}/mark-paid`);
        await lockWaiters(holder, 2);
        await holder.query('commit');
        [refund, markPaid] = await Promise.all([refunding, paying]);
      } finally {
        await holder.end();
      }
    } else {
      // SQLite runs one writer at a time: this order is the interleaving above
      refund = await call(0, 'POST', '/api/orders/refund', { order_id: 'rush-stale', amount: 60 });
      markPaid = await call(1, 'POST', `/api/commissions/${sale.id}/mark-paid`);
    }
    expect(refund.statusCode).toBe(200);
    expect(refund.json()).toMatchObject({ commission: { commission: 4, status: 'pending' }, clawback: null });
    expect(markPaid.json()).toMatchObject({ commission: { id: sale.id, commission: 4, status: 'paid' } });
    expect(await balanceCents(t, 'rush')).toBe(before + 400);
    await expectBalanceMatchesRows('rush');
    const [counted] = await t.service.ctx.db
      .selectFrom('affiliate_stats')
      .select((eb) => [eb.fn.sum<number>('commission_pending_cents').as('pending'), eb.fn.sum<number>('commission_paid_cents').as('paid')])
      .where('ref_code', '=', 'rush')
      .execute();
    const rows = await t.service.ctx.db.selectFrom('commissions').select(['status', 'commission_cents']).where('ref_code', '=', 'rush').execute();
    const inState = (s: string) => rows.filter((r) => r.status === s).reduce((n, r) => n + Number(r.commission_cents), 0);
    expect({ pending: Number(counted?.pending), paid: Number(counted?.paid) }).toEqual({ pending: inState('pending'), paid: inState('paid') });
  });

  it('refunds racing withdrawals (two instances): balance always what the rows say, never below what the clawbacks allow', async () => {
    await addAffiliate(t, 'racer2');
    await addMailbox(t, 'racer2-buyer@svc.test', 'racer2');
    for (let i = 0; i < 10; i++) await earn(t, `rw-${i}`, 'racer2-buyer@svc.test', 100); // 10 × 10.00 paid
    expect(await balanceCents(t, 'racer2')).toBe(10_000);
    const jobs = [
      ...Array.from({ length: 10 }, (_, i) => () => call(i, 'POST', '/api/orders/refund', { order_id: `rw-${i}`, amount: 50 })),
      ...Array.from({ length: 30 }, (_, i) => () => call(i + 1, 'POST', '/api/withdrawals', { ref_code: 'racer2', amount: 4 })),
    ];
    const answers = await Promise.all(jobs.map((job) => job()));
    const refunds = answers.slice(0, 10);
    const withdrawals = answers.slice(10);
    for (const r of refunds) expect(r.statusCode).toBe(200);
    for (const w of withdrawals) expect([201, 422]).toContain(w.statusCode);
    const accepted = withdrawals.filter((w) => w.statusCode === 201).length;
    // every refund clawed back 5.00 once: the rows hold 10 clawbacks of -5.00
    const claws = await t.service.ctx.db.selectFrom('commissions').select('commission_cents').where('ref_code', '=', 'racer2').where('kind', '=', 'clawback').execute();
    expect(claws.map((c) => Number(c.commission_cents))).toEqual(Array(10).fill(-500));
    // a withdrawal only ever took what the balance held at that moment: earned 100.00, at most 25 of 4.00
    expect(accepted).toBeLessThanOrEqual(25);
    expect(accepted).toBeGreaterThanOrEqual(12); // 100 - 50 clawed = 50 at worst: 12 × 4.00 fit
    const balance = await expectBalanceMatchesRows('racer2');
    expect(balance).toBe(10_000 - 5_000 - accepted * 400);
    expect(balance).toBeGreaterThanOrEqual(-5_000);
  });
});
