import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate } from '../helpers/ledger-fixtures.js';
import { inviteToken, PORTAL_PASSWORD, type PortalClient, portalClient, portalLogin, portalSignIn } from '../helpers/portal.js';
import { startTestService, type TestService } from '../helpers/service.js';

const WINDOW_MS = 15 * 60 * 1000;
let ipCounter = 0;
const freshIp = () => `203.0.113.${++ipCounter % 250}`;

/**
 * docs/api.md#affiliate-portal, portal: setting a password (any way) ends every other session of the
 * affiliate and voids its unused invitations; changing payout details needs the current password (403
 * password_required), and those checks are throttled like a password change.
 */
describeEachDatabase('portal: a password change takes the account back; payout details need the password (docs/api.md#affiliate-portal)', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(() => t.clock.advance(WINDOW_MS + 1));

  const sessionsOf = (refCode: string) => t.service.ctx.db.selectFrom('affiliate_sessions').select('id_hash').where('ref_code', '=', refCode).execute();
  const accept = (token: string, password: string) => t.request('POST', '/portal/api/accept-invite', { token, password });
  const payoutOf = async (c: PortalClient) => (await c.call('GET', '/portal/api/me')).json().affiliate.payout_details as unknown;

  it('accepting an invitation ends every other session of the affiliate at once (the admin throws a thief out)', async () => {
    await addAffiliate(t, 'steal1');
    const owner = await portalSignIn(t, 'steal1');
    // the thief signed in with the stolen password, from elsewhere
    const thief = portalClient(t, 'steal1', await portalLogin(t, 'steal1', PORTAL_PASSWORD, freshIp()));
    expect((await thief.call('GET', '/portal/api/me')).statusCode).toBe(200);
    expect(await sessionsOf('steal1')).toHaveLength(2);

    // the admin sends a new invitation; the owner accepts it with a new password
    const accepted = await accept(await inviteToken(t, 'steal1'), 'taken-back-password');
    expect(accepted.statusCode).toBe(200);
    const back = portalClient(t, 'steal1', accepted);
    for (const ended of [thief, owner]) {
      const res = await ended.call('GET', '/portal/api/me');
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    }
    expect((await back.call('GET', '/portal/api/me')).statusCode).toBe(200);
    expect(await sessionsOf('steal1')).toHaveLength(1);
    // and the stolen password is no longer the password
    expect((await portalLogin(t, 'steal1', PORTAL_PASSWORD, freshIp())).statusCode).toBe(401);
  });

  it('a password change voids every invitation issued before it; one issued after works', async () => {
    await addAffiliate(t, 'void1');
    const a = await portalSignIn(t, 'void1');
    const before = await inviteToken(t, 'void1');
    expect((await a.call('POST', '/portal/api/password', { current_password: PORTAL_PASSWORD, new_password: 'changed-password-1' })).json()).toEqual({ success: true });
    const refused = await accept(before, 'hijack-password-1');
    expect(refused.statusCode).toBe(400);
    expect(refused.json().error.details).toEqual([{ field: 'token', message: expect.any(String) }]);
    // the refused invitation changed nothing: the new password holds, the session lives
    expect((await a.call('GET', '/portal/api/me')).statusCode).toBe(200);
    expect((await portalLogin(t, 'void1', 'hijack-password-1', freshIp())).statusCode).toBe(401);
    expect((await portalLogin(t, 'void1', 'changed-password-1', freshIp())).statusCode).toBe(200);

    const after = await inviteToken(t, 'void1');
    expect((await accept(after, 'reset-password-1')).statusCode).toBe(200);
  });

  it('accepting one invitation voids the affiliate\'s other unused ones, and no other affiliate\'s', async () => {
    await addAffiliate(t, 'void2');
    await addAffiliate(t, 'void3');
    const first = await inviteToken(t, 'void2');
    const second = await inviteToken(t, 'void2');
    const others = await inviteToken(t, 'void3');
    expect((await accept(second, 'second-password')).statusCode).toBe(200);
    expect((await accept(first, 'first-password-x')).statusCode).toBe(400);
    expect((await portalLogin(t, 'void2', 'second-password', freshIp())).statusCode).toBe(200);
    expect((await accept(others, 'void3-password')).statusCode).toBe(200);
  });

  it('PATCH /portal/api/me: payout details need the current password (missing or wrong: 403 password_required, nothing changes); the name alone does not', async () => {
    await addAffiliate(t, 'pay1');
    const a = await portalSignIn(t, 'pay1');
    const set = await a.call('PATCH', '/portal/api/me', { payout_details: { method: 'other', note: 'IBAN OWNER 1' }, current_password: PORTAL_PASSWORD });
    expect(set.statusCode).toBe(200);
    expect(set.json().affiliate.payout_details).toEqual({ method: 'other', note: 'IBAN OWNER 1' });

    const wrongAnswers = [
      { payout_details: { method: 'other', note: 'IBAN THIEF' } },
      { payout_details: { method: 'other', note: 'IBAN THIEF' }, current_password: '' },
      { payout_details: { method: 'other', note: 'IBAN THIEF' }, current_password: 'not-the-password' },
      { payout_details: null, current_password: 'not-the-password' },
      { name: 'Renamed by thief', payout_details: { method: 'other', note: 'IBAN THIEF' }, current_password: 'not-the-password' },
    ];
    for (const body of wrongAnswers) {
      const res = await a.call('PATCH', '/portal/api/me', body);
      expect(res.statusCode, JSON.stringify(body)).toBe(403);
      expect(res.json()).toEqual({
        success: false,
        error: { code: 'password_required', message: expect.any(String), details: [{ field: 'current_password', message: expect.any(String) }] },
      });
    }
    const me = (await a.call('GET', '/portal/api/me')).json().affiliate;
    expect(me).toMatchObject({ name: null, payout_details: { method: 'other', note: 'IBAN OWNER 1' } });

    // the name alone needs no password
    const renamed = await a.call('PATCH', '/portal/api/me', { name: 'Ann' });
    expect(renamed.statusCode).toBe(200);
    expect(renamed.json().affiliate).toMatchObject({ name: 'Ann', payout_details: { method: 'other', note: 'IBAN OWNER 1' } });
    // the right password: the change is made, and null clears
    const cleared = await a.call('PATCH', '/portal/api/me', { payout_details: null, current_password: PORTAL_PASSWORD });
    expect(cleared.statusCode).toBe(200);
    expect(await payoutOf(a)).toBeNull();
  });

  it('the password check of PATCH /me is no guessing oracle: 20 parallel wrong passwords get 5 × 403 and 15 × 429, shared with the password change', async () => {
    await addAffiliate(t, 'pay2');
    const a = await portalSignIn(t, 'pay2');
    const ip = freshIp();
    const patch = (body: object, remoteAddress = ip) =>
      t.service.app.inject({ method: 'PATCH', url: '/portal/api/me', payload: body, headers: { cookie: a.cookie, 'x-csrf-token': a.csrf }, remoteAddress });
    // a missing password checks nothing and is not counted
    for (let i = 0; i < 8; i++) expect((await patch({ payout_details: { method: 'other', note: 'IBAN X' } })).statusCode).toBe(403);

    const answers = await Promise.all(Array.from({ length: 20 }, (_v, i) => patch({ payout_details: { method: 'other', note: 'IBAN THIEF' }, current_password: `guess-${i}-password` })));
    const codes = answers.map((r) => r.statusCode).sort();
    expect(codes).toEqual([...Array(5).fill(403), ...Array(15).fill(429)]);
    const limited = answers.find((r) => r.statusCode === 429)!;
    expect(limited.json().error.code).toBe('rate_limited');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
    // per affiliate too: from another address, even the right password waits; and so does a password change
    expect((await patch({ payout_details: { method: 'other', note: 'IBAN OWNER' }, current_password: PORTAL_PASSWORD }, freshIp())).statusCode).toBe(429);
    expect((await a.call('POST', '/portal/api/password', { current_password: PORTAL_PASSWORD, new_password: 'another-password-1' })).statusCode).toBe(429);
    // unchanged: still the details the fixture gave (addAffiliate)
    expect(await payoutOf(a)).toEqual({ method: 'other', note: 'paid by hand' });

    t.clock.advance(WINDOW_MS + 1);
    expect((await patch({ payout_details: { method: 'other', note: 'IBAN OWNER' }, current_password: PORTAL_PASSWORD })).statusCode).toBe(200);
    expect(await payoutOf(a)).toEqual({ method: 'other', note: 'IBAN OWNER' });
  });
});
