import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
}

describeEachDatabase('mailbox creation', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect, { env: { SVC_MAIL_DOMAINS: 'svc.test, Other.test' } });
    for (const ref_code of ['alice', 'bob', 'gone']) {
      expect((await t.api('POST', '/api/affiliates', { ref_code })).statusCode).toBe(201);
    }
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/affiliates/gone', { status: 'disabled' })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  const referralsOf = (address: string) =>
    t.service.ctx.db.selectFrom('referrals').selectAll().where('mailbox_address', '=', address).execute();

  describe('names and domains', () => {
    it('creates a random mailbox on the first domain, unattributed', async () => {
      const res = await t.api('POST', '/api/mailboxes', {});
      expect(res.statusCode).toBe(201);
      const body = res.json();
      expect(body).toEqual({
        success: true,
        mailbox: { address: expect.stringMatching(/^[0-9a-z]{10}@svc\.test$/), ref_code: null, token: expect.stringMatching(/^[\w-]{32}$/), created_at: new Date(t.clock.now()).toISOString() },
      });
      expect(setCookies(res)).toEqual([]);
      expect(await referralsOf(body.mailbox.address)).toEqual([]);
      // only the hash of the token is stored
      const row = await t.service.ctx.db.selectFrom('mailboxes').selectAll().where('address', '=', body.mailbox.address).executeTakeFirstOrThrow();
      expect(row.token_hash).not.toContain(body.mailbox.token);
      expect(row).toMatchObject({ ref_code: null, domain: 'svc.test', local_part: body.mailbox.address.split('@')[0] });
    });

    it('gives different random names each time', async () => {
      const a = (await t.api('POST', '/api/mailboxes')).json().mailbox.address;
      const b = (await t.api('POST', '/api/mailboxes')).json().mailbox.address;
      expect(a).not.toBe(b);
    });

    it('takes a name (lower-cased) and a configured domain', async () => {
      const res = await t.api('POST', '/api/mailboxes', { name: ' John.Doe+x ', domain: 'OTHER.test' });
      expect(res.statusCode).toBe(201);
      expect(res.json().mailbox).toMatchObject({ address: 'john.doe+x@other.test', ref_code: null, created_at: expect.stringMatching(ISO) });
    });

    it('answers 409 mailbox_exists for a taken address, whatever the case', async () => {
      expect((await t.api('POST', '/api/mailboxes', { name: 'taken' })).statusCode).toBe(201);
      const res = await t.api('POST', '/api/mailboxes', { name: 'TAKEN', domain: 'svc.test' });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'mailbox_exists' } });
      // the same name on the other domain is a different address
      expect((await t.api('POST', '/api/mailboxes', { name: 'taken', domain: 'other.test' })).statusCode).toBe(201);
    });

    it.each([
      [{ domain: 'evil.com' }, 'domain'],
      [{ domain: 'sub.svc.test' }, 'domain'],
      [{ name: '' }, 'name'],
      [{ name: 'a b' }, 'name'],
      [{ name: 'a@b' }, 'name'],
      [{ name: '.lead' }, 'name'],
      [{ name: 'trail.' }, 'name'],
      [{ name: 'dou..ble' }, 'name'],
      [{ name: 'x'.repeat(65) }, 'name'],
      [{ name: '<script>' }, 'name'],
      [{ name: 5 }, 'name'],
      [{ ref_code: 5 }, 'ref_code'],
      [{ ref: 'alice', ref_code: 'bob' }, 'ref_code'],
      [{ surprise: true }, 'surprise'],
    ])('refuses %j with 400 naming %s', async (body, field) => {
      const res = await t.api('POST', '/api/mailboxes', body);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
    });

    it('publishes the domains and TTL for the landing page', async () => {
      const res = await t.request('GET', '/public/config');
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual({ success: true, domains: ['svc.test', 'other.test'], mailbox_ttl_hours: 24 });
    });
  });

  describe('attribution', () => {
    it('takes the other route\'s name for the code too: ref under /api, ref_code on the public route', async () => {
      const api = await t.api('POST', '/api/mailboxes', { name: 'alias1', ref: 'alice' });
      expect(api.statusCode).toBe(201);
      expect(api.json().mailbox.ref_code).toBe('alice');
      const pub = await t.request('POST', '/mailboxes', { name: 'alias2', ref_code: 'bob' });
      expect(pub.statusCode).toBe(201);
      expect(pub.json().mailbox.ref_code).toBe('bob');
      expect(String(pub.headers['set-cookie'])).toMatch(/^svc_ref=bob;/);
      const same = await t.request('POST', '/mailboxes', { name: 'alias3', ref: 'bob', ref_code: 'bob' });
      expect(same.json().mailbox.ref_code).toBe('bob');
    });

    it('attributes an explicit active ref_code, records one referral and sets the cookie', async () => {
      const res = await t.api('POST', '/api/mailboxes', { name: 'ex1', ref_code: 'alice' });
      expect(res.statusCode).toBe(201);
      expect(res.json().mailbox).toMatchObject({ address: 'ex1@svc.test', ref_code: 'alice' });
      expect(setCookies(res)).toEqual(['svc_ref=alice; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax']);
      const refs = await referralsOf('ex1@svc.test');
      expect(refs).toHaveLength(1);
      expect(refs[0]).toMatchObject({ ref_code: 'alice', source: 'ref', network_click_ids: null, created_at: t.clock.now() });
    });

    it('prefers the explicit ref over the cookie and overwrites the cookie', async () => {
      const res = await t.request('POST', '/mailboxes', { name: 'ex2', ref: 'bob' }, { cookie: 'svc_ref=alice' });
      expect(res.statusCode).toBe(201);
      expect(res.json().mailbox.ref_code).toBe('bob');
      expect(setCookies(res)).toEqual(['svc_ref=bob; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax']);
      expect((await referralsOf('ex2@svc.test')).map((r) => [r.ref_code, r.source])).toEqual([['bob', 'ref']]);
    });

    it('uses the cookie when no ref is given, without setting it again', async () => {
      const res = await t.request('POST', '/mailboxes', { name: 'ck1' }, { cookie: 'svc_ref=alice' });
      expect(res.statusCode).toBe(201);
      expect(res.json().mailbox.ref_code).toBe('alice');
      expect(setCookies(res)).toEqual([]);
      expect((await referralsOf('ck1@svc.test')).map((r) => [r.ref_code, r.source])).toEqual([['alice', 'cookie']]);
    });

    it('falls back to the cookie when the explicit ref is unknown, disabled or malformed', async () => {
      for (const [name, ref] of [
        ['fb1', 'nobody'],
        ['fb2', 'gone'],
        ['fb3', '../evil'],
      ] as const) {
        const res = await t.api('POST', '/api/mailboxes', { name, ref_code: ref }, { cookie: 'svc_ref=bob' });
        expect(res.statusCode).toBe(201);
        expect(res.json().mailbox.ref_code).toBe('bob');
        expect(setCookies(res)).toEqual([]);
      }
    });

    it('does not attribute a disabled or unknown affiliate at all', async () => {
      for (const [name, headers, body] of [
        ['na1', { cookie: 'svc_ref=gone' }, {}],
        ['na2', {}, { ref_code: 'gone' }],
        ['na3', { cookie: 'svc_ref=ghost' }, { ref_code: 'ghost' }],
      ] as const) {
        const res = await t.api('POST', '/api/mailboxes', { name, ...body }, headers);
        expect(res.statusCode).toBe(201);
        expect(res.json().mailbox.ref_code).toBeNull();
        expect(setCookies(res)).toEqual([]);
        expect(await referralsOf(`${name}@svc.test`)).toEqual([]);
      }
    });

    it('uses the cookie lifetime from settings and Secure for an https base URL', async () => {
      const admin = await t.admin();
      expect((await admin.call('PATCH', '/admin/api/settings', { cookie_lifetime_days: 7 })).statusCode).toBe(200);
      const res = await t.api('POST', '/api/mailboxes', { ref_code: 'alice' });
      expect(setCookies(res)).toEqual(['svc_ref=alice; Path=/; Max-Age=604800; HttpOnly; SameSite=Lax']);
      await admin.call('PATCH', '/admin/api/settings', { cookie_lifetime_days: 30 });

      const secure = await startTestService(dialect, { env: { SVC_BASE_URL: 'https://svc.example' } });
      try {
        await secure.api('POST', '/api/affiliates', { ref_code: 'alice' });
        const r = await secure.request('POST', '/mailboxes', { ref: 'alice' });
        expect(r.json().mailbox.ref_code).toBe('alice');
        expect(setCookies(r)).toEqual(['svc_ref=alice; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure']);
      } finally {
        await secure.close();
      }
    });

    it('keeps one referral per attributed mailbox and counts them per day', async () => {
      const db = t.service.ctx.db;
      const attributed = await db.selectFrom('mailboxes').select('address').where('ref_code', 'is not', null).execute();
      const referrals = await db.selectFrom('referrals').select(['mailbox_address', 'ref_code']).execute();
      expect(referrals.map((r) => r.mailbox_address).sort()).toEqual(attributed.map((m) => m.address).sort());
      const stats = await db.selectFrom('daily_stats').select(['ref_code', 'day', 'mailboxes']).orderBy('ref_code').execute();
      const perRef = new Map<string, number>();
      for (const r of referrals) perRef.set(r.ref_code, (perRef.get(r.ref_code) ?? 0) + 1);
      expect(stats).toEqual([...perRef.entries()].sort().map(([ref_code, n]) => ({ ref_code, day: '2026-01-15', mailboxes: n })));
    });

    it('attributes under /admin/api too', async () => {
      const admin = await t.admin();
      const res = await admin.call('POST', '/admin/api/mailboxes', { name: 'adm1', ref_code: 'bob' });
      expect(res.statusCode).toBe(201);
      expect(res.json().mailbox).toMatchObject({ address: 'adm1@svc.test', ref_code: 'bob' });
    });

    it('needs the API key on /api/mailboxes', async () => {
      const res = await t.request('POST', '/api/mailboxes', {});
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    });
  });

  describe('public rate limit', () => {
    it('answers 429 rate_limited with Retry-After after 30 creations a minute from one IP', async () => {
      const own = await startTestService(dialect);
      try {
        for (let i = 0; i < 30; i++) {
          const res = await own.request('POST', '/mailboxes', {});
          expect(res.statusCode).toBe(201);
        }
        const limited = await own.request('POST', '/mailboxes', {});
        expect(limited.statusCode).toBe(429);
        expect(limited.json()).toEqual({ success: false, error: { code: 'rate_limited', message: expect.any(String), details: { retry_after: expect.any(Number) } } });
        expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
        // the API route is not limited per IP
        expect((await own.api('POST', '/api/mailboxes', {})).statusCode).toBe(201);
        const count = await own.service.ctx.db.selectFrom('mailboxes').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow();
        expect(Number(count.n)).toBe(31);
      } finally {
        await own.close();
      }
    });
  });
});
