import type { LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiOperations } from '../../src/platform/http/app.js';
import type { ApiOperation } from '../../src/platform/http/openapi.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { type AdminClient, startTestService, TEST_ADMIN_PASSWORD, type TestService } from '../helpers/service.js';

/** The operations of the running app's /openapi.json (set once the service is up). */
let ops: ApiOperation[] = [];

/** Parses the answer with the schema /openapi.json documents for its status (strict objects). */
function documented(method: string, path: string, res: LightMyRequestResponse): Record<string, unknown> {
  const op = ops.find((o) => o.method === method && o.path === path);
  if (!op) throw new Error(`${method} ${path} is not in the API description`);
  const response = op.responses[res.statusCode];
  if (!response?.body) throw new Error(`${method} ${path} answered ${res.statusCode}, which the description does not list: ${res.body}`);
  const parsed = response.body.safeParse(res.json());
  if (!parsed.success) throw new Error(`${method} ${path} ${res.statusCode}: ${parsed.error.message}\n${res.body}`);
  return res.json();
}

describeEachDatabase('admin users and passwords (CONTRACT §15)', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    ops = apiOperations(t.service.app);
  });
  afterAll(async () => {
    await t.close();
  });

  /** Logs in as `username`; undefined when the login is refused. */
  async function logIn(username: string, password: string, ip = '10.9.9.9'): Promise<AdminClient | undefined> {
    const res = await t.request('POST', '/admin/api/login', { username, password }, { 'x-forwarded-for': ip });
    if (res.statusCode !== 200) return undefined;
    const cookie = String([res.headers['set-cookie']].flat()[0]).split(';')[0] as string;
    const csrf = res.json().csrf_token as string;
    return { cookie, csrf, call: (method, url, body, headers = {}) => t.request(method, url, body, { cookie, 'x-csrf-token': csrf, ...headers }) };
  }

  async function signedIn(client: AdminClient): Promise<boolean> {
    return (await client.call('GET', '/admin/api/session')).statusCode === 200;
  }

  it('lists, adds (with a password or a generated one) and refuses bad or taken names', async () => {
    const admin = await t.admin();
    const list = await admin.call('GET', '/admin/api/admin-users');
    expect(documented('get', '/admin/api/admin-users', list)).toMatchObject({ success: true, items: [{ username: 'admin' }], next_cursor: null });

    const added = await admin.call('POST', '/admin/api/admin-users', { username: 'alice', password: 'alice-password-1' });
    expect(added.statusCode).toBe(201);
    const body = documented('post', '/admin/api/admin-users', added);
    expect(body).toEqual({ success: true, admin_user: { username: 'alice', created_at: '2026-01-15T12:00:00.000Z' } });
    expect(await logIn('alice', 'alice-password-1')).toBeDefined();

    const generated = await admin.call('POST', '/admin/api/admin-users', { username: 'bob' });
    expect(generated.statusCode).toBe(201);
    const password = documented('post', '/admin/api/admin-users', generated).password as string;
    expect(password.length).toBeGreaterThanOrEqual(16);
    expect(await logIn('bob', password)).toBeDefined();

    const taken = await admin.call('POST', '/admin/api/admin-users', { username: 'alice' });
    expect(taken.statusCode).toBe(409);
    expect(documented('post', '/admin/api/admin-users', taken)).toMatchObject({ success: false, error: { code: 'admin_user_exists', message: expect.stringContaining('alice') } });

    const short = await admin.call('POST', '/admin/api/admin-users', { username: 'carol', password: 'short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ success: false, error: { code: 'invalid_request', details: [{ field: 'password', message: 'must be at least 10 characters' }] } });
    const badName = await admin.call('POST', '/admin/api/admin-users', { username: 'no spaces please' });
    expect(badName.statusCode).toBe(400);
    expect(badName.json()).toMatchObject({ error: { code: 'invalid_request', details: [{ field: 'username' }] } });

    const names = (await admin.call('GET', '/admin/api/admin-users')).json().items.map((u: { username: string }) => u.username);
    expect(names).toEqual(['admin', 'alice', 'bob']);
  });

  it('needs a session for every route and the CSRF token for the mutations', async () => {
    const anonymous = await t.request('GET', '/admin/api/admin-users');
    expect(anonymous.statusCode).toBe(401);
    expect(anonymous.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    const admin = await t.admin();
    for (const [method, url, body] of [
      ['POST', '/admin/api/admin-users', { username: 'mallory' }],
      ['DELETE', '/admin/api/admin-users/bob', undefined],
      ['POST', '/admin/api/password', { current_password: TEST_ADMIN_PASSWORD, new_password: 'mallory-password' }],
    ] as const) {
      const res = await t.request(method, url, body, { cookie: admin.cookie });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'csrf_failed' } });
    }
    expect((await admin.call('GET', '/admin/api/admin-users')).json().items.map((u: { username: string }) => u.username)).not.toContain('mallory');
  });

  it('removes a user, whose sessions end at once; unknown users are 404', async () => {
    const admin = await t.admin();
    const bobPassword = (await admin.call('POST', '/admin/api/admin-users', { username: 'dave', password: 'dave-password-1' })).json();
    expect(bobPassword.success).toBe(true);
    const dave = await logIn('dave', 'dave-password-1');
    expect(dave && (await signedIn(dave))).toBe(true);

    const removed = await admin.call('DELETE', '/admin/api/admin-users/dave');
    expect(documented('delete', '/admin/api/admin-users/{username}', removed)).toEqual({ success: true });
    const after = await dave?.call('GET', '/admin/api/session');
    expect(after?.statusCode).toBe(401);
    expect(after?.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expect(await logIn('dave', 'dave-password-1')).toBeUndefined();

    const unknown = await admin.call('DELETE', '/admin/api/admin-users/nobody');
    expect(unknown.statusCode).toBe(404);
    expect(documented('delete', '/admin/api/admin-users/{username}', unknown)).toMatchObject({ error: { code: 'admin_user_not_found' } });
  });

  it('changes the signed-in admin password: a wrong current one is a 400 naming the field, other sessions end', async () => {
    const admin = await t.admin();
    await admin.call('POST', '/admin/api/admin-users', { username: 'erin', password: 'erin-password-1' });
    const here = await logIn('erin', 'erin-password-1');
    const elsewhere = await logIn('erin', 'erin-password-1', '10.9.9.10');
    if (!here || !elsewhere) throw new Error('erin cannot log in');

    const wrong = await here.call('POST', '/admin/api/password', { current_password: 'not-it-at-all', new_password: 'erin-password-2' });
    expect(wrong.statusCode).toBe(400);
    expect(documented('post', '/admin/api/password', wrong)).toMatchObject({
      success: false,
      error: { code: 'invalid_request', details: [{ field: 'current_password', message: 'is not your current password' }] },
    });
    expect(await signedIn(here)).toBe(true); // a typo does not sign anyone out

    const short = await here.call('POST', '/admin/api/password', { current_password: 'erin-password-1', new_password: 'too-short' });
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ error: { details: [{ field: 'new_password', message: 'must be at least 10 characters' }] } });
    const long = await here.call('POST', '/admin/api/password', { current_password: 'erin-password-1', new_password: 'x'.repeat(201) });
    expect(long.json()).toMatchObject({ error: { details: [{ field: 'new_password', message: 'must be at most 200 characters' }] } });
    expect((await here.call('POST', '/admin/api/password', { current_password: 'erin-password-1' })).json()).toMatchObject({
      error: { details: [{ field: 'new_password', message: 'is required' }] },
    });

    const changed = await here.call('POST', '/admin/api/password', { current_password: 'erin-password-1', new_password: 'erin-password-2' });
    expect(documented('post', '/admin/api/password', changed)).toEqual({ success: true });
    expect(await signedIn(here)).toBe(true);
    expect(await signedIn(elsewhere)).toBe(false);
    expect(await logIn('erin', 'erin-password-1')).toBeUndefined();
    expect(await logIn('erin', 'erin-password-2')).toBeDefined();
    // another admin's password is untouched
    expect(await logIn('admin', TEST_ADMIN_PASSWORD)).toBeDefined();
  });

  it('never removes the last admin user (409 last_admin), also when two removals race', async () => {
    const s = await startTestService(dialect);
    try {
      const admin = await s.admin();
      const alone = await admin.call('DELETE', '/admin/api/admin-users/admin');
      expect(alone.statusCode).toBe(409);
      expect(documented('delete', '/admin/api/admin-users/{username}', alone)).toMatchObject({
        success: false,
        error: { code: 'last_admin', message: expect.stringContaining('last admin user') },
      });
      await admin.call('POST', '/admin/api/admin-users', { username: 'frank', password: 'frank-password-1' });
      const users = s.service.ctx.services.adminUsers;
      for (let round = 0; round < 5; round++) {
        // two users left, both removals at once (separate transactions): exactly one goes through
        const results = await Promise.allSettled([users.remove('admin'), users.remove('frank')]);
        expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
        const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
        expect(refused.reason).toMatchObject({ status: 409, code: 'last_admin' });
        const left = (await users.list()).map((u) => u.username);
        expect(left).toHaveLength(1);
        await users.add({ username: left[0] === 'admin' ? 'frank' : 'admin', password: 'back-again-password' });
      }
      // over HTTP, each removing the other: one answer is 200, and one admin user is left
      const frank = await s.request('POST', '/admin/api/login', { username: 'frank', password: 'back-again-password' });
      const frankSession = frank.statusCode === 200 ? frank : await s.request('POST', '/admin/api/login', { username: 'frank', password: 'frank-password-1' });
      const frankCookie = String([frankSession.headers['set-cookie']].flat()[0]).split(';')[0] as string;
      const adminNow = await s.request('POST', '/admin/api/login', { username: 'admin', password: 'back-again-password' });
      const adminSession = adminNow.statusCode === 200 ? adminNow : await s.request('POST', '/admin/api/login', { username: 'admin', password: TEST_ADMIN_PASSWORD });
      const adminCookie = String([adminSession.headers['set-cookie']].flat()[0]).split(';')[0] as string;
      const [a, b] = await Promise.all([
        s.request('DELETE', '/admin/api/admin-users/frank', undefined, { cookie: adminCookie, 'x-csrf-token': adminSession.json().csrf_token }),
        s.request('DELETE', '/admin/api/admin-users/admin', undefined, { cookie: frankCookie, 'x-csrf-token': frankSession.json().csrf_token }),
      ]);
      // the loser is refused as the last admin, or finds its own session already ended
      expect([a.statusCode, b.statusCode].filter((c) => c === 200)).toHaveLength(1);
      expect([409, 401]).toContain([a, b].find((r) => r.statusCode !== 200)?.statusCode);
      expect(await users.list()).toHaveLength(1);
    } finally {
      await s.close();
    }
  });

  it('throttles guesses at the current password like logins: 5 wrong ones, then 429 even for the right one', async () => {
    const admin = await t.admin();
    await admin.call('POST', '/admin/api/admin-users', { username: 'frank', password: 'frank-password-1' });
    const session = await logIn('frank', 'frank-password-1', '10.9.9.20');
    if (!session) throw new Error('frank cannot log in');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) {
      statuses.push((await session.call('POST', '/admin/api/password', { current_password: `guess-${i}-password`, new_password: 'frank-password-2' })).statusCode);
    }
    expect(statuses).toEqual([400, 400, 400, 400, 400, 429]);
    const locked = await session.call('POST', '/admin/api/password', { current_password: 'frank-password-1', new_password: 'frank-password-2' });
    expect(documented('post', '/admin/api/password', locked)).toMatchObject({ success: false, error: { code: 'rate_limited' } });
    expect(Number(locked.headers['retry-after'])).toBeGreaterThan(0);
    expect(await signedIn(session)).toBe(true); // the session itself stays
    expect(await logIn('frank', 'frank-password-1', '10.9.9.21')).toBeDefined(); // the password did not change
  });

  it('a restart does not bring back a removed admin user, and creates one only on an empty database', async () => {
    const s = await startTestService(dialect);
    try {
      const admin = await s.admin();
      await admin.call('POST', '/admin/api/admin-users', { username: 'grace', password: 'grace-password-1' });
      expect((await admin.call('DELETE', '/admin/api/admin-users/admin')).statusCode).toBe(200);
      const again = await s.sibling();
      try {
        expect((await again.service.bootstrap()).adminCreated).toBe(false);
        expect((await again.service.ctx.services.adminUsers.list()).map((u) => u.username)).toEqual(['grace']);
      } finally {
        await again.service.destroy();
      }
    } finally {
      await s.close();
    }
  });
});

describe('admin routes in /openapi.json', () => {
  it('documents the admin-user routes with the admin session and the codes they answer', async () => {
    const t = await startTestService('sqlite');
    try {
      const doc = (await t.request('GET', '/openapi.json')).json();
      expect(doc.components.securitySchemes.adminSession).toMatchObject({ type: 'apiKey', in: 'cookie', name: 'svc_session' });
      const del = doc.paths['/admin/api/admin-users/{username}'].delete;
      expect(del.security).toEqual([{ adminSession: [] }]);
      expect(del.responses['409'].description).toContain('last_admin');
      expect(doc.paths['/admin/api/password'].post.description).toContain('400 invalid_request');
    } finally {
      await t.close();
    }
  });
});
