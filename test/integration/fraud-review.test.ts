import type { LightMyRequestResponse } from 'fastify';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { balanceCents, eventsOfType } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, portalClient, inviteToken } from '../helpers/portal.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';

// docs/api.md#fraud-review: each signal at its threshold and one past it, off, flag and hold;
// the hold through the holding period, release and reject with their balances and events; every route that
// moves money tried on a held commission.

const DAY = 86_400_000;
const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) Chrome/120.0';

describeEachDatabase('fraud review', (dialect) => {
  let t: TestService;
  let admin: AdminClient;

  beforeEach(async () => {
    t = await startTestService(dialect);
    admin = await t.admin();
  });

  afterEach(async () => {
    await t.close();
  });

  const affiliate = async (ref_code: string, email: string | null = null) => {
    const res = await t.api('POST', '/api/affiliates', { ref_code, ...(email ? { email } : {}) });
    expect(res.statusCode, res.body).toBe(201);
  };
  /** An order naming the affiliate (attributed when no mailbox carries its email), paid: the pay answer. */
  const order = async (orderId: string, email: string, refCode: string, amount = 100) => {
    expect((await t.api('POST', '/api/orders', { order_id: orderId, email, amount, product: 'p', ref_code: refCode })).statusCode).toBe(201);
    const paid = await t.api('POST', '/api/orders/pay', { order_id: orderId });
    expect(paid.statusCode, paid.body).toBe(200);
    return paid.json();
  };
  const setRules = async (patch: Record<string, unknown>) => {
    const res = await admin.call('PATCH', '/admin/api/settings', patch);
    expect(res.statusCode, res.body).toBe(200);
  };
  const cases = async (query = '') => {
    const res = await t.api('GET', `/api/fraud/cases${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().items as CaseJson[];
  };
  const commission = async (id: string) => (await t.api('GET', `/api/commissions/${id}`)).json().commission;
  const from = (ip: string, method: 'GET' | 'POST', url: string, payload?: object, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> =>
    t.service.app.inject({ method, url, payload, remoteAddress: ip, headers: { 'user-agent': BROWSER, ...headers } });

  describe('settings', () => {
    it('has the contract defaults, changes one rule at a time and names a bad value', async () => {
      const s = (await admin.call('GET', '/admin/api/settings')).json().settings;
      expect(s.fraud_rules).toEqual({ self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'flag', refund_rate: 'flag' });
      expect(s.fraud_click_burst).toBe(30);
      await setRules({ fraud_rules: { click_burst: 'hold' } });
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.fraud_rules).toEqual({ self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'hold', refund_rate: 'flag' });
      const bad = await admin.call('PATCH', '/admin/api/settings', { fraud_rules: { refund_rate: 'block' } });
      expect(bad.statusCode).toBe(400);
      expect(bad.json().error.details[0].field).toBe('fraud_rules.refund_rate');
      const unknown = await admin.call('PATCH', '/admin/api/settings', { fraud_rules: { ip_reputation: 'hold' } });
      expect(unknown.statusCode).toBe(400);
      expect((await admin.call('PATCH', '/admin/api/settings', { fraud_click_burst: 0 })).statusCode).toBe(400);
    });
  });

  describe('self_referral', () => {
    it('holds a commission ordered with the affiliate\'s own email, and the pending ones it had; every money route refuses it', async () => {
      await affiliate('ann', 'Ann@Example.com');
      const earlier = (await order('o-1', 'buyer@customer.test', 'ann')).commission;
      expect(earlier.hold).toBeNull();
      const paid = await order('o-2', 'ann@example.com', 'ann');
      const [c] = await cases();
      expect(c).toMatchObject({ ref_code: 'ann', signal: 'self_referral', action: 'hold', status: 'open', resolved_at: null, note: null });
      expect(c?.evidence).toEqual([{ at: expect.any(String), detail: "Ordered with the affiliate's own email ann@example.com", order_id: 'o-2' }]);
      expect(c?.held).toEqual({ count: 2, amount: 20, currency: 'USD' });
      expect(paid.commission.hold).toEqual({ case_id: c?.id, signal: 'self_referral' });
      expect((await commission(earlier.id)).hold).toEqual({ case_id: c?.id, signal: 'self_referral' });

      // every route that moves money
      for (const action of ['approve', 'mark-paid']) {
        const res = await t.api('POST', `/api/commissions/${paid.commission.id}/${action}`);
        expect(res.statusCode).toBe(409);
        expect(res.json().error.code).toBe('on_hold');
        expect((await admin.call('POST', `/admin/api/commissions/${earlier.id}/${action}`)).json().error.code).toBe('on_hold');
      }
      await t.api('PATCH', '/api/affiliates/ann', { payout_details: { method: 'other', note: 'by hand' } });
      const w = await t.api('POST', '/api/withdrawals', { ref_code: 'ann', amount: 1 });
      expect(w.statusCode).toBe(422);
      expect(w.json().error.code).toBe('on_hold');
      const portal = portalClient(t, 'ann', await t.request('POST', '/portal/api/accept-invite', { token: await inviteToken(t, 'ann'), password: PORTAL_PASSWORD }));
      expect((await portal.call('POST', '/portal/api/withdrawals', { amount: 1 })).json().error.code).toBe('on_hold');
      // the portal says "under review", never the signal
      const mine = await portal.call('GET', '/portal/api/commissions');
      expect(mine.json().items.map((i: { under_review: boolean }) => i.under_review)).toEqual([true, true]);
      expect(mine.body).not.toContain('self_referral');
      expect(mine.body).not.toContain(c?.id);
      // the holding period does not approve it
      await setRules({ holding_days: 1 });
      t.clock.advance(3 * DAY);
      expect(await t.service.ctx.services.commissions.approveDue()).toBe(0);
      expect((await commission(paid.commission.id)).status).toBe('pending');
      // the monthly schedule skips the affiliate
      expect((await eventsOfType(t, 'fraud.case_opened')).map((e) => (e.data as { case: CaseJson }).case.id)).toEqual([c?.id]);
      expect((await t.api('GET', '/api/fraud/open-count')).json()).toEqual({ success: true, open: 1 });
    });

    it('keeps the balance earned before the case where it is: no withdrawal, the monthly schedule skips the affiliate until the case is resolved', async () => {
      await affiliate('ann', 'ann@example.com');
      await t.api('PATCH', '/api/affiliates/ann', { payout_details: { method: 'other', note: 'by hand' } });
      const earned = await order('o-1', 'buyer@customer.test', 'ann');
      expect((await t.api('POST', `/api/commissions/${earned.commission.id}/mark-paid`)).statusCode).toBe(200);
      expect(await balanceCents(t, 'ann')).toBe(1000);
      await order('o-2', 'ann@example.com', 'ann');
      await setRules({ payout_schedule: 'monthly' });
      t.clock.set(Date.UTC(2026, 1, 1, 0, 5));
      expect(await t.service.ctx.services.payouts.runSchedule()).toEqual([]);
      expect((await t.api('GET', '/api/withdrawals?ref_code=ann')).json().items).toEqual([]);
      expect(await balanceCents(t, 'ann')).toBe(1000);
      const [c] = await cases();
      expect((await t.api('POST', `/api/fraud/cases/${c?.id}/release`)).statusCode).toBe(200);
      expect((await t.api('POST', '/api/withdrawals', { ref_code: 'ann', amount: 10 })).statusCode).toBe(201);
    });

    it('releases: held commissions continue, approved at once when their holding period is over', async () => {
      await affiliate('ann', 'ann@example.com');
      await setRules({ holding_days: 2 });
      const paid = await order('o-1', 'ann@example.com', 'ann');
      t.clock.advance(1 * DAY);
      const later = await order('o-2', 'friend@customer.test', 'ann');
      expect(later.commission.hold).not.toBeNull(); // an open hold case holds every new commission too
      t.clock.advance(1 * DAY + 1000);
      const [c] = await cases('?status=open');
      // the API key (the admin session of this test has expired two days later)
      const released = await t.api('POST', `/api/fraud/cases/${c?.id}/release`, { note: 'Her own test purchase; fine' });
      expect(released.statusCode, released.body).toBe(200);
      expect(released.json().case).toMatchObject({ status: 'released', note: 'Her own test purchase; fine', held: { count: 2, amount: 20, currency: 'USD' } });
      expect(released.json().case.resolved_at).toBe(new Date(t.clock.now()).toISOString());
      // o-1's holding period (2 days) is over: approved at once; o-2's is not: pending, no longer held
      expect(await commission(paid.commission.id)).toMatchObject({ status: 'approved', hold: null });
      expect(await commission(later.commission.id)).toMatchObject({ status: 'pending', hold: null });
      expect((await eventsOfType(t, 'fraud.case_resolved')).map((e) => (e.data as { case: CaseJson }).case.status)).toEqual(['released']);
      // resolved stays resolved: releasing again is unchanged, rejecting is 409; the same signal opens a new case
      expect((await t.api('POST', `/api/fraud/cases/${c?.id}/release`)).json().case.status).toBe('released');
      const again = await t.api('POST', `/api/fraud/cases/${c?.id}/reject`);
      expect(again.statusCode).toBe(409);
      expect(again.json().error.code).toBe('invalid_transition');
      await order('o-3', 'ann@example.com', 'ann');
      expect((await cases('?status=open')).map((x) => x.id)).not.toContain(c?.id);
      expect(await cases('?status=open')).toHaveLength(1);
    });

    it('rejects: held commissions become void with void_reason "fraud", counters and balance as any void', async () => {
      await affiliate('ann', 'ann@example.com');
      const paid = await order('o-1', 'ann@example.com', 'ann', 250);
      const before = (await t.api('GET', '/api/affiliate/summary?ref_code=ann')).json().summary[0];
      expect(before.commission.pending).toBe(25);
      const [c] = await cases();
      const rejected = await t.api('POST', `/api/fraud/cases/${c?.id}/reject`, { note: 'Bought through her own link' });
      expect(rejected.statusCode, rejected.body).toBe(200);
      expect(rejected.json().case).toMatchObject({ status: 'rejected', held: { count: 1, amount: 25, currency: 'USD' } });
      expect(await commission(paid.commission.id)).toMatchObject({ status: 'void', void_reason: 'fraud', hold: null });
      const after = (await t.api('GET', '/api/affiliate/summary?ref_code=ann')).json().summary[0];
      expect(after.commission).toMatchObject({ pending: 0, void: 25 });
      expect(await balanceCents(t, 'ann')).toBe(0);
      const voided = await eventsOfType(t, 'commission.voided');
      expect(voided.map((e) => (e.data as { commission: { void_reason: string } }).commission.void_reason)).toEqual(['fraud']);
      const csv = await t.api('GET', '/api/commissions.csv?ref_code=ann');
      expect(csv.body.split('\n')[1]).toContain('void');
      expect(csv.body.split('\n')[1]).toContain('fraud');
      expect((await t.api('POST', `/api/fraud/cases/${c?.id}/release`)).json().error.code).toBe('invalid_transition');
    });

    it('fires on the affiliate\'s own domain, not on a public provider\'s or svc\'s own mail domain', async () => {
      await affiliate('ann', 'ann@example.com');
      await affiliate('gus', 'gus@gmail.com');
      await affiliate('sam', 'sam@svc.test');
      await order('o-1', 'boss@EXAMPLE.com', 'ann');
      await order('o-2', 'friend@gmail.com', 'gus');
      await order('o-3', 'buyer@svc.test', 'sam');
      await order('o-4', 'someone@example.org', 'ann');
      const open = await cases();
      expect(open.map((c) => c.ref_code)).toEqual(['ann']);
      expect(open[0]?.evidence.map((e) => e.detail)).toEqual(["Ordered with boss@example.com, at the affiliate's own email domain example.com"]);
    });

    it('fires when the ordering mailbox came from the network the affiliate signed in from within 30 days, not 31', async () => {
      await affiliate('ann', 'ann@example.com');
      await affiliate('bob', 'bob@example.net');
      // ann signs in from 203.0.113.7; bob from 198.51.100.2
      expect((await from('203.0.113.7', 'POST', '/portal/api/accept-invite', { token: await inviteToken(t, 'ann'), password: PORTAL_PASSWORD })).statusCode).toBe(200);
      t.clock.set(t.clock.now() - 31 * DAY);
      expect((await from('198.51.100.2', 'POST', '/portal/api/accept-invite', { token: await inviteToken(t, 'bob'), password: PORTAL_PASSWORD })).statusCode).toBe(200);
      t.clock.advance(31 * DAY + 2 * DAY);
      // visitors come through the links and make mailboxes: from ann's network, from elsewhere, from bob's 31 days later
      const made = async (ip: string, ref: string) => {
        const res = await from(ip, 'POST', '/mailboxes', { ref });
        expect(res.statusCode, res.body).toBe(201);
        return res.json().mailbox.address as string;
      };
      const own = await made('203.0.113.7', 'ann');
      const other = await made('203.0.113.8', 'ann');
      const late = await made('198.51.100.2', 'bob');
      await order('o-1', own, 'ann');
      await order('o-2', other, 'ann');
      await order('o-3', late, 'bob');
      const open = await cases();
      expect(open.map((c) => c.ref_code)).toEqual(['ann']);
      expect(open[0]?.evidence).toEqual([
        { at: expect.any(String), detail: `The mailbox ${own}, attributed to the affiliate, was made from the network the affiliate signed in to the portal from 2 days earlier`, order_id: 'o-1', click_at: expect.any(String) },
      ]);
      // nobody is shown an address
      const all = JSON.stringify(await cases());
      expect(all).not.toContain('203.0.113');
      expect(all).not.toContain('198.51.100');
    });

    it('counts a sign-in exactly 30 days before the mailbox was made, not 30 days and a second', async () => {
      await affiliate('ann', 'ann@example.com');
      await affiliate('bob', 'bob@example.net');
      expect((await from('203.0.113.7', 'POST', '/portal/api/accept-invite', { token: await inviteToken(t, 'ann'), password: PORTAL_PASSWORD })).statusCode).toBe(200);
      t.clock.advance(1000);
      expect((await from('198.51.100.2', 'POST', '/portal/api/accept-invite', { token: await inviteToken(t, 'bob'), password: PORTAL_PASSWORD })).statusCode).toBe(200);
      t.clock.advance(30 * DAY - 1000);
      const annMailbox = (await from('203.0.113.7', 'POST', '/mailboxes', { ref: 'ann' })).json().mailbox.address;
      t.clock.advance(2000);
      const bobMailbox = (await from('198.51.100.2', 'POST', '/mailboxes', { ref: 'bob' })).json().mailbox.address;
      await order('o-1', annMailbox, 'ann');
      await order('o-2', bobMailbox, 'bob');
      expect((await cases()).map((c) => [c.ref_code, c.evidence[0]?.detail.endsWith('30 days earlier')])).toEqual([['ann', true]]);
    });

    it('off opens nothing; flag opens a case and holds nothing', async () => {
      await affiliate('ann', 'ann@example.com');
      await setRules({ fraud_rules: { self_referral: 'off' } });
      await order('o-1', 'ann@example.com', 'ann');
      expect(await cases()).toEqual([]);
      await setRules({ fraud_rules: { self_referral: 'flag' } });
      const paid = await order('o-2', 'ann@example.com', 'ann');
      const [c] = await cases();
      expect(c).toMatchObject({ signal: 'self_referral', action: 'flag', held: { count: 0, amount: 0, currency: 'USD' } });
      expect(paid.commission.hold).toBeNull();
      expect((await t.api('POST', `/api/commissions/${paid.commission.id}/approve`)).statusCode).toBe(200);
      // a second finding adds evidence to the open case, no second case
      await order('o-3', 'ann@example.com', 'ann');
      const [same] = await cases();
      expect(same?.id).toBe(c?.id);
      expect(same?.evidence.map((e) => e.order_id)).toEqual(['o-2', 'o-3']);
    });
  });

  describe('found by an attack (helper review)', () => {
    it('an order whose email arrives after its payment (Paddle) is checked then, and its commission held', async () => {
      await affiliate('pat', 'pat@pat.example');
      const { orders } = t.service.ctx.services;
      await orders.create({ orderId: 'late-1', email: '', amountCents: 10_000, product: 'p', refCode: 'pat' });
      const paid = await orders.pay('late-1');
      expect(paid.commission?.hold_case_id).toBeNull();
      expect(await orders.fillUnknownEmail('late-1', 'pat+paddle@pat.example')).toBe(true);
      const [c] = await cases();
      expect(c).toMatchObject({ ref_code: 'pat', signal: 'self_referral', action: 'hold', held: { count: 1, amount: 10, currency: 'USD' } });
      expect((await commission(paid.commission?.id as string)).hold).toEqual({ case_id: c?.id, signal: 'self_referral' });
    });

    it('a rule switched from flag to hold makes its open case hold from the next finding on', async () => {
      await affiliate('carl', 'carl@carl.example');
      await setRules({ fraud_rules: { self_referral: 'flag' } });
      const first = await order('c-1', 'carl@carl.example', 'carl');
      await setRules({ fraud_rules: { self_referral: 'hold' } });
      const second = await order('c-2', 'carl@carl.example', 'carl');
      const [c] = await cases();
      expect(c).toMatchObject({ action: 'hold', held: { count: 2 } });
      expect(c?.evidence.map((e) => e.order_id)).toEqual(['c-1', 'c-2']);
      for (const id of [first.commission.id, second.commission.id]) expect((await commission(id)).hold).toEqual({ case_id: c?.id, signal: 'self_referral' });
      expect((await t.api('POST', `/api/commissions/${second.commission.id}/approve`)).json().error.code).toBe('on_hold');
    });

    it('a withdrawal requested before the case opened is not paid while it is open, alone or in a batch', async () => {
      await affiliate('fay', 'fay@fay.example');
      await t.api('PATCH', '/api/affiliates/fay', { payout_details: { method: 'paypal', email: 'fay.pay@pay.example' } });
      const earned = await order('f-1', 'buyer@customer.test', 'fay');
      await t.api('POST', `/api/commissions/${earned.commission.id}/mark-paid`);
      const w1 = (await t.api('POST', '/api/withdrawals', { ref_code: 'fay', amount: 4 })).json().withdrawal;
      const w2 = (await t.api('POST', '/api/withdrawals', { ref_code: 'fay', amount: 5 })).json().withdrawal;
      const batch = await t.api('POST', '/api/payout-batches', { method: 'paypal' });
      expect(batch.statusCode, batch.body).toBe(201);
      await order('f-2', 'fay@fay.example', 'fay');
      const alone = await t.api('POST', `/api/withdrawals/${w1.id}/mark-paid`);
      expect(alone.statusCode).toBe(409);
      expect(alone.json().error.code).toBe('on_hold');
      const paidBatch = await t.api('POST', `/api/payout-batches/${batch.json().batch.id}/mark-paid`);
      expect(paidBatch.statusCode).toBe(409);
      expect(paidBatch.json().error.code).toBe('on_hold');
      for (const w of [w1, w2]) expect((await t.api('GET', `/api/withdrawals/${w.id}`)).json().withdrawal.status).toBe('requested');
      expect((await t.api('POST', `/api/withdrawals/${w2.id}/reject`)).statusCode).toBe(200);
      const [c] = await cases();
      await t.api('POST', `/api/fraud/cases/${c?.id}/release`, { note: 'checked \u202eevil\u200b\nsecond line' });
      expect((await t.api('GET', `/api/fraud/cases/${c?.id}`)).json().case.note).toBe('checked evil\nsecond line');
      expect((await t.api('POST', `/api/withdrawals/${w1.id}/mark-paid`)).statusCode).toBe(200);
    });

    it('payout details saved after another affiliate\'s: the one who saved them is held, the other only flagged; a requested withdrawal\'s copy counts', async () => {
      for (const ref of ['ann', 'dan', 'f1', 'f2']) await affiliate(ref);
      await t.api('PATCH', '/api/affiliates/ann', { payout_details: { method: 'paypal', email: 'ann.pay@gmail.com' } });
      await t.api('PATCH', '/api/affiliates/dan', { payout_details: { method: 'paypal', email: 'ANN.PAY+x@googlemail.com' } });
      expect((await cases()).map((c) => [c.ref_code, c.action]).sort()).toEqual([
        ['ann', 'flag'],
        ['dan', 'hold'],
      ]);
      // f1 requests a withdrawal to an address, then changes its details; f2 takes the address
      await t.api('PATCH', '/api/affiliates/f1', { payout_details: { method: 'paypal', email: 'shared.payee@pay.example' } });
      const earned = await order('f1-1', 'buyer@customer.test', 'f1');
      await t.api('POST', `/api/commissions/${earned.commission.id}/mark-paid`);
      expect((await t.api('POST', '/api/withdrawals', { ref_code: 'f1', amount: 5 })).statusCode).toBe(201);
      await t.api('PATCH', '/api/affiliates/f1', { payout_details: { method: 'paypal', email: 'other.f1@pay.example' } });
      await t.api('PATCH', '/api/affiliates/f2', { payout_details: { method: 'paypal', email: 'shared.payee@pay.example' } });
      expect((await cases('?ref_code=f2')).map((c) => [c.action, c.evidence[0]?.detail])).toEqual([['hold', 'Payout details are also the payout email of affiliate f1']]);
    });
  });

  describe('duplicate_payout', () => {
    const details = (ref: string, d: Record<string, unknown>) => t.api('PATCH', `/api/affiliates/${ref}`, { payout_details: d });

    it('holds the affiliate who saved a PayPal email another has (case and spaces ignored) and flags the other; a different one is nothing', async () => {
      await affiliate('ann');
      await affiliate('bob');
      await affiliate('cat');
      expect((await details('ann', { method: 'paypal', email: 'cash@pay.example' })).statusCode).toBe(200);
      expect((await details('cat', { method: 'paypal', email: 'cash2@pay.example' })).statusCode).toBe(200);
      expect(await cases()).toEqual([]);
      expect((await details('bob', { method: 'paypal', email: 'CASH@pay.example' })).statusCode).toBe(200);
      const open = await cases();
      expect(open.map((c) => [c.ref_code, c.signal, c.action]).sort()).toEqual([
        ['ann', 'duplicate_payout', 'flag'],
        ['bob', 'duplicate_payout', 'hold'],
      ]);
      expect(open.find((c) => c.ref_code === 'bob')?.evidence[0]?.detail).toBe('Payout details are also the payout email of affiliate ann');
      expect(open.find((c) => c.ref_code === 'ann')?.evidence[0]?.detail).toBe('Payout details are also the payout email of affiliate bob, who set them later');
    });

    it('off opens nothing; flag opens cases that hold nothing', async () => {
      await affiliate('ann');
      await affiliate('bob');
      const pending = await order('o-1', 'buyer@customer.test', 'ann');
      await setRules({ fraud_rules: { duplicate_payout: 'off' } });
      await details('ann', { method: 'wise', email: 'same@pay.example' });
      await details('bob', { method: 'paypal', email: 'same@pay.example' });
      expect(await cases()).toEqual([]);
      await setRules({ fraud_rules: { duplicate_payout: 'flag' } });
      await details('bob', { method: 'paypal', email: ' Same@Pay.example ' });
      expect((await cases()).map((c) => [c.ref_code, c.action]).sort()).toEqual([
        ['ann', 'flag'],
        ['bob', 'flag'],
      ]);
      expect((await commission(pending.commission.id)).hold).toBeNull();
    });

    it('compares IBANs without spaces', async () => {
      await affiliate('ann');
      await affiliate('bob');
      const sepa = (iban: string) => ({ method: 'sepa', iban, account_holder: 'A Person' });
      expect((await details('ann', sepa('DE89370400440532013000'))).statusCode).toBe(200);
      expect((await details('bob', sepa('DE89 3704 0044 0532 0130 00'))).statusCode).toBe(200);
      expect((await cases('?ref_code=bob')).map((c) => c.evidence[0]?.detail)).toEqual(['Payout details are also the IBAN of affiliate ann']);
    });
  });

  describe('click_burst', () => {
    it('counts at most fraud_click_burst clicks per link and /24 in 10 minutes and flags the burst once', async () => {
      await affiliate('ann');
      await setRules({ fraud_click_burst: 5 });
      for (let i = 0; i < 5; i++) expect((await from(`203.0.113.${i + 1}`, 'GET', '/go/ann')).statusCode).toBe(302);
      expect(await cases()).toEqual([]);
      for (let i = 0; i < 4; i++) expect((await from(`203.0.113.${i + 50}`, 'GET', '/go/ann')).statusCode).toBe(302);
      // another network and another affiliate's link are not limited by it
      await affiliate('bob');
      await from('198.51.100.1', 'GET', '/go/ann');
      await from('203.0.113.1', 'GET', '/go/bob');
      const summary = (await t.api('GET', '/api/affiliate/summary')).json().summary as { ref_code: string; clicks: number }[];
      expect(summary.find((s) => s.ref_code === 'ann')?.clicks).toBe(6);
      expect(summary.find((s) => s.ref_code === 'bob')?.clicks).toBe(1);
      const open = await waitForCases(1);
      expect(open[0]).toMatchObject({ ref_code: 'ann', signal: 'click_burst', action: 'flag' });
      expect(open[0]?.evidence.map((e) => e.detail)).toEqual(['More than 5 clicks within 10 minutes from the network 203.0.113.0/24; the clicks past 5 were not counted']);
      // 10 minutes later the network counts again
      t.clock.advance(10 * 60_000 + 1);
      await from('203.0.113.9', 'GET', '/go/ann');
      expect(((await t.api('GET', '/api/affiliate/summary')).json().summary as { ref_code: string; clicks: number }[]).find((s) => s.ref_code === 'ann')?.clicks).toBe(7);
    });

    it('off counts every click; hold holds the affiliate\'s pending commissions', async () => {
      await affiliate('ann');
      await setRules({ fraud_click_burst: 2, fraud_rules: { click_burst: 'off' } });
      for (let i = 0; i < 4; i++) await from('203.0.113.1', 'GET', '/go/ann');
      expect((await t.api('GET', '/api/affiliate/summary?ref_code=ann')).json().summary[0].clicks).toBe(4);
      const pending = await order('o-1', 'buyer@customer.test', 'ann');
      await setRules({ fraud_rules: { click_burst: 'hold' } });
      for (let i = 0; i < 3; i++) await from('203.0.113.1', 'GET', '/go/ann');
      const [c] = await waitForCases(1);
      expect(c).toMatchObject({ signal: 'click_burst', action: 'hold', held: { count: 1, amount: 10, currency: 'USD' } });
      expect((await commission(pending.commission.id)).hold).toEqual({ case_id: c?.id, signal: 'click_burst' });
    });
  });

  describe('refund_rate', () => {
    it('flags at least 5 orders in 30 days with more than 30 % of their amount refunded, not 30 % exactly', async () => {
      await affiliate('ann');
      for (let i = 1; i <= 5; i++) await order(`o-${i}`, `c${i}@customer.test`, 'ann', 100);
      // 150 of 500 is 30 %: not more
      await t.api('POST', '/api/orders/refund', { order_id: 'o-1', amount: 100 });
      await t.api('POST', '/api/orders/refund', { order_id: 'o-2', amount: 50 });
      expect(await cases()).toEqual([]);
      await t.api('POST', '/api/orders/refund', { order_id: 'o-3', amount: 1 });
      const [c] = await cases();
      expect(c).toMatchObject({ ref_code: 'ann', signal: 'refund_rate', action: 'flag' });
      expect(c?.evidence[0]).toMatchObject({ detail: '30 % refunded over the last 30 days: 151 USD of 500 USD on 5 orders', order_id: 'o-3' });
    });

    it('off opens nothing; hold holds the affiliate\'s pending commissions', async () => {
      await affiliate('ann');
      await setRules({ fraud_rules: { refund_rate: 'off' } });
      for (let i = 1; i <= 6; i++) await order(`o-${i}`, `c${i}@customer.test`, 'ann', 100);
      await t.api('POST', '/api/orders/refund', { order_id: 'o-1' });
      await t.api('POST', '/api/orders/refund', { order_id: 'o-2' });
      expect(await cases()).toEqual([]);
      await setRules({ fraud_rules: { refund_rate: 'hold' } });
      await t.api('POST', '/api/orders/refund', { order_id: 'o-3', amount: 10 });
      const [c] = await cases();
      expect(c).toMatchObject({ signal: 'refund_rate', action: 'hold', held: { count: 4, amount: 39, currency: 'USD' } });
    });

    it('needs 5 orders: 4 fully refunded open nothing', async () => {
      await affiliate('ann');
      for (let i = 1; i <= 4; i++) {
        await order(`o-${i}`, `c${i}@customer.test`, 'ann', 100);
        await t.api('POST', '/api/orders/refund', { order_id: `o-${i}` });
      }
      expect(await cases()).toEqual([]);
    });
  });

  describe('two instances', () => {
    it('a release racing an approval: the hold wins or the release does, never both; a release racing a rejection: one of them', async () => {
      const other = await t.sibling();
      try {
        await affiliate('ann', 'ann@example.com');
        for (let round = 0; round < 6; round++) {
          const paid = await order(`race-${round}`, 'ann@example.com', 'ann');
          const open = await cases('?status=open');
          expect(open).toHaveLength(1);
          const id = open[0]?.id as string;
          const [release, approve] = await Promise.all([
            (round % 2 ? other : t).api('POST', `/api/fraud/cases/${id}/release`),
            (round % 2 ? t : other).api('POST', `/api/commissions/${paid.commission.id}/approve`),
          ]);
          expect(release.statusCode, release.body).toBe(200);
          const after = await commission(paid.commission.id);
          if (approve.statusCode === 200) {
            // the release came first: approved, and held by nothing
            expect(after).toMatchObject({ status: 'approved', hold: null });
          } else {
            expect(approve.json().error.code).toBe('on_hold');
            expect(after).toMatchObject({ status: 'pending', hold: null });
          }
        }
        const paid = await order('race-x', 'ann@example.com', 'ann');
        const id = (await cases('?status=open'))[0]?.id as string;
        const [release, reject] = await Promise.all([t.api('POST', `/api/fraud/cases/${id}/release`), other.api('POST', `/api/fraud/cases/${id}/reject`)]);
        expect([release.statusCode, reject.statusCode].sort()).toEqual([200, 409]);
        const status = (await t.api('GET', `/api/fraud/cases/${id}`)).json().case.status;
        expect((await commission(paid.commission.id)).status).toBe(status === 'released' ? 'pending' : 'void');
      } finally {
        await other.close();
      }
    });

    it('a case opening while a pending commission is approved: it is approved or held, never approved while held', async () => {
      const other = await t.sibling();
      try {
        await affiliate('ann', 'ann@example.com');
        for (let round = 0; round < 6; round++) {
          const pending = await order(`p-${round}`, `buyer${round}@customer.test`, 'ann');
          await t.api('POST', '/api/orders', { order_id: `s-${round}`, email: 'ann@example.com', amount: 100, product: 'p', ref_code: 'ann' });
          const [, approve] = await Promise.all([
            (round % 2 ? other : t).api('POST', '/api/orders/pay', { order_id: `s-${round}` }),
            (round % 2 ? t : other).api('POST', `/api/commissions/${pending.commission.id}/approve`),
          ]);
          const after = await commission(pending.commission.id);
          if (approve.statusCode === 200) expect(after).toMatchObject({ status: 'approved', hold: null });
          else {
            expect(approve.json().error.code).toBe('on_hold');
            expect(after.status).toBe('pending');
            expect(after.hold).not.toBeNull();
          }
          const [c] = await cases('?status=open');
          const held = (await t.api('GET', '/api/commissions?ref_code=ann&status=pending')).json().items.filter((x: { hold: unknown }) => x.hold !== null);
          expect(c?.held.count).toBe(held.length);
          expect((await t.api('POST', `/api/fraud/cases/${c?.id}/release`)).statusCode).toBe(200);
        }
      } finally {
        await other.close();
      }
    });
  });

  describe('the review API', () => {
    it('filters, pages and refuses what it does not know', async () => {
      await affiliate('ann', 'ann@example.com');
      await affiliate('bob', 'bob@example.net');
      await order('o-1', 'ann@example.com', 'ann');
      t.clock.advance(1000);
      await order('o-2', 'bob@example.net', 'bob');
      expect((await cases('?ref_code=bob')).map((c) => c.ref_code)).toEqual(['bob']);
      expect((await cases('?signal=refund_rate'))).toEqual([]);
      const first = await t.api('GET', '/admin/api/fraud/cases?limit=1'.replace('/admin', ''));
      expect(first.json().items.map((c: CaseJson) => c.ref_code)).toEqual(['bob']);
      const second = await t.api('GET', `/api/fraud/cases?limit=1&cursor=${first.json().next_cursor}`);
      expect(second.json().items.map((c: CaseJson) => c.ref_code)).toEqual(['ann']);
      expect(second.json().next_cursor).toBeNull();
      for (const q of ['?status=closed', '?signal=vpn', '?ref_code=a%20b', '?cursor=nope']) {
        const res = await t.api('GET', `/api/fraud/cases${q}`);
        expect(res.statusCode, q).toBe(400);
        expect(res.json().error.code).toBe('invalid_request');
      }
      const missing = await t.api('GET', '/api/fraud/cases/fc_nope');
      expect(missing.statusCode).toBe(404);
      expect(missing.json().error.code).toBe('fraud_case_not_found');
      expect((await t.api('POST', '/api/fraud/cases/fc_nope/release')).statusCode).toBe(404);
      expect((await t.api('POST', `/api/fraud/cases/${second.json().items[0].id}/release`, { note: 'x'.repeat(2001) })).statusCode).toBe(400);
      expect((await t.request('GET', '/api/fraud/cases')).statusCode).toBe(401);
    });
  });

  /** The cases once those that clicks began to open (after their answer, in a transaction of their own) are written. */
  async function waitForCases(n: number): Promise<CaseJson[]> {
    await t.service.ctx.services.fraud.settled();
    const found = await cases();
    expect(found).toHaveLength(n);
    return found;
  }
});

interface CaseJson {
  id: string;
  ref_code: string;
  signal: string;
  action: string;
  status: string;
  evidence: { at: string; detail: string; order_id?: string; click_at?: string }[];
  held: { count: number; amount: number; currency: string };
  resolved_at: string | null;
  note: string | null;
}
