import type { LightMyRequestResponse } from 'fastify';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { utcDay } from '../../src/platform/clock.js';
import type { Dialect } from '../../src/platform/db/database.js';
import { DAILY_COUNTERS } from '../../src/loop/ledger/daily-counters.js';
import { describeEachDatabase, POSTGRES_URL } from '../helpers/databases.js';
import { addAffiliate, addMailbox, eventsOfType } from '../helpers/ledger-fixtures.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * The ledger (docs/ledger.md#the-ledger) and the summary (docs/api.md#reports) under a mixed load: two app
 * instances on one database, one hot affiliate (and a cold one to catch cross-affiliate mistakes), ~32
 * requests in flight of every money action at once (refunds, some of one order at the same moment; commission
 * and withdrawal transitions; withdrawal requests; new payments), then every answer against the contract and
 * every ledger invariant against the rows. Seeded: SVC_STRESS_SEED=<n> replays the same mix of actions (their
 * interleaving stays the scheduler's).
 */

const SEED = Number(process.env.SVC_STRESS_SEED ?? Math.floor(Math.random() * 2 ** 31));
const ACTIONS = 400;
const IN_FLIGHT = 32;
const HOUR = 3_600_000;

/** mulberry32: small, seedable, good enough to pick actions. */
function rng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** docs/ledger.md#money-and-rates: commission = amount × rate, rounded half-up to the cent (computed here independently). */
const commissionOn = (amountCents: number, rateBp: number) => Math.floor((amountCents * rateBp + 5000) / 10000);
const cents = (money: number) => Math.round(money * 100);

/** An answer's parsed JSON, as loosely typed as light-my-request's json() gives it: the checks read many shapes. */
// biome-ignore lint/suspicious/noExplicitAny: parsed JSON of every answer of the mix
type Body = any;

type Affiliate = 'hot' | 'cold';
const RATE_BP: Record<Affiliate, number> = { hot: 1250, cold: 1000 }; // hot: its own 12.5 %; cold: the global 10 %
const EMAILS: Record<Affiliate | 'none', string[]> = {
  hot: ['hot-a@svc.test', 'hot-b@svc.test'],
  cold: ['cold-a@svc.test'],
  none: ['nobody@svc.test'],
};

type CommissionAction = 'approve' | 'mark-paid' | 'void';
const COMMISSION_MOVES: Record<CommissionAction, { to: string; from: string[] }> = {
  approve: { to: 'approved', from: ['pending'] },
  'mark-paid': { to: 'paid', from: ['pending', 'approved'] },
  void: { to: 'void', from: ['pending', 'approved'] },
};

async function pgDeadlocks(): Promise<number> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    const { rows } = await client.query<{ deadlocks: string }>('select deadlocks from pg_stat_database where datname = current_database()');
    return Number(rows[0]?.deadlocks ?? 0);
  } finally {
    await client.end();
  }
}

/**
 * Waits (2 s at most: other suites may be connected) until no other session is connected to the test
 * database: a backend flushes its statistics, deadlocks included, when it exits.
 */
async function pgSessionsGone(): Promise<void> {
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    for (let i = 0; i < 20; i++) {
      const { rows } = await client.query<{ n: number }>(
        'select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()',
      );
      if (rows[0]?.n === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await client.end();
  }
}

describeEachDatabase('mixed ledger load on two instances', (dialect: Dialect) => {
  let t: TestService;
  let sibling: TestService;
  let deadlocksBefore = 0;
  const random = rng(SEED);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)] as T;

  /** What the test knows: orders it made, who they belong to, what it saw refunded. */
  const orders = new Map<string, { owner: Affiliate | 'none'; amountCents: number }>();
  const unpaid = new Set<string>();
  const refundedSeen = new Map<string, number>();
  let refundsOk = 0;
  const commissionIds: string[] = [];
  const withdrawalIds: string[] = [];
  const problems: string[] = [];
  const histogram = new Map<string, number>();
  let orderSeq = 0;

  const call = (i: number, method: string, url: string, body?: unknown): Promise<LightMyRequestResponse> =>
    (i % 2 === 0 ? t : sibling).api(method, url, body);

  /** A 5xx, or an answer the contract does not allow for the action, is recorded with its body. */
  function judge(what: string, res: LightMyRequestResponse, allowed: (status: number, body: Body) => boolean): Body {
    const body: Body = res.json();
    histogram.set(`${what.split(' ')[0]} ${res.statusCode}`, (histogram.get(`${what.split(' ')[0]} ${res.statusCode}`) ?? 0) + 1);
    if (res.statusCode >= 500 || !allowed(res.statusCode, body)) problems.push(`${what} -> ${res.statusCode} ${res.body}`);
    return body;
  }

  async function createOrder(i: number, owner: Affiliate | 'none', amountCents: number): Promise<string> {
    const id = `mix-${owner}-${orderSeq++}`;
    const res = await call(i, 'POST', '/api/orders', { order_id: id, email: pick(EMAILS[owner]), amount: amountCents / 100, product: 'p' });
    judge(`create ${id}`, res, (s, b) => s === 201 && b.order.status === 'created');
    orders.set(id, { owner, amountCents });
    unpaid.add(id);
    return id;
  }

  async function pay(i: number, id: string): Promise<Body> {
    const owner = orders.get(id)!.owner;
    const res = await call(i, 'POST', '/api/orders/pay', { order_id: id });
    const body = judge(`pay ${id}`, res, (s, b) => {
      if (s !== 200 || !['paid', 'partially_refunded', 'refunded'].includes(b.order.status)) return false;
      if (owner === 'none') return b.commission === null;
      return b.commission?.ref_code === owner && b.commission.order_id === id;
    });
    unpaid.delete(id);
    if (res.statusCode === 200 && body.commission && !commissionIds.includes(body.commission.id)) commissionIds.push(body.commission.id);
    return body;
  }

  async function refund(i: number, id: string, amountCents: number | undefined): Promise<void> {
    const wasUnpaid = unpaid.has(id);
    const res = await call(i, 'POST', '/api/orders/refund', amountCents === undefined ? { order_id: id } : { order_id: id, amount: amountCents / 100 });
    const body = judge(`refund ${id} ${amountCents ?? 'all'}`, res, (s, b) => {
      if (s === 200) {
        const got = cents(b.refund.amount);
        if (amountCents !== undefined ? got !== amountCents : got <= 0) return false;
        if (b.clawback && (b.clawback.kind !== 'clawback' || b.clawback.status !== 'paid' || b.clawback.commission >= 0)) return false;
        return cents(b.order.refunded_amount) <= orders.get(id)!.amountCents;
      }
      if (s === 422) {
        const left = cents(b.error.details.refundable);
        return b.error.code === 'refund_exceeds_amount' && (amountCents === undefined ? left === 0 : left < amountCents);
      }
      // only an order the test has not seen paid may be "never paid"
      return s === 409 && wasUnpaid && b.error.code === 'invalid_transition' && b.error.details.status === 'created';
    });
    if (res.statusCode === 200) {
      refundsOk++;
      refundedSeen.set(id, (refundedSeen.get(id) ?? 0) + cents(body.refund.amount));
      if (body.clawback) commissionIds.push(body.clawback.id);
    }
  }

  async function commissionAct(i: number, id: string, action: CommissionAction): Promise<void> {
    const move = COMMISSION_MOVES[action];
    const res = await call(i, 'POST', `/api/commissions/${id}/${action}`);
    judge(`commission-${action} ${id}`, res, (s, b) => {
      if (s === 200) return b.commission.id === id && b.commission.status === move.to;
      return s === 409 && b.error.code === 'invalid_transition' && b.error.details.status !== move.to && !move.from.includes(b.error.details.status);
    });
  }

  async function withdraw(i: number, ref: Affiliate, amountCents: number): Promise<void> {
    const res = await call(i, 'POST', '/api/withdrawals', { ref_code: ref, amount: amountCents / 100 });
    const body = judge(`withdraw ${ref} ${amountCents}`, res, (s, b) => {
      if (s === 201) return b.withdrawal.ref_code === ref && cents(b.withdrawal.amount) === amountCents && b.withdrawal.status === 'requested';
      return s === 422 && b.error.code === 'insufficient_balance' && cents(b.error.details.available) < amountCents;
    });
    if (res.statusCode === 201) withdrawalIds.push(body.withdrawal.id);
  }

  async function withdrawalAct(i: number, id: string, action: 'mark-paid' | 'reject'): Promise<void> {
    const to = action === 'mark-paid' ? 'paid' : 'rejected';
    const res = await call(i, 'POST', `/api/withdrawals/${id}/${action}`);
    judge(`withdrawal-${action} ${id}`, res, (s, b) => {
      if (s === 200) return b.withdrawal.id === id && b.withdrawal.status === to;
      return s === 409 && b.error.code === 'invalid_transition' && b.error.details.status === (to === 'paid' ? 'rejected' : 'paid');
    });
  }

  const amount = () => pick([100, 999, 1234, 2500, 3333, 4999, 10_000, 12_345, 25_001, 50_000, 77_777]);

  beforeAll(async () => {
    t = await startTestService(dialect);
    sibling = await t.sibling();
    if (dialect === 'postgres') deadlocksBefore = await pgDeadlocks();
    await addAffiliate(t, 'hot', { rateBp: RATE_BP.hot });
    await addAffiliate(t, 'cold');
    for (const ref of ['hot', 'cold'] as const) for (const email of EMAILS[ref]) await addMailbox(t, email, ref);
    process.stdout.write(
      `\nledger mix [${dialect}]: seed ${SEED} (reproduce: SVC_STRESS_SEED=${SEED} npx vitest run test/integration/ledger-mixed-concurrency.test.ts)\n`,
    );
  });
  afterAll(async () => {
    await sibling?.close();
    await t?.close();
    // 4. deadlocks PostgreSQL detected meanwhile (inTransaction retried them): printed, not asserted. The
    // figure is the whole database's: suites running at the same time on it count too.
    if (dialect === 'postgres') {
      await pgSessionsGone();
      process.stdout.write(`ledger mix [postgres]: seed ${SEED}, deadlocks detected in the database during the run: ${(await pgDeadlocks()) - deadlocksBefore}\n`);
    }
  });

  it('about 400 mixed money actions, ~32 in flight over both instances: contract answers, rows and counters agree', { timeout: 60_000 }, async () => {
    // 1. ~40 paid orders over two days, commissions in every state, withdrawals in every state
    const owners: (Affiliate | 'none')[] = [...Array(28).fill('hot'), ...Array(8).fill('cold'), ...Array(4).fill('none')];
    const paidIds = await Promise.all(owners.map(async (owner, i) => {
      const id = await createOrder(i, owner, amount());
      await pay(i + 1, id);
      return id;
    }));
    t.clock.advance(14 * HOUR); // the next day: counters of several days
    for (let i = 0; i < 5; i++) await createOrder(i, pick(['hot', 'cold', 'none'] as const), amount()); // never paid (yet)
    const sales = [...commissionIds];
    const firstMoves = ['mark-paid', 'mark-paid', 'approve', 'approve', 'void', undefined, undefined] as const; // undefined: left pending
    await Promise.all(sales.map((id, i) => {
      const action = firstMoves[i % firstMoves.length];
      return action ? commissionAct(i, id, action) : undefined;
    }));
    for (let i = 0; i < 4; i++) await withdraw(i, 'hot', 1000);
    await withdraw(0, 'cold', 500);
    await withdrawalAct(1, withdrawalIds[0]!, 'mark-paid');
    await withdrawalAct(0, withdrawalIds[1]!, 'reject');
    expect(problems).toEqual([]);

    // 2. the mixed load: a few orders take most refunds, so refunds of one order race each other
    const hotOrders = paidIds.slice(0, 6);
    const kinds = [
      ...Array(22).fill('refund-part'),
      ...Array(8).fill('refund-full'),
      ...Array(7).fill('approve'),
      ...Array(8).fill('mark-paid'),
      ...Array(5).fill('void'),
      ...Array(14).fill('withdraw'),
      ...Array(6).fill('withdrawal-paid'),
      ...Array(5).fill('withdrawal-reject'),
      ...Array(10).fill('pay-new'),
      ...Array(4).fill('pay-waiting'),
      ...Array(1).fill('tick'),
    ] as const;
    const plan = Array.from({ length: ACTIONS }, () => pick(kinds));
    const run = async (i: number, kind: (typeof kinds)[number]): Promise<void> => {
      switch (kind) {
        case 'refund-part':
        case 'refund-full': {
          const id = random() < 0.5 ? pick(hotOrders) : pick([...orders.keys()]);
          const left = orders.get(id)!.amountCents - (refundedSeen.get(id) ?? 0);
          const part = Math.max(1, Math.floor(random() * Math.max(1, left) * 0.4));
          return refund(i, id, kind === 'refund-full' ? undefined : part);
        }
        case 'approve':
        case 'mark-paid':
        case 'void':
          return commissionAct(i, pick(commissionIds), kind);
        case 'withdraw':
          return withdraw(i, random() < 0.8 ? 'hot' : 'cold', pick([50, 199, 500, 1000, 2500]));
        case 'withdrawal-paid':
        case 'withdrawal-reject':
          return withdrawalAct(i, pick(withdrawalIds), kind === 'withdrawal-paid' ? 'mark-paid' : 'reject');
        case 'pay-new': {
          const id = await createOrder(i, pick(['hot', 'hot', 'hot', 'cold', 'none'] as const), amount());
          await pay(i + 1, id);
          return;
        }
        case 'pay-waiting': {
          // an order never paid yet (racing its refunds), else a repeated payment of any order
          const waiting = [...unpaid];
          await pay(i, pick(waiting.length > 0 && random() < 0.8 ? waiting : [...orders.keys()]));
          return;
        }
        case 'tick':
          t.clock.advance(5 * HOUR);
          return;
      }
    };
    let next = 0;
    const started = Date.now();
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < plan.length) {
          const i = next++;
          await run(i, plan[i]!);
        }
      }),
    );
    const loadMs = Date.now() - started;

    const db = t.service.ctx.db;
    const orderRows = (await db.selectFrom('orders').selectAll().execute()).map((o) => ({
      ...o,
      amount_cents: Number(o.amount_cents),
      refunded_cents: Number(o.refunded_cents),
      created_at: Number(o.created_at),
      paid_at: o.paid_at === null ? null : Number(o.paid_at),
    }));
    const commissionRows = (await db.selectFrom('commissions').selectAll().execute()).map((c) => ({
      ...c,
      commission_cents: Number(c.commission_cents),
      rate_bp: Number(c.rate_bp),
      created_at: Number(c.created_at),
    }));
    const withdrawalRows = (await db.selectFrom('withdrawals').selectAll().execute()).map((w) => ({ ...w, amount_cents: Number(w.amount_cents), created_at: Number(w.created_at) }));
    const mailboxRows = await db.selectFrom('mailboxes').select(['ref_code', 'created_at']).execute();
    const broken: string[] = [];

    // orders: the refunded total never exceeds the amount and is exactly what the successful refunds answered
    for (const o of orderRows) {
      const mine = orders.get(o.order_id);
      if (!mine) continue;
      if (o.refunded_cents > o.amount_cents) broken.push(`order ${o.order_id}: refunded ${o.refunded_cents} > amount ${o.amount_cents}`);
      if (o.refunded_cents !== (refundedSeen.get(o.order_id) ?? 0)) broken.push(`order ${o.order_id}: refunded ${o.refunded_cents}, refunds answered ${refundedSeen.get(o.order_id) ?? 0}`);
      const expectStatus = o.paid_at === null ? 'created' : o.refunded_cents === 0 ? 'paid' : o.refunded_cents === o.amount_cents ? 'refunded' : 'partially_refunded';
      if (o.status !== expectStatus) broken.push(`order ${o.order_id}: status ${o.status}, refunded ${o.refunded_cents} of ${o.amount_cents}`);
      const owner = mine.owner === 'none' ? null : mine.owner;
      if (o.paid_at !== null && o.ref_code !== owner) broken.push(`order ${o.order_id}: attributed to ${o.ref_code}, expected ${owner}`);
    }

    // commissions: one sale per paid attributed order, following what remains; clawbacks never beyond what was paid
    for (const o of orderRows.filter((x) => x.paid_at !== null && x.ref_code !== null)) {
      const mine = commissionRows.filter((c) => c.order_id === o.order_id);
      const salesOf = mine.filter((c) => c.kind === 'sale');
      const claws = mine.filter((c) => c.kind === 'clawback');
      if (salesOf.length !== 1) {
        broken.push(`order ${o.order_id}: ${salesOf.length} sale commissions`);
        continue;
      }
      const sale = salesOf[0]!;
      const remaining = o.amount_cents - o.refunded_cents;
      const owed = commissionOn(remaining, RATE_BP[o.ref_code as Affiliate]);
      const clawed = claws.reduce((s, c) => s + c.commission_cents, 0);
      if (sale.ref_code !== o.ref_code || claws.some((c) => c.ref_code !== o.ref_code || c.status !== 'paid' || c.commission_cents >= 0)) {
        broken.push(`order ${o.order_id}: commissions of another affiliate or a clawback not negative-paid ${JSON.stringify(mine)}`);
      }
      if (-clawed > Math.max(0, sale.commission_cents)) broken.push(`order ${o.order_id}: clawed back ${-clawed} of a sale commission of ${sale.commission_cents}`);
      if (sale.status === 'paid' && sale.commission_cents + clawed !== owed) {
        broken.push(`order ${o.order_id}: paid ${sale.commission_cents} + clawbacks ${clawed} != ${owed} owed on the ${remaining} left`);
      }
      if (sale.status !== 'paid' && claws.length > 0) broken.push(`order ${o.order_id}: clawbacks on a ${sale.status} commission`);
      if ((sale.status === 'pending' || sale.status === 'approved') && sale.commission_cents !== owed) {
        broken.push(`order ${o.order_id}: open commission ${sale.commission_cents} != ${owed} owed on the ${remaining} left`);
      }
      if (sale.void_reason === 'refunded' && remaining !== 0) broken.push(`order ${o.order_id}: voided as refunded with ${remaining} left`);
      if (remaining === 0 && (sale.status === 'pending' || sale.status === 'approved')) broken.push(`order ${o.order_id}: fully refunded, commission still ${sale.status}`);
    }
    for (const c of commissionRows) {
      const o = orderRows.find((x) => x.order_id === c.order_id);
      if (!o || o.ref_code !== c.ref_code) broken.push(`commission ${c.id} of order ${c.order_id} (${o?.ref_code}) for ${c.ref_code}`);
    }

    // balances: paid commissions (clawbacks included) − withdrawals requested or paid
    // the balance: the sum of the affiliate's stripes' shares (migration 0043)
    const balances = await db.selectFrom('affiliate_stats').select('ref_code').select(sql<number>`sum(balance_cents)`.as('balance_cents')).groupBy('ref_code').execute();
    for (const ref of ['hot', 'cold'] as const) {
      const paid = commissionRows.filter((c) => c.ref_code === ref && c.status === 'paid').reduce((s, c) => s + c.commission_cents, 0);
      const out = withdrawalRows.filter((w) => w.ref_code === ref && w.status !== 'rejected').reduce((s, w) => s + w.amount_cents, 0);
      const balance = Number(balances.find((b) => b.ref_code === ref)!.balance_cents);
      if (balance !== paid - out) broken.push(`${ref}: balance ${balance} != paid ${paid} − withdrawn ${out}`);
    }

    // counters: per affiliate and day, daily_stats == recomputed from the rows; affiliate_stats == the days' sum
    type Sums = Record<string, number>;
    const COLS = DAILY_COUNTERS;
    const zero = (): Sums => Object.fromEntries(COLS.map((k) => [k, 0]));
    const expected = new Map<string, Sums>();
    const add = (ref: string | null, day: string, col: (typeof COLS)[number], n: number) => {
      if (!ref) return;
      const key = `${ref} ${day}`;
      const row = expected.get(key) ?? zero();
      row[col] = (row[col] ?? 0) + n;
      expected.set(key, row);
    };
    for (const m of mailboxRows) add(m.ref_code, utcDay(Number(m.created_at)), 'mailboxes', 1);
    for (const c of commissionRows) {
      const day = utcDay(c.created_at);
      add(c.ref_code, day, `commission_${c.status}_cents`, c.commission_cents);
    }
    // every paid attributed order, on the day it was paid, with what is left of it (docs/api.md#reports)
    for (const o of orderRows) {
      if (o.paid_at === null) continue;
      add(o.ref_code, utcDay(Number(o.paid_at)), 'orders', 1);
      add(o.ref_code, utcDay(Number(o.paid_at)), 'revenue_cents', o.amount_cents - o.refunded_cents);
    }
    for (const w of withdrawalRows) {
      if (w.status !== 'rejected') add(w.ref_code, utcDay(w.created_at), w.status === 'paid' ? 'withdrawals_paid_cents' : 'withdrawals_requested_cents', w.amount_cents);
    }
    const dailyRows = await db.selectFrom('daily_stats').selectAll().execute();
    const daily = new Map<string, Sums>();
    for (const r of dailyRows) {
      const key = `${r.ref_code} ${r.day}`;
      const row = daily.get(key) ?? zero();
      for (const k of COLS) row[k] = (row[k] ?? 0) + Number(r[k]);
      daily.set(key, row);
    }
    const nonZero = (m: Map<string, Sums>) => new Map([...m].filter(([, s]) => COLS.some((k) => s[k] !== 0)));
    const exp = nonZero(expected);
    const got = nonZero(daily);
    for (const key of new Set([...exp.keys(), ...got.keys()])) {
      for (const k of COLS) {
        if ((exp.get(key)?.[k] ?? 0) !== (got.get(key)?.[k] ?? 0)) broken.push(`daily_stats ${key} ${k}: ${got.get(key)?.[k] ?? 0}, rows say ${exp.get(key)?.[k] ?? 0}`);
      }
    }
    const allTimeRows = await db.selectFrom('affiliate_stats').selectAll().execute();
    for (const ref of ['hot', 'cold'] as const) {
      for (const k of COLS) {
        const days = [...got].filter(([key]) => key.startsWith(`${ref} `)).reduce((s, [, v]) => s + (v[k] ?? 0), 0);
        const allTime = allTimeRows.filter((r) => r.ref_code === ref).reduce((s, r) => s + Number(r[k]), 0);
        if (days !== allTime) broken.push(`${ref} ${k}: affiliate_stats ${allTime}, daily_stats ${days}`);
      }
    }

    // events: one order.refunded per successful refund, one commission.created per commission
    const refundedEvents = (await eventsOfType(t, 'order.refunded')).length;
    if (refundedEvents !== refundsOk) broken.push(`${refundedEvents} order.refunded events for ${refundsOk} refunds`);
    const createdEvents = (await eventsOfType(t, 'commission.created')).length;
    if (createdEvents !== commissionRows.length) broken.push(`${createdEvents} commission.created events for ${commissionRows.length} commissions`);

    // the summary (docs/api.md#reports) agrees with the rows
    const summary = (await sibling.api('GET', '/api/affiliate/summary')).json();
    for (const ref of ['hot', 'cold'] as const) {
      const row = summary.summary.find((r: { ref_code: string }) => r.ref_code === ref);
      const sum = (k: (typeof COLS)[number]) => [...exp].filter(([key]) => key.startsWith(`${ref} `)).reduce((s, [, v]) => s + (v[k] ?? 0), 0);
      const want = {
        orders: sum('orders'),
        revenue: sum('revenue_cents'),
        mailboxes: sum('mailboxes'),
        pending: sum('commission_pending_cents'),
        approved: sum('commission_approved_cents'),
        paid: sum('commission_paid_cents'),
        void: sum('commission_void_cents'),
        total: sum('commission_pending_cents') + sum('commission_approved_cents') + sum('commission_paid_cents'),
        requested: sum('withdrawals_requested_cents'),
        withdrawn: sum('withdrawals_paid_cents'),
        balance: Number(balances.find((b) => b.ref_code === ref)!.balance_cents),
      };
      const seen = {
        orders: row.orders,
        revenue: cents(row.revenue),
        mailboxes: row.mailboxes,
        pending: cents(row.commission.pending),
        approved: cents(row.commission.approved),
        paid: cents(row.commission.paid),
        void: cents(row.commission.void),
        total: cents(row.commission.total),
        requested: cents(row.withdrawals.requested),
        withdrawn: cents(row.withdrawals.paid),
        balance: cents(row.balance),
      };
      if (JSON.stringify(seen) !== JSON.stringify(want)) broken.push(`summary ${ref}: ${JSON.stringify(seen)}, rows say ${JSON.stringify(want)}`);
    }

    const hist = [...histogram].sort(([a], [b]) => (a < b ? -1 : 1)).map(([k, n]) => `${k}:${n}`).join(' ');
    process.stdout.write(
      `ledger mix [${dialect}]: seed ${SEED}, ${plan.length} actions in ${loadMs} ms; ${orderRows.length} orders, ${commissionRows.length} commissions (${commissionRows.filter((c) => c.kind === 'clawback').length} clawbacks), ${withdrawalRows.length} withdrawals; answers ${hist}\n`,
    );
    // 3. every answer was one the contract allows (bodies printed), and the rows keep every invariant
    expect({ answers: problems, invariants: broken }).toEqual({ answers: [], invariants: [] });

  });
});
