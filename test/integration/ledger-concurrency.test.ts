import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addAffiliate, addMailbox, balanceCents, earn, eventsOfType } from '../helpers/ledger-fixtures.js';
import { describeEachDatabase, POSTGRES_URL } from '../helpers/databases.js';
import { runSvc, started, type SvcProcess } from '../helpers/process.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/service.js';

type Caller = (method: string, url: string, body?: unknown, headers?: Record<string, string>) => Promise<Pick<LightMyRequestResponse, 'statusCode' | 'json'>>;

/** Pays one order from many callers at once, then checks: one commission, one event, same answer for all. */
async function payConcurrently(t: TestService, callers: Caller[], orderId: string, times: number): Promise<void> {
  const created = await callers[0]!('POST', '/api/orders', { order_id: orderId, email: 'race@svc.test', amount: 77.77, product: 'p' });
  expect(created.statusCode).toBe(201);
  const answers = await Promise.all(Array.from({ length: times }, (_, i) => callers[i % callers.length]!('POST', '/api/orders/pay', { order_id: orderId })));
  const bodies = answers.map((a) => {
    expect(a.statusCode).toBe(200);
    return a.json();
  });
  const commissionIds = new Set(bodies.map((b) => b.commission?.id));
  expect(commissionIds.size).toBe(1);
  expect(bodies[0].commission).toMatchObject({ order_id: orderId, ref_code: 'racer', commission: 7.78, status: 'pending' });
  for (const b of bodies) expect(b).toEqual(bodies[0]);
  const rows = await t.service.ctx.db.selectFrom('commissions').select('id').where('order_id', '=', orderId).execute();
  expect(rows).toHaveLength(1);
  const events = (await eventsOfType(t, 'order.paid')).filter((e) => (e.data as { order: { id: string } }).order.id === orderId);
  expect(events).toHaveLength(1);
}

/** Many withdrawals at once against a known balance: never more than the balance, never below zero. */
async function overdrawConcurrently(t: TestService, callers: Caller[], refCode: string, attempts: number, amount: number): Promise<void> {
  const start = await balanceCents(t, refCode);
  const answers = await Promise.all(
    Array.from({ length: attempts }, (_, i) => callers[i % callers.length]!('POST', '/api/withdrawals', { ref_code: refCode, amount })),
  );
  const ok = answers.filter((a) => a.statusCode === 201);
  const refused = answers.filter((a) => a.statusCode === 422);
  expect(ok.length + refused.length).toBe(attempts);
  for (const r of refused) expect(r.json().error.code).toBe('insufficient_balance');
  const cents = Math.round(amount * 100);
  expect(ok.length).toBe(Math.floor(start / cents));
  const end = await balanceCents(t, refCode);
  expect(end).toBe(start - ok.length * cents);
  expect(end).toBeGreaterThanOrEqual(0);
  expect(new Set(ok.map((a) => a.json().withdrawal.id)).size).toBe(ok.length);
  await expectBalanceMatchesLedger(t, refCode);
}

/** docs/ledger.md#balance-and-withdrawals: balance = paid commissions − withdrawals requested or paid, recomputed from the rows. */
async function expectBalanceMatchesLedger(t: TestService, refCode: string): Promise<void> {
  const db = t.service.ctx.db;
  const paid = await db.selectFrom('commissions').select('commission_cents').where('ref_code', '=', refCode).where('status', '=', 'paid').execute();
  const out = await db.selectFrom('withdrawals').select('amount_cents').where('ref_code', '=', refCode).where('status', 'in', ['requested', 'paid']).execute();
  const expected = paid.reduce((s, c) => s + c.commission_cents, 0) - out.reduce((s, w) => s + w.amount_cents, 0);
  expect(await balanceCents(t, refCode)).toBe(expected);
}

describeEachDatabase('ledger under concurrency', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'racer');
    await addMailbox(t, 'race@svc.test', 'racer');
  });
  afterAll(async () => {
    await t?.close();
  });

  it('20 parallel pays of one order: one commission, one event, the same answer', async () => {
    await payConcurrently(t, [t.api], 'race-1', 20);
  });

  it('parallel mark-paid of one commission credits the balance once', async () => {
    const created = await t.api('POST', '/api/orders', { order_id: 'race-2', email: 'race@svc.test', amount: 100, product: 'p' });
    expect(created.statusCode).toBe(201);
    const c = (await t.api('POST', '/api/orders/pay', { order_id: 'race-2' })).json().commission;
    const before = await balanceCents(t, 'racer');
    const answers = await Promise.all(Array.from({ length: 15 }, () => t.api('POST', `/api/commissions/${c.id}/mark-paid`)));
    for (const a of answers) expect(a.json().commission).toMatchObject({ id: c.id, status: 'paid' });
    expect(await balanceCents(t, 'racer')).toBe(before + 1000);
    expect((await eventsOfType(t, 'commission.paid')).filter((e) => (e.data as { commission: { id: string } }).commission.id === c.id)).toHaveLength(1);
  });

  it('40 parallel withdrawals never overdraw', async () => {
    await earn(t, 'race-3', 'race@svc.test', 50); // +5.00, so 15.00 in total
    await overdrawConcurrently(t, [t.api], 'racer', 40, 1);
    expect(await balanceCents(t, 'racer')).toBe(0);
  });

  it('parallel requests with one Idempotency-Key act once, and every one gets the first answer', async () => {
    await earn(t, 'race-4', 'race@svc.test', 100);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => t.api('POST', '/api/withdrawals', { ref_code: 'racer', amount: 1 }, { 'idempotency-key': 'same-key' })),
    );
    expect(answers.map((a) => a.statusCode)).toEqual(answers.map(() => 201));
    expect(new Set(answers.map((a) => a.json().withdrawal.id)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === 'true')).toHaveLength(9);
    expect(await balanceCents(t, 'racer')).toBe(900);
  });

  it('a withdrawal waits for a credit in flight on a stripe of the balance and counts it', async () => {
    await addAffiliate(t, 'stall');
    const db = t.service.ctx.db;
    // the balance's share on stripe 3 exists, at 0.00 (migration 0043)
    await db.insertInto('affiliate_stats').values({ ref_code: 'stall', stripe: 3, balance_cents: 0 }).execute();
    let answer: LightMyRequestResponse;
    if (dialect === 'postgres') {
      // a credit of 10.00 holds stripe 3 uncommitted while a withdrawal of 5.00 locks the balance: it
      // waits for the credit's commit and then sees 10.00, instead of refusing with 0.00
      const credit = new pg.Client({ connectionString: POSTGRES_URL });
      await credit.connect();
      try {
        await credit.query(`set search_path to "${t.database.pgSchema}"`);
        await credit.query('begin');
        await credit.query("update affiliate_stats set balance_cents = balance_cents + 1000 where ref_code = 'stall' and stripe = 3");
        const requesting = t.api('POST', '/api/withdrawals', { ref_code: 'stall', amount: 5 });
        for (let i = 0; ; i++) {
          const { rows } = await credit.query(
            // the service's connection waiting for a lock (the credit's transaction): the only lock in play
            "select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'",
          );
          if (rows[0].n > 0) break;
          if (i > 200) throw new Error('the withdrawal never waited for the credit');
          await new Promise((r) => setTimeout(r, 10));
        }
        await credit.query('commit');
        answer = await requesting;
      } finally {
        await credit.end();
      }
    } else {
      // SQLite runs one writer at a time: the credit commits before the withdrawal starts
      await db.updateTable('affiliate_stats').set({ balance_cents: sql`balance_cents + 1000` }).where('ref_code', '=', 'stall').where('stripe', '=', 3).execute();
      answer = await t.api('POST', '/api/withdrawals', { ref_code: 'stall', amount: 5 });
    }
    expect(answer.statusCode, answer.body).toBe(201);
    expect(await balanceCents(t, 'stall')).toBe(500);
  });

  it('a withdrawal refused for the balance names the sum of its stripes as available', async () => {
    await addAffiliate(t, 'shares');
    await t.service.ctx.db
      .insertInto('affiliate_stats')
      .values([
        { ref_code: 'shares', stripe: 1, balance_cents: 700 },
        { ref_code: 'shares', stripe: 4, balance_cents: -250 },
      ])
      .execute();
    const refused = await t.api('POST', '/api/withdrawals', { ref_code: 'shares', amount: 4.51 });
    expect(refused.statusCode).toBe(422);
    expect(refused.json()).toMatchObject({ error: { code: 'insufficient_balance', details: { available: 4.5 } } });
    const taken = await t.api('POST', '/api/withdrawals', { ref_code: 'shares', amount: 4.5 });
    expect(taken.statusCode, taken.body).toBe(201);
    expect(await balanceCents(t, 'shares')).toBe(0);
    const again = await t.api('POST', '/api/withdrawals', { ref_code: 'shares', amount: 0.01 });
    expect(again.json()).toMatchObject({ error: { code: 'insufficient_balance', details: { available: 0 } } });
  });

  describe('two app instances on one database', () => {
    let t2: TestService;
    beforeAll(async () => {
      t2 = await t.sibling();
    });
    afterAll(async () => {
      await t2.close();
    });

    it('pays one order once across instances', async () => {
      await payConcurrently(t, [t.api, t2.api], 'race-sib-1', 30);
    });

    it('max_orders holds when one customer\'s orders are paid at the same moment on both instances', async () => {
      await addAffiliate(t, 'capper');
      await addMailbox(t, 'capped-customer@svc.test', 'capper');
      const rule = await t.api('POST', '/api/commission-rules', { ref_code: 'capper', rate: 10, max_orders: 3 });
      expect(rule.statusCode).toBe(201);
      const orders = Array.from({ length: 16 }, (_, i) => `cap-race-${i}`);
      for (const id of orders) {
        expect((await t.api('POST', '/api/orders', { order_id: id, email: 'capped-customer@svc.test', amount: 10, product: 'p' })).statusCode).toBe(201);
      }
      const answers = await Promise.all(orders.map((id, i) => (i % 2 ? t.api : t2.api)('POST', '/api/orders/pay', { order_id: id })));
      for (const a of answers) expect(a.json().order.status).toBe('paid');
      const withCommission = answers.filter((a) => a.json().commission);
      expect(withCommission).toHaveLength(3);
      for (const a of withCommission) expect(a.json().commission).toMatchObject({ ref_code: 'capper', commission: 1, rule_id: rule.json().rule.id });
      const rows = await t.service.ctx.db.selectFrom('commissions').select('id').where('ref_code', '=', 'capper').execute();
      expect(rows).toHaveLength(3);
    });

    it('never overdraws across instances, and commission actions race safely', async () => {
      await earn(t2, 'race-sib-2', 'race@svc.test', 200); // +20.00
      await overdrawConcurrently(t, [t.api, t2.api], 'racer', 60, 0.5);
      const ids: string[] = [];
      for (let i = 0; i < 3; i++) {
        await t.api('POST', '/api/orders', { order_id: `race-sib-3-${i}`, email: 'race@svc.test', amount: 10, product: 'p' });
        ids.push((await t2.api('POST', '/api/orders/pay', { order_id: `race-sib-3-${i}` })).json().commission.id);
      }
      const before = await balanceCents(t, 'racer');
      // mark-paid and withdrawals interleaved on both instances: balance must end consistent
      const mixed = await Promise.all([
        ...ids.flatMap((id) => [t.api('POST', `/api/commissions/${id}/mark-paid`), t2.api('POST', `/api/commissions/${id}/mark-paid`)]),
        ...Array.from({ length: 10 }, (_, i) => (i % 2 ? t.api : t2.api)('POST', '/api/withdrawals', { ref_code: 'racer', amount: 1 })),
      ]);
      const withdrawn = mixed.filter((a) => a.statusCode === 201 && a.json().withdrawal).length;
      expect(await balanceCents(t, 'racer')).toBe(before + 300 - withdrawn * 100);
      await expectBalanceMatchesLedger(t, 'racer');
    });
  });
});


describeEachDatabase('two svc processes (dist/main.js) on one database', (dialect) => {
  let t: TestService;
  const children: SvcProcess[] = [];
  const bases: string[] = [];

  const spawnService = (url: string): Promise<string> => {
    const p = runSvc({ DATABASE_URL: url, PORT: '0', SVC_API_KEY: TEST_API_KEY, SVC_ADMIN_PASSWORD: 'test-admin-password' });
    children.push(p);
    return started(p);
  };

  const callerFor =
    (base: string): Caller =>
    async (method, url, body) => {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { 'x-api-key': TEST_API_KEY, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      const json: unknown = await res.json();
      return { statusCode: res.status, json: <T>() => json as T };
    };

  beforeAll(async () => {
    t = await startTestService(dialect);
    await addAffiliate(t, 'racer');
    await addMailbox(t, 'race@svc.test', 'racer');
    let url = t.database.url;
    if (dialect === 'postgres') {
      // the processes share the test's schema through the URL (openDatabase reads search_path from it)
      const u = new URL(POSTGRES_URL as string);
      u.searchParams.set('options', `-c search_path=${t.database.pgSchema}`);
      url = u.toString();
      const { rows } = await sql<{ n: number }>`select count(*)::int as n from information_schema.schemata where schema_name = ${t.database.pgSchema}`.execute(t.service.ctx.db);
      if (rows[0]?.n !== 1) throw new Error(`test schema ${t.database.pgSchema} is missing before the processes start`);
    }
    bases.push(...(await Promise.all([spawnService(url), spawnService(url)])));
  });
  afterAll(async () => {
    await Promise.all(children.map((c) => c.stop()));
    await t?.close();
  });

  it('pays one order once when both processes are hammered', async () => {
    await payConcurrently(t, bases.map(callerFor), 'proc-1', 40);
  });

  it('never overdraws when both processes take withdrawals', async () => {
    const [a, b] = bases.map(callerFor) as [Caller, Caller];
    for (let i = 0; i < 4; i++) {
      await a('POST', '/api/orders', { order_id: `proc-2-${i}`, email: 'race@svc.test', amount: 25, product: 'p' });
      const c = (await b('POST', '/api/orders/pay', { order_id: `proc-2-${i}` })).json().commission;
      expect((await (i % 2 ? a : b)('POST', `/api/commissions/${c.id}/mark-paid`)).statusCode).toBe(200);
    }
    await overdrawConcurrently(t, [a, b], 'racer', 60, 0.25); // 10.00 + 7.78 pending not counted
    expect(await balanceCents(t, 'racer')).toBe(0);
  });
});
