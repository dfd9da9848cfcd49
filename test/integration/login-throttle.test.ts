import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { LoginThrottle, purgeLoginAttempts } from '../../src/platform/auth/login-throttle.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, TEST_ADMIN_PASSWORD, type TestService } from '../helpers/service.js';

const WINDOW_MS = 15 * 60 * 1000;
let ipCounter = 0;
/** A client address no other test uses (TEST-NET-3), so each test starts with clean per-IP counts. */
const freshIp = () => `203.0.113.${++ipCounter % 250}`;
let userCounter = 0;
const freshUser = () => `nobody${++userCounter}`;

function login(t: TestService, username: string, password: string, remoteAddress = '127.0.0.1'): Promise<LightMyRequestResponse> {
  return t.service.app.inject({ method: 'POST', url: '/admin/api/login', payload: { username, password }, remoteAddress });
}

function expectLimited(res: LightMyRequestResponse): void {
  expect(res.statusCode).toBe(429);
  expect(res.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: expect.any(Number) } } });
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
}

describeEachDatabase('admin login throttling (CONTRACT §11)', (dialect) => {
  let t: TestService;
  let other: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    other = await t.sibling();
  });
  afterAll(async () => {
    await other.service.destroy();
    await t.close();
  });
  // Each test moves past every window the previous one left behind, so they do not see each other's counts.
  beforeEach(() => t.clock.advance(WINDOW_MS + 1));

  it('counts before hashing: 200 wrong passwords at once get 5 answers of 401, the rest 429', async () => {
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => login(t, 'admin', `wrong-${i}`, ip)));
    const unauthorized = answers.filter((r) => r.statusCode === 401);
    const limited = answers.filter((r) => r.statusCode === 429);
    expect(unauthorized).toHaveLength(5);
    expect(limited).toHaveLength(195);
    for (const r of unauthorized) expect(r.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expectLimited(limited[0]!);
    // the right password is refused too while the limit holds
    expectLimited(await login(t, 'admin', TEST_ADMIN_PASSWORD, ip));
  });

  it('holds across two instances on one database: 100 guesses at each at once still get 5 answers of 401', async () => {
    const ip = freshIp();
    const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => login(i % 2 === 0 ? t : other, 'admin', `wrong-${i}`, ip)));
    expect(answers.filter((r) => r.statusCode === 401)).toHaveLength(5);
    expect(answers.filter((r) => r.statusCode === 429)).toHaveLength(195);
  });

  it('limits per user name: 5 failures from 5 addresses lock that name for every address', async () => {
    const user = freshUser();
    for (let i = 0; i < 5; i++) expect((await login(t, user, 'wrong', freshIp())).statusCode).toBe(401);
    expectLimited(await login(other, user, 'wrong', freshIp()));
    // other names from a fresh address are untouched
    expect((await login(t, freshUser(), 'wrong', freshIp())).statusCode).toBe(401);
  });

  it('limits per user name whatever its case', async () => {
    const user = freshUser();
    for (let i = 0; i < 5; i++) expect((await login(t, i % 2 ? user.toUpperCase() : user, 'wrong', freshIp())).statusCode).toBe(401);
    expectLimited(await login(t, ` ${user.toUpperCase()} `, 'wrong', freshIp()));
  });

  it('limits per client IP: 5 failures with 5 different names lock the address for any name', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    expectLimited(await login(other, freshUser(), 'wrong', ip));
    expectLimited(await login(t, 'admin', TEST_ADMIN_PASSWORD, ip));
  });

  it('counts an IPv6 /64 as one client', async () => {
    for (let i = 0; i < 5; i++) expect((await login(t, freshUser(), 'wrong', `2001:db8:1:2::${i + 1}`)).statusCode).toBe(401);
    expectLimited(await login(t, freshUser(), 'wrong', '2001:db8:1:2:ffff:1:2:3'));
    expect((await login(t, freshUser(), 'wrong', '2001:db8:1:3::1')).statusCode).toBe(401);
  });

  it('a correct password within the limit logs in and forgives its own typos, not guesses at other names', async () => {
    const ip = freshIp();
    for (let i = 0; i < 2; i++) expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    for (let i = 0; i < 2; i++) expect((await login(t, 'admin', `typo-${i}`, ip)).statusCode).toBe(401);
    const ok = await login(t, 'admin', TEST_ADMIN_PASSWORD, ip);
    expect(ok.statusCode).toBe(200);
    expect(ok.json()).toMatchObject({ success: true, csrf_token: expect.any(String) });
    // the address keeps its 2 guesses at other names (the success and the typos are gone): 3 more, then 429
    for (let i = 0; i < 3; i++) expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    expectLimited(await login(t, freshUser(), 'wrong', ip));
    // the user name was cleared: from elsewhere it takes 5 failures again before it is locked
    for (let i = 0; i < 5; i++) expect((await login(t, 'admin', 'wrong', freshIp())).statusCode).toBe(401);
    expectLimited(await login(t, 'admin', 'wrong', freshIp()));
  });

  it('is a sliding window: Retry-After says when the oldest failure leaves it, refused attempts do not extend it', async () => {
    const ip = freshIp();
    expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    t.clock.advance(5 * 60 * 1000);
    for (let i = 0; i < 4; i++) expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    const limited = await login(t, freshUser(), 'wrong', ip);
    expectLimited(limited);
    expect(Number(limited.headers['retry-after'])).toBe(10 * 60);
    t.clock.advance(10 * 60 * 1000 - 1000);
    expectLimited(await login(t, freshUser(), 'wrong', ip)); // hammering meanwhile changes nothing
    t.clock.advance(1000);
    // the first failure has left the window: one more attempt, then the other four hold it shut again
    expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    const again = await login(t, freshUser(), 'wrong', ip);
    expectLimited(again);
    expect(Number(again.headers['retry-after'])).toBe(5 * 60);
  });

  it('refuses a full key on a read: a flood of refused attempts writes nothing', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) expect((await login(t, freshUser(), 'wrong', ip)).statusCode).toBe(401);
    const db = t.service.ctx.db;
    const snapshot = () => db.selectFrom('login_throttle_keys').selectAll().where('key', '=', `ip:${ip}`).execute();
    const before = await snapshot();
    t.clock.advance(60_000);
    const answers = await Promise.all(Array.from({ length: 20 }, () => login(t, freshUser(), 'wrong', ip)));
    expect(answers.every((r) => r.statusCode === 429)).toBe(true);
    expect(await snapshot()).toEqual(before);
  });

  it('is keyed by scope: the affiliate portal can reuse it without sharing the admin counts', async () => {
    const admin = new LoginThrottle(t.service.ctx.db, t.clock, 'admin');
    const portal = new LoginThrottle(t.service.ctx.db, t.clock, 'portal');
    const ip = freshIp();
    const user = freshUser();
    for (let i = 0; i < 5; i++) await admin.begin(ip, user);
    await expect(admin.begin(ip, user)).rejects.toMatchObject({ status: 429, code: 'rate_limited' });
    const attempt = await portal.begin(ip, user);
    await attempt.succeeded();
  });

  it('the per-minute retention deletes attempts that left the window', async () => {
    const ip = freshIp();
    for (let i = 0; i < 5; i++) await login(t, freshUser(), 'wrong', ip);
    const db = t.service.ctx.db;
    const count = async () => Number((await db.selectFrom('login_attempts').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
    expect(await count()).toBeGreaterThan(0);
    t.clock.advance(WINDOW_MS + 1);
    expect(await purgeLoginAttempts(db, t.clock)).toBeGreaterThan(0);
    expect(await count()).toBe(0);
    expect(Number((await db.selectFrom('login_throttle_keys').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n)).toBe(0);
  });
});
