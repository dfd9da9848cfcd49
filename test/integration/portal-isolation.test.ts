import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { registeredRoutes } from '../../src/platform/http/app.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, type PortalClient, portalLogin, portalSignIn } from '../helpers/portal.js';
import { startTestService, type TestService } from '../helpers/service.js';

/**
 * A valid body for every portal mutation, so each is tried for real (a new route without one fails here:
 * add it, and the suite covers it). The other affiliate's ref_code is added to each as well.
 */
const VALID_BODIES: Record<string, unknown> = {
  'POST /portal/api/login': { ref_code: 'iso_b', password: PORTAL_PASSWORD },
  'POST /portal/api/accept-invite': { token: 'not-a-token', password: 'a-new-password' },
  'POST /portal/api/forgot-password': { login: 'iso_b' },
  'POST /portal/api/reset-password': { token: 'not-a-token', password: 'a-new-password' },
  'POST /portal/api/signup': { ref_code: 'iso_b', name: 'B', email: 'b@example.com', password: 'a-new-password' },
  'POST /portal/api/confirm-email': { token: 'not-a-token' },
  'POST /portal/api/confirm-email/resend': {},
  'POST /portal/api/logout': {},
  'POST /portal/api/password': { current_password: PORTAL_PASSWORD, new_password: 'a-new-password-2' },
  'PATCH /portal/api/me': { name: 'A renamed', payout_details: 'A pays here', current_password: PORTAL_PASSWORD, notify: { commissions: false } },
  'POST /portal/api/withdrawals': { amount: 1 },
};

interface Snapshot {
  me: unknown;
  summary: unknown;
  commissions: unknown;
  withdrawals: unknown;
}

async function snapshot(c: PortalClient): Promise<Snapshot> {
  const get = async (url: string) => {
    const res = await c.call('GET', url);
    expect(res.statusCode).toBe(200);
    return res.json();
  };
  return {
    me: await get('/portal/api/me'),
    summary: await get('/portal/api/summary'),
    commissions: await get('/portal/api/commissions'),
    withdrawals: await get('/portal/api/withdrawals'),
  };
}

describeEachDatabase('affiliate portal isolation (docs/architecture.md#the-affiliate-portals-isolation)', (dialect) => {
  let t: TestService;
  let a: PortalClient;
  let b: PortalClient;
  let bIds: string[];
  beforeAll(async () => {
    t = await startTestService(dialect);
    for (const ref of ['iso_a', 'iso_b']) {
      await addAffiliate(t, ref);
      await addMailbox(t, `buyer-${ref}@svc.test`, ref);
      await earn(t, `order-${ref}`, `buyer-${ref}@svc.test`, 100);
    }
    a = await portalSignIn(t, 'iso_a');
    b = await portalSignIn(t, 'iso_b');
    const bWithdrawal = (await b.call('POST', '/portal/api/withdrawals', { amount: 2 })).json().withdrawal.id as string;
    const bCommission = (await b.call('GET', '/portal/api/commissions')).json().items[0].id as string;
    await b.call('PATCH', '/portal/api/me', { payout_details: 'B secret payout', current_password: PORTAL_PASSWORD });
    bIds = ['iso_b', bWithdrawal, bCommission, 'order-iso_b', 'buyer-iso_b'];
  });
  afterAll(async () => {
    await t.close();
  });

  it('route by route: one affiliate never sees or changes the other\'s rows, whatever ids it sends', async () => {
    const before = await snapshot(b);
    const portalRoutes = registeredRoutes(t.service.app).filter((r) => r.url.startsWith('/portal/api/') && !r.url.includes('*') && r.method !== 'HEAD');
    expect(portalRoutes.length).toBeGreaterThanOrEqual(11);
    const leaks: string[] = [];
    const check = (label: string, res: LightMyRequestResponse) => {
      expect(res.statusCode, `${label}: ${res.body}`).toBeLessThan(500);
      for (const id of bIds) if (res.body.includes(id) && !(label.includes('/signup') || label.includes('/login'))) leaks.push(`${label} answered ${id}`);
      if (res.body.includes('B secret payout')) leaks.push(`${label} answered B's payout details`);
    };
    // the session-changing routes last, so the others run signed in
    const order = (url: string) => (url.endsWith('/password') ? 1 : url.endsWith('/logout') ? 2 : 0);
    for (const route of [...portalRoutes].sort((x, y) => order(x.url) - order(y.url))) {
      const key = `${route.method} ${route.url}`;
      const mutation = route.method !== 'GET';
      if (mutation) expect(VALID_BODIES, `a valid body for ${key}`).toHaveProperty([key]);
      const params = route.url.match(/:\w+/g) ?? [];
      for (const id of params.length > 0 ? bIds : [bIds[0] as string]) {
        const url = route.url.replace(/:\w+/g, id);
        const query = `?ref_code=iso_b&id=${id}&affiliate=iso_b&limit=500`;
        const bodies = mutation ? [VALID_BODIES[key], { ...(VALID_BODIES[key] as object), ref_code: 'iso_b', id }] : [undefined];
        for (const body of bodies) {
          const res = await a.call(route.method, `${url}${query}`, body);
          check(`${key} ${JSON.stringify(body)}`, res);
        }
      }
    }
    expect(leaks).toEqual([]);
    // B is untouched: its figures, lists, name, payout details; its session and password still work
    expect(await snapshot(b)).toEqual(before);
    expect((await portalLogin(t, 'iso_b', PORTAL_PASSWORD, '192.0.2.77')).statusCode).toBe(200);
    // A's own actions did happen (so the calls above were real): its withdrawal and its new name
    const aLogin = await portalLogin(t, 'iso_a', 'a-new-password-2', '192.0.2.78');
    expect(aLogin.statusCode).toBe(200);
  });

  it('a portal session gets 401 on every /api and /admin/api route, and the admin session nothing on /portal/api', async () => {
    const c = await portalSignIn(t, 'iso_a', 'iso-a-password');
    const token = c.cookie.split('=')[1];
    const routes = registeredRoutes(t.service.app).filter((r) => (r.url.startsWith('/api/') || r.url.startsWith('/admin/api/')) && !r.adminPublic && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(50);
    for (const route of routes) {
      const url = route.url.replace(/:\w+/g, 'iso_b').replace('*', 'x');
      for (const cookie of [c.cookie, `svc_session=${token}`]) {
        const res = await t.request(route.method, url, route.method === 'GET' || route.method === 'DELETE' ? undefined : {}, { cookie, 'x-csrf-token': c.csrf });
        expect(res.statusCode, `${route.method} ${url}`).toBe(401);
        expect(res.json().error.code).toBe('unauthorized');
      }
    }
    const admin = await t.admin();
    const asAdmin = await t.request('GET', '/portal/api/me', undefined, { cookie: admin.cookie });
    expect(asAdmin.statusCode).toBe(401);
    const withKey = await t.api('GET', '/portal/api/me');
    expect(withKey.statusCode).toBe(401);
  });
});
