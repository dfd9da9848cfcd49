import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn, eventsOfType } from '../helpers/ledger-fixtures.js';
import { cookieOf, inviteToken, PORTAL_PASSWORD, type PortalClient, portalClient, portalLogin, portalSignIn } from '../helpers/portal.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WINDOW_MS = 15 * 60 * 1000;
let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter % 250}`;

describeEachDatabase('affiliate portal (docs/api.md#affiliate-portal)', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => t.clock.advance(WINDOW_MS + 1));

  it('invitation: single use, 72 h, token stored hashed; accepting sets the password and signs in with its own cookie', async () => {
    await addAffiliate(t, 'inv1');
    const admin = await t.admin();
    const res = await admin.call('POST', '/admin/api/affiliates/inv1/invite');
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body).toEqual({ success: true, invite_url: expect.stringMatching(/^http:\/\/svc\.test\.local\/portal\/accept#token=[\w-]{40,}$/), expires_at: new Date(t.clock.now() + 72 * 3600_000).toISOString(), mail: 'not_configured' });
    const token = body.invite_url.split('#token=')[1];
    const stored = await t.service.ctx.db.selectFrom('affiliate_invites').selectAll().where('ref_code', '=', 'inv1').execute();
    expect(stored).toHaveLength(1);
    expect(stored[0]?.token_hash).not.toContain(token);

    expect((await admin.call('POST', '/admin/api/affiliates/nobody/invite')).json().error.code).toBe('affiliate_not_found');
    // too short a password: 400, and the invitation is still usable
    const short = await t.request('POST', '/portal/api/accept-invite', { token, password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json().error.details).toEqual([{ field: 'password', message: expect.stringContaining('10') }]);

    const accepted = await t.request('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD });
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toEqual({ success: true, csrf_token: expect.any(String), ref_code: 'inv1' });
    const cookie = cookieOf(accepted, 'svc_portal') ?? '';
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Strict/);
    expect(cookie).toMatch(/Path=\/portal/);
    expect(cookie).not.toMatch(/Secure/); // the base URL is http
    expect(cookieOf(accepted, 'svc_session')).toBeUndefined();

    const again = await t.request('POST', '/portal/api/accept-invite', { token, password: 'another-password' });
    expect(again.statusCode).toBe(400);
    expect(again.json().error.details).toEqual([{ field: 'token', message: expect.any(String) }]);

    // an invitation expires after 72 hours
    const late = await inviteToken(t, 'inv1');
    t.clock.advance(72 * 3600_000 + 1);
    expect((await t.request('POST', '/portal/api/accept-invite', { token: late, password: 'another-password' })).statusCode).toBe(400);
    expect((await portalLogin(t, 'inv1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(200);
  });

  it('Secure cookie when the base URL is https', async () => {
    const s = await startTestService(dialect, { env: { SVC_BASE_URL: 'https://svc.test.local' } });
    try {
      await addAffiliate(s, 'sec1');
      const token = await inviteToken(s, 'sec1');
      const res = await s.request('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD });
      expect(cookieOf(res, 'svc_portal')).toMatch(/; Secure/);
    } finally {
      await s.close();
    }
  });

  it('me, PATCH me, the link and the rate that applies', async () => {
    await addAffiliate(t, 'me1', { rateBp: 1250 });
    await addAffiliate(t, 'me2');
    const a = await portalSignIn(t, 'me1');
    const b = await portalSignIn(t, 'me2');
    expect((await a.call('GET', '/portal/api/me')).json()).toEqual({
      success: true,
      affiliate: { ref_code: 'me1', name: null, email: null, email_confirmed: false, status: 'active', commission_rate: 12.5, link: 'http://svc.test.local/go/me1', payout_details: { method: 'other', note: 'paid by hand' }, currency: 'USD', notify: { commissions: true, payouts: true }, mail_configured: false },
    });
    expect((await b.call('GET', '/portal/api/me')).json().affiliate.commission_rate).toBe(10);
    const patched = await a.call('PATCH', '/portal/api/me', { name: ' Ann ', payout_details: { method: 'other', note: 'IBAN DE00 1234' }, current_password: PORTAL_PASSWORD });
    // docs/api.md#payouts: structured details (free text is no longer accepted, and older text reads as an `other` note)
    expect(patched.json().affiliate).toMatchObject({ name: 'Ann', payout_details: { method: 'other', note: 'IBAN DE00 1234' } });
    const long = await a.call('PATCH', '/portal/api/me', { payout_details: 'x'.repeat(501) });
    expect(long.statusCode).toBe(400);
    expect(long.json().error.details[0].field).toBe('payout_details');
    expect((await a.call('PATCH', '/portal/api/me', { ref_code: 'me2' })).statusCode).toBe(400);
    // the admin sees the payout details
    const admin = await t.admin();
    expect((await admin.call('GET', '/admin/api/payout-details?ref_codes=me1,me2,zz')).json()).toEqual({ success: true, payout_details: { me1: 'IBAN DE00 1234', me2: 'paid by hand' } });
  });

  it('summary with the per-day series, lists and a withdrawal with the §6 rules', async () => {
    await addAffiliate(t, 'sum1');
    await addMailbox(t, 'buyer1@svc.test', 'sum1');
    const day = new Date(t.clock.now()).toISOString().slice(0, 10);
    await earn(t, `o-sum1-${dialect}`, 'buyer1@svc.test', 200);
    const a = await portalSignIn(t, 'sum1');
    const summary = (await a.call('GET', `/portal/api/summary?from=${day}&to=${day}`)).json();
    expect(summary.summary).toMatchObject({ ref_code: 'sum1', mailboxes: 1, orders: 1, commission: { paid: 20, total: 20 }, balance: 20 });
    expect(summary.days).toEqual([{ day, clicks: 0, mailboxes: 1, orders: 1, commission: 20 }]);
    expect((await a.call('GET', '/portal/api/summary?from=2026-02-30')).statusCode).toBe(400);

    const over = await a.call('POST', '/portal/api/withdrawals', { amount: 20.01 });
    expect(over.statusCode).toBe(422);
    expect(over.json()).toEqual({ success: false, error: { code: 'insufficient_balance', message: expect.any(String), details: { available: 20 } } });
    const first = await a.call('POST', '/portal/api/withdrawals', { amount: 15 }, { 'idempotency-key': 'k-1' });
    expect(first.statusCode).toBe(201);
    expect(first.json().withdrawal).toMatchObject({ ref_code: 'sum1', amount: 15, status: 'requested' });
    const replay = await a.call('POST', '/portal/api/withdrawals', { amount: 15 }, { 'idempotency-key': 'k-1' });
    expect(replay.statusCode).toBe(201);
    expect(replay.json()).toEqual(first.json());
    expect((await a.call('POST', '/portal/api/withdrawals', { amount: 1 }, { 'idempotency-key': 'k-1' })).json().error.code).toBe('idempotency_conflict');
    const events = await eventsOfType(t, 'withdrawal.requested');
    expect(events.filter((e) => JSON.stringify(e.data).includes('"sum1"'))).toHaveLength(1);

    const withdrawals = (await a.call('GET', '/portal/api/withdrawals')).json();
    expect(withdrawals).toEqual({ success: true, items: [first.json().withdrawal], next_cursor: null });
    const commissions = (await a.call('GET', '/portal/api/commissions?limit=1')).json();
    expect(commissions.items).toHaveLength(1);
    expect(commissions.items[0]).toMatchObject({ ref_code: 'sum1', commission: 20, status: 'paid' });
    expect(commissions.next_cursor).toBeNull();
    expect((await a.call('GET', '/portal/api/me')).json().affiliate.ref_code).toBe('sum1');
    expect((await a.call('GET', '/portal/api/summary')).json().summary.balance).toBe(5);
  });

  it('CSRF on every mutation, logout, password change', async () => {
    await addAffiliate(t, 'csrf1');
    const a = await portalSignIn(t, 'csrf1');
    const noCsrf = await t.request('PATCH', '/portal/api/me', { name: 'x' }, { cookie: a.cookie });
    expect(noCsrf.statusCode).toBe(403);
    expect(noCsrf.json().error.code).toBe('csrf_failed');
    expect((await t.request('POST', '/portal/api/withdrawals', { amount: 1 }, { cookie: a.cookie, 'x-csrf-token': 'wrong' })).json().error.code).toBe('csrf_failed');
    expect((await t.request('POST', '/portal/api/logout', undefined, { cookie: a.cookie })).statusCode).toBe(403);
    expect((await t.request('GET', '/portal/api/me')).statusCode).toBe(401);

    const wrong = await a.call('POST', '/portal/api/password', { current_password: 'not-it-at-all', new_password: 'brand-new-password' });
    expect(wrong.statusCode).toBe(400);
    expect(wrong.json().error.details).toEqual([{ field: 'current_password', message: expect.any(String) }]);
    const other = portalClient(t, 'csrf1', await portalLogin(t, 'csrf1', PORTAL_PASSWORD, freshIp()));
    expect((await a.call('POST', '/portal/api/password', { current_password: PORTAL_PASSWORD, new_password: 'brand-new-password' })).json()).toEqual({ success: true });
    expect((await other.call('GET', '/portal/api/me')).statusCode).toBe(401); // other sessions end
    expect((await a.call('GET', '/portal/api/me')).statusCode).toBe(200);
    expect((await portalLogin(t, 'csrf1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(401);
    expect((await portalLogin(t, 'csrf1', 'brand-new-password', freshIp())).statusCode).toBe(200);

    const out = await a.call('POST', '/portal/api/logout');
    expect(out.json()).toEqual({ success: true });
    expect((await a.call('GET', '/portal/api/me')).statusCode).toBe(401);
  });

  it('login throttling: 50 parallel wrong passwords get exactly 5 × 401, then 429', async () => {
    await addAffiliate(t, 'thr1');
    await portalSignIn(t, 'thr1');
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 50 }, (_, i) => portalLogin(t, 'thr1', `wrong-${i}-password`, ip)));
    expect(answers.filter((r) => r.statusCode === 401)).toHaveLength(5);
    const limited = answers.filter((r) => r.statusCode === 429);
    expect(limited).toHaveLength(45);
    expect(limited[0]?.json().error.code).toBe('rate_limited');
    expect(Number(limited[0]?.headers['retry-after'])).toBeGreaterThan(0);
    // per account too: from another address, the right password is still refused
    expect((await portalLogin(t, 'thr1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(429);
    // the admin's throttle is another scope
    expect((await t.admin()).csrf).toEqual(expect.any(String));
  });

  it('password change is throttled too: 5 wrong current passwords, then 429', async () => {
    await addAffiliate(t, 'thr2');
    const a = await portalSignIn(t, 'thr2');
    const ip = freshIp();
    const call = (current: string) =>
      t.service.app.inject({
        method: 'POST',
        url: '/portal/api/password',
        payload: { current_password: current, new_password: 'brand-new-password' },
        headers: { cookie: a.cookie, 'x-csrf-token': a.csrf },
        remoteAddress: ip,
      });
    const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => call(`wrong-${i}-password`)));
    expect(answers.filter((r) => r.statusCode === 400)).toHaveLength(5);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(15);
    expect((await call(PORTAL_PASSWORD)).statusCode).toBe(429);
  });

  it('parallel withdrawal requests never exceed the balance', async () => {
    await addAffiliate(t, 'par1');
    await addMailbox(t, 'buyer-par1@svc.test', 'par1');
    await earn(t, `o-par1-${dialect}`, 'buyer-par1@svc.test', 100); // commission 10.00
    const a = await portalSignIn(t, 'par1');
    const answers = await Promise.all(Array.from({ length: 25 }, () => a.call('POST', '/portal/api/withdrawals', { amount: 1 })));
    expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(10);
    const refused = answers.filter((r) => r.statusCode === 422);
    expect(refused).toHaveLength(15);
    expect(refused[0]?.json().error.details).toEqual({ available: 0 });
    expect((await a.call('GET', '/portal/api/summary')).json().summary.balance).toBe(0);
  });

  it('disabling an affiliate ends its sessions at once; it cannot sign in', async () => {
    await addAffiliate(t, 'dis1');
    const a = await portalSignIn(t, 'dis1');
    expect((await a.call('GET', '/portal/api/me')).statusCode).toBe(200);
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/affiliates/dis1', { status: 'disabled' });
    const after = await a.call('GET', '/portal/api/me');
    expect(after.statusCode).toBe(401);
    expect(after.json().error.code).toBe('unauthorized');
    expect(await t.service.ctx.db.selectFrom('affiliate_sessions').selectAll().where('ref_code', '=', 'dis1').execute()).toEqual([]);
    expect((await portalLogin(t, 'dis1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(401);
    // an invitation of a disabled affiliate is refused and kept for later
    const token = await inviteToken(t, 'dis1');
    expect((await t.request('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD })).statusCode).toBe(401);
    await admin.call('PATCH', '/admin/api/affiliates/dis1', { status: 'active' });
    expect((await t.request('POST', '/portal/api/accept-invite', { token, password: PORTAL_PASSWORD })).statusCode).toBe(200);
    expect((await a.call('GET', '/portal/api/me')).statusCode).toBe(401); // ended, not suspended
    expect((await portalLogin(t, 'dis1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(200);
    // 10 parallel acceptances of one invitation: exactly one signs in
    const once = await inviteToken(t, 'dis1');
    const answers = await Promise.all(Array.from({ length: 10 }, () => t.request('POST', '/portal/api/accept-invite', { token: once, password: PORTAL_PASSWORD })));
    expect(answers.map((r) => r.statusCode).sort()).toEqual([200, ...Array(9).fill(400)]);
  });

  it('sign-up: closed (403), review (pending: no attribution, no sign-in until approved), open (active, signed in)', async () => {
    const admin = await t.admin();
    const form = (ref: string) => ({ ref_code: ref, name: 'Sam', email: `${ref}@example.com`, password: PORTAL_PASSWORD });
    const closed = await t.request('POST', '/portal/api/signup', form('su1'));
    expect(closed.statusCode).toBe(403);
    expect(closed.json().error.code).toBe('signup_closed');
    expect((await admin.call('GET', '/admin/api/settings')).json().settings.affiliate_signup).toBe('closed');
    expect((await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'maybe' })).statusCode).toBe(400);

    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'review' });
    const review = await t.request('POST', '/portal/api/signup', form('su2'));
    expect(review.statusCode).toBe(201);
    expect(review.json()).toMatchObject({ success: true, affiliate: { ref_code: 'su2', name: 'Sam', email: 'su2@example.com', status: 'pending' }, csrf_token: null });
    expect(cookieOf(review, 'svc_portal')).toBeUndefined();
    expect((await t.request('POST', '/portal/api/signup', form('su2'))).json().error.code).toBe('affiliate_exists');
    const pendingLogin = await portalLogin(t, 'su2', PORTAL_PASSWORD, freshIp());
    expect(pendingLogin.statusCode).toBe(401);
    expect(pendingLogin.json().error.message).toMatch(/approval/);
    const mb = await t.api('POST', '/api/mailboxes', { ref_code: 'su2' });
    expect(mb.json().mailbox.ref_code).toBeNull();
    expect((await admin.call('GET', '/admin/api/affiliates/su2')).json().affiliate.status).toBe('pending');
    expect((await admin.call('PATCH', '/admin/api/affiliates/su2', { status: 'active' })).json().affiliate.status).toBe('active');
    expect((await portalLogin(t, 'su2', PORTAL_PASSWORD, freshIp())).statusCode).toBe(200);

    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
    const open = await t.request('POST', '/portal/api/signup', form('su3'));
    expect(open.statusCode).toBe(201);
    expect(open.json().affiliate.status).toBe('active');
    const c = portalClient(t, 'su3', open);
    expect((await c.call('GET', '/portal/api/me')).json().affiliate.ref_code).toBe('su3');
    const bad = await t.request('POST', '/portal/api/signup', { ref_code: 'bad code', name: '', email: 'x', password: 'short' });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().error.details.map((d: { field: string }) => d.field).sort()).toEqual(['email', 'name', 'password', 'ref_code']);
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
  });

  it('sign-up is throttled per client IP before any password is hashed: 20 parallel from one address get 5 × 201 and 15 × 429', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
    const signup = (ref: string, remoteAddress: string) =>
      t.service.app.inject({ method: 'POST', url: '/portal/api/signup', payload: { ref_code: ref, name: 'Bot', email: `${ref}@example.com`, password: PORTAL_PASSWORD }, remoteAddress });
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 20 }, (_v, i) => signup(`flood${i}`, ip)));
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes).toEqual([...Array(5).fill(201), ...Array(15).fill(429)]);
    const refused = answers.find((r) => r.statusCode === 429)!;
    expect(refused.json().error.code).toBe('rate_limited');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    const created = answers.filter((r) => r.statusCode === 201).map((r) => r.json().affiliate.ref_code as string);
    for (const ref of created) expect((await admin.call('GET', `/admin/api/affiliates/${ref}`)).statusCode).toBe(200);
    // another address is not held back
    expect((await signup('flood-other', freshIp())).statusCode).toBe(201);
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
  });

  it('sign-up is one transaction: when storing the password fails, no affiliate and no affiliate.created remain, and the ref_code stays free', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
    const db = t.service.ctx.db;
    // a real failure of the credentials' INSERT, raised by the database itself (no mock): a trigger for one ref_code
    if (dialect === 'sqlite') {
      await sql`create trigger fail_signup_account before insert on affiliate_accounts when new.ref_code = 'atomic1' begin select raise(abort, 'forced failure of the credentials insert'); end`.execute(db);
    } else {
      await sql`create function fail_signup_account() returns trigger language plpgsql as $$ begin if new.ref_code = 'atomic1' then raise exception 'forced failure of the credentials insert'; end if; return new; end $$`.execute(db);
      await sql`create trigger fail_signup_account before insert on affiliate_accounts for each row execute function fail_signup_account()`.execute(db);
    }
    const signup = (ref: string) =>
      t.service.app.inject({ method: 'POST', url: '/portal/api/signup', payload: { ref_code: ref, name: 'Ada', email: `${ref}@example.com`, password: PORTAL_PASSWORD }, remoteAddress: freshIp() });
    const createdEventsOf = async (ref: string) => (await eventsOfType(t, 'affiliate.created')).filter((e) => (e.data as { ref_code?: string }).ref_code === ref);

    const failed = await signup('atomic1');
    expect(failed.statusCode).toBe(500);
    expect(failed.json().error.message).not.toMatch(/forced failure/); // a 5xx never leaks its cause
    expect(await db.selectFrom('affiliates').select('ref_code').where('ref_code', '=', 'atomic1').executeTakeFirst()).toBeUndefined();
    expect(await db.selectFrom('affiliate_accounts').select('ref_code').where('ref_code', '=', 'atomic1').executeTakeFirst()).toBeUndefined();
    expect(await createdEventsOf('atomic1')).toEqual([]);
    expect((await admin.call('GET', '/admin/api/affiliates/atomic1')).statusCode).toBe(404);
    // the trigger spares other codes: a sign-up beside it still gets its affiliate, password and event
    expect((await signup('atomic2')).statusCode).toBe(201);
    expect(await createdEventsOf('atomic2')).toHaveLength(1);

    await sql`drop trigger fail_signup_account${sql.raw(dialect === 'postgres' ? ' on affiliate_accounts' : '')}`.execute(db);
    if (dialect === 'postgres') await sql`drop function fail_signup_account()`.execute(db);
    // the failed attempt left nothing behind: the same ref_code signs up, once, with its password
    const retried = await signup('atomic1');
    expect(retried.statusCode).toBe(201);
    expect(retried.json().affiliate).toMatchObject({ ref_code: 'atomic1', status: 'active' });
    expect(await createdEventsOf('atomic1')).toHaveLength(1);
    expect((await portalLogin(t, 'atomic1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(200);
    await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
  });
});

export type { PortalClient };
