import { connect } from 'node:net';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, TEST_API_KEY, type TestService } from '../helpers/service.js';

describeEachDatabase('foundation', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });
  // A real listening server, for what app.inject cannot show (raw sockets, uploads); started once.
  let listening: Promise<string> | undefined;
  const baseUrl = () => {
    listening ??= t.service.start();
    return listening;
  };

  describe('health', () => {
    it('answers /healthz and /readyz with the database kind', async () => {
      expect((await t.request('GET', '/healthz')).json()).toEqual({ success: true, status: 'ok' });
      const ready = await t.request('GET', '/readyz');
      expect(ready.statusCode).toBe(200);
      expect(ready.json()).toEqual({ success: true, status: 'ready', database: dialect });
    });
  });

  describe('errors', () => {
    it('answers unknown routes with 404 not_found in the contract body', async () => {
      const res = await t.request('GET', '/no/such/route');
      expect(res.statusCode).toBe(404);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      expect(res.headers['content-type']).toMatch(/^application\/json/);
    });

    it('shows a person who mistypes a page address a page with a way back', async () => {
      const html = { accept: 'text/html,application/xhtml+xml' };
      const page = await t.request('GET', '/nope/whatever', undefined, html);
      expect(page.statusCode).toBe(404);
      expect(page.headers['content-type']).toMatch(/^text\/html/);
      expect(page.body).toContain('<h1>Page not found</h1>');
      expect(page.body).toContain('<a class="btn btn-primary" href="/">');
      // README.md#web: styled by the app's own stylesheet, nothing inline for the CSP to refuse
      expect(page.body).toMatch(/<link rel="stylesheet" crossorigin href="\/assets\/index-[\w-]+\.css">/);
      expect(page.body).not.toMatch(/\sstyle=|<style|<script/);
      expect(String(page.headers['content-security-policy'])).not.toContain('unsafe-inline');
      const admin = await t.request('GET', '/admin/bogus', undefined, html);
      expect(admin.statusCode).toBe(404);
      expect(admin.body).toContain('<a class="btn btn-primary" href="/admin">');
      const portal = await t.request('GET', '/portal/bogus', undefined, html);
      expect(portal.statusCode).toBe(404);
      expect(portal.body).toContain('<a class="btn btn-primary" href="/portal">');
      // the address is shown as text, never as markup
      const hostile = await t.request('GET', '/"><img src=x onerror=alert(1)>', undefined, html);
      expect(hostile.statusCode).toBe(404);
      expect(hostile.body).not.toContain('<img');
      expect(hostile.body).toContain('&#34;&#62;&#60;img');
      // programs still get the contract's JSON, under the APIs even when they ask for HTML
      expect((await t.request('GET', '/nope/whatever')).json()).toMatchObject({ success: false, error: { code: 'not_found' } });
      const api = await t.request('GET', '/api/nope', undefined, { ...html, 'x-api-key': TEST_API_KEY });
      expect(api.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
    });

    it('a page address with a trailing slash is that page (301), its query kept; other addresses stay not found', async () => {
      const html = { accept: 'text/html' };
      const admin = await t.request('GET', '/admin/', undefined, html);
      expect(admin.statusCode).toBe(301);
      expect(admin.headers.location).toBe('/admin');
      const withQuery = await t.request('GET', '/admin/orders/?q=x&page=2', undefined, html);
      expect(withQuery.statusCode).toBe(301);
      expect(withQuery.headers.location).toBe('/admin/orders?q=x&page=2');
      expect((await t.request('GET', '/portal//', undefined, html)).headers.location).toBe('/portal');
      expect((await t.request('GET', '/admin/bogus/', undefined, html)).statusCode).toBe(404);
      // programs get the contract's JSON, not a redirect
      expect((await t.request('GET', '/admin/')).json()).toMatchObject({ success: false, error: { code: 'not_found' } });
    });

    it('answers malformed JSON with 400 invalid_request', async () => {
      const res = await t.request('POST', '/admin/api/login', '{"username": ', { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
    });

    it('refuses a non-JSON content type without a 500', async () => {
      const res = await t.request('POST', '/admin/api/login', 'username=admin', { 'content-type': 'application/x-www-form-urlencoded' });
      expect([400, 415]).toContain(res.statusCode);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'invalid_request' } });
    });

    it('answers a body over 1 MiB with 413 payload_too_large', async () => {
      const big = JSON.stringify({ username: 'x'.repeat(1024 * 1024 + 10), password: 'y' });
      const res = await t.request('POST', '/admin/api/login', big, { 'content-type': 'application/json' });
      expect(res.statusCode).toBe(413);
      expect(res.json()).toMatchObject({ success: false, error: { code: 'payload_too_large' } });
    });

    it('lets a client finish uploading a body over the limit and then read the 413 (no reset mid-upload)', async () => {
      const base = new URL(await baseUrl());
      // A slow upload over a raw socket: the answer must wait for the body, not cut the connection under it.
      const upload = (path: string, size: number) =>
        new Promise<{ writeFailed: boolean; response: string }>((resolve) => {
          const socket = connect(Number(base.port), base.hostname);
          let response = '';
          let writeFailed = false;
          socket.on('data', (d) => {
            response += d.toString('utf8');
          });
          socket.on('error', () => {
            writeFailed = true;
          });
          socket.on('close', () => resolve({ writeFailed, response }));
          const head = `POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-API-Key: ${TEST_API_KEY}\r\nContent-Length: ${size}\r\nConnection: close\r\n\r\n`;
          socket.write(head);
          const chunk = Buffer.alloc(256 * 1024, 0x20);
          let sent = 0;
          const more = () => {
            if (socket.destroyed || sent >= size) return;
            const n = Math.min(chunk.length, size - sent);
            sent += n;
            socket.write(chunk.subarray(0, n), () => setTimeout(more, 2));
          };
          more();
        });
      for (const { path, size, limit } of [
        { path: '/admin/api/login', size: 3 * 1024 * 1024, limit: 1024 * 1024 },
        { path: '/api/inbound', size: 11 * 1024 * 1024, limit: 10 * 1024 * 1024 },
      ]) {
        const { writeFailed, response } = await upload(path, size);
        expect(writeFailed).toBe(false);
        expect(response).toMatch(/^HTTP\/1\.1 413 /);
        expect(JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4))).toEqual({
          success: false,
          error: { code: 'payload_too_large', message: 'Body is larger than the limit', details: { limit } },
        });
      }
    });

    it('lists offending fields in details', async () => {
      const res = await t.request('POST', '/admin/api/login', { username: '' });
      expect(res.statusCode).toBe(400);
      const fields = (res.json().error.details as { field: string }[]).map((d) => d.field).sort();
      expect(fields).toEqual(['password', 'username']);
    });
    it('names what was sent when a field has the wrong type, and what is missing', async () => {
      const res = await t.request('POST', '/admin/api/login', { username: 42 });
      expect(res.statusCode).toBe(400);
      const details = res.json().error.details as { field: string; message: string }[];
      expect(details.sort((a, b) => a.field.localeCompare(b.field))).toEqual([
        { field: 'password', message: 'is required' },
        { field: 'username', message: 'must be a string, not a number' },
      ]);
    });

    it('answers what the HTTP parser refuses (bad request line, huge headers) with the contract body', async () => {
      const base = new URL(await baseUrl());
      const raw = (text: string) =>
        new Promise<string>((resolve, reject) => {
          const socket = connect(Number(base.port), base.hostname, () => socket.write(text));
          let got = '';
          socket.on('data', (d) => {
            got += d.toString('utf8');
          });
          socket.on('end', () => resolve(got));
          socket.on('error', reject);
        });
      const bodyOf = (response: string) => JSON.parse(response.slice(response.indexOf('\r\n\r\n') + 4));
      const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
      expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
      expect(bodyOf(garbage)).toEqual({ success: false, error: { code: 'invalid_request', message: 'The request is not valid HTTP' } });
      const huge = await raw(`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
      expect(huge).toMatch(/^HTTP\/1\.1 431 /);
      expect(bodyOf(huge)).toEqual({ success: false, error: { code: 'invalid_request', message: 'Request headers are too large' } });
    });

    it('gives over-long path ids the route\'s own 404, and keeps error messages short', async () => {
      const affiliate = await t.request('GET', `/api/affiliates/${'a'.repeat(101)}`, undefined, { 'x-api-key': TEST_API_KEY });
      expect(affiliate.statusCode).toBe(404);
      expect(affiliate.json().error.code).toBe('affiliate_not_found');
      const order = await t.request('GET', `/api/orders/${'o'.repeat(129)}`, undefined, { 'x-api-key': TEST_API_KEY });
      expect(order.json().error.code).toBe('order_not_found');
      const nowhere = await t.request('GET', `/no/such/${'x'.repeat(5000)}`);
      expect(nowhere.statusCode).toBe(404);
      expect(nowhere.json().error.message.length).toBeLessThan(250);
    });

    it('says "is required" for any missing field, once per field', async () => {
      const res = await t.request('POST', '/api/orders', { order_id: 'x', email: 'a@b.co', product: 'p' }, { 'x-api-key': TEST_API_KEY });
      expect(res.json().error.details).toEqual([{ field: 'amount', message: 'is required' }]);
      const mailbox = await t.request('POST', '/api/mailboxes', { name: '' }, { 'x-api-key': TEST_API_KEY });
      expect(mailbox.statusCode).toBe(400);
      expect(mailbox.json().error.details).toHaveLength(1);
      expect(mailbox.json().error.details[0].field).toBe('name');
    });

    it('answers a path with broken percent-encoding with 400 invalid_request, not a 500', async () => {
      const res = await t.request('GET', '/api/affiliates/%ff');
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ success: false, error: { code: 'invalid_request', message: expect.stringMatching(/percent-encoding/) } });
    });
  });

  describe('API key', () => {
    it('refuses /api requests without a key or with a wrong key', async () => {
      for (const headers of [{} as Record<string, string>, { 'x-api-key': 'wrong' }, { 'x-api-key': `${TEST_API_KEY}x` }]) {
        const res = await t.request('GET', '/api/anything', undefined, headers);
        expect(res.statusCode).toBe(401);
        expect(res.json()).toEqual({ success: false, error: { code: 'unauthorized', message: expect.any(String) } });
      }
    });

    it('lets the right key through (unknown path then 404)', async () => {
      const res = await t.api('GET', '/api/anything');
      expect(res.statusCode).toBe(404);
      expect(res.json().error.code).toBe('not_found');
    });

    it('cannot change settings with the API key alone', async () => {
      const res = await t.api('PATCH', '/admin/api/settings', { commission_rate: 50 });
      expect(res.statusCode).toBe(401);
    });
  });

  describe('admin session and CSRF', () => {
    it('rejects a wrong password with 401', async () => {
      const res = await t.request('POST', '/admin/api/login', { username: 'admin', password: 'nope' }, { 'x-forwarded-for': '1.1.1.1' });
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    });

    it('sets an HttpOnly SameSite=Strict cookie and returns a CSRF token', async () => {
      const res = await t.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ success: true, csrf_token: expect.stringMatching(/^.{20,}$/) });
      const cookie = String(res.headers['set-cookie']);
      expect(cookie).toMatch(/^svc_session=/);
      expect(cookie).toMatch(/HttpOnly/);
      expect(cookie).toMatch(/SameSite=Strict/);
    });

    it('requires a session for /admin/api', async () => {
      const res = await t.request('GET', '/admin/api/settings');
      expect(res.statusCode).toBe(401);
      expect(res.json().error.code).toBe('unauthorized');
    });

    it('requires X-CSRF-Token for mutations', async () => {
      const admin = await t.admin();
      const without = await t.request('PATCH', '/admin/api/settings', { commission_rate: 12 }, { cookie: admin.cookie });
      expect(without.statusCode).toBe(403);
      expect(without.json().error.code).toBe('csrf_failed');
      const wrong = await t.request('PATCH', '/admin/api/settings', { commission_rate: 12 }, { cookie: admin.cookie, 'x-csrf-token': 'bad' });
      expect(wrong.statusCode).toBe(403);
      const rotateWithout = await t.request('POST', '/admin/api/api-key/rotate', undefined, { cookie: admin.cookie });
      expect(rotateWithout.statusCode).toBe(403);
      // nothing changed
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.commission_rate).toBe(10);
    });

    it('shows the session and ends it on logout', async () => {
      const admin = await t.admin();
      const me = await admin.call('GET', '/admin/api/session');
      expect(me.json()).toEqual({ success: true, username: 'admin', csrf_token: admin.csrf });
      expect((await admin.call('POST', '/admin/api/logout')).statusCode).toBe(200);
      expect((await admin.call('GET', '/admin/api/settings')).statusCode).toBe(401);
    });

    it('rate-limits repeated failed logins per client and lets them retry after the window', async () => {
      const ip = { 'x-forwarded-for': '9.9.9.9' };
      for (let i = 0; i < 5; i++) {
        const res = await t.request('POST', '/admin/api/login', { username: 'admin', password: `bad${i}` }, ip);
        expect(res.statusCode).toBe(401);
      }
      // inject() always comes from 127.0.0.1, so this limit is on that client; the right password is refused too
      const limited = await t.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' });
      expect(limited.statusCode).toBe(429);
      expect(limited.json().error.code).toBe('rate_limited');
      expect(Number(limited.headers['retry-after'])).toBeGreaterThan(0);
      t.clock.advance(16 * 60 * 1000);
      const ok = await t.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' });
      expect(ok.statusCode).toBe(200);
    });

    it('counts failed logins across instances sharing the database', async () => {
      const other = await t.sibling();
      try {
        const bad = (svc: TestService, i: number) => svc.request('POST', '/admin/api/login', { username: 'admin', password: `wrong${i}` });
        for (let i = 0; i < 5; i++) expect((await bad(i % 2 === 0 ? t : other, i)).statusCode).toBe(401);
        for (const svc of [t, other]) {
          const res = await svc.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' });
          expect(res.statusCode).toBe(429);
          expect(Number(res.headers['retry-after'])).toBe(15 * 60);
        }
        t.clock.advance(15 * 60 * 1000 + 1);
        expect((await other.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' })).statusCode).toBe(200);
        // four failures are still under the limit of five: the right password logs in (login-throttle.test.ts has the rest)
        for (let i = 0; i < 4; i++) expect((await bad(t, i)).statusCode).toBe(401);
        expect((await t.request('POST', '/admin/api/login', { username: 'admin', password: 'test-admin-password' })).statusCode).toBe(200);
      } finally {
        await other.service.destroy();
      }
    });
  });

  describe('settings', () => {
    it('has the contract defaults and a generated whsec_ secret', async () => {
      const admin = await t.admin();
      const res = await admin.call('GET', '/admin/api/settings');
      expect(res.json()).toEqual({
        success: true,
        settings: {
          commission_rate: 10,
          cookie_lifetime_days: 30,
          landing_url: 'http://svc.test.local/',
          webhook_url: null,
          webhook_secret: { set: true, last4: expect.stringMatching(/^[A-Za-z0-9+/]{3}=$/) },
          mailbox_ttl_hours: 24,
          mailbox_max_messages: 500,
          affiliate_signup: 'closed',
          holding_days: null,
          stripe_webhook_secret: { set: false, last4: null },
          paddle_webhook_secret: { set: false, last4: null },
          lemonsqueezy_webhook_secret: { set: false, last4: null },
          admin_email: null,
          message_events: false,
          currency: 'USD',
          payout_minimum: null,
          payout_schedule: 'manual',
          sepa_debtor_name: null,
          sepa_debtor_iban: null,
          sepa_debtor_bic: null,
          click_retention_days: 90,
          fraud_rules: { self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'flag', refund_rate: 'flag' },
          fraud_click_burst: 30,
        },
      });
    });

    it('stores valid changes', async () => {
      const admin = await t.admin();
      const res = await admin.call('PATCH', '/admin/api/settings', {
        commission_rate: 12.5,
        cookie_lifetime_days: 7,
        landing_url: 'https://example.com/landing?x=1',
        mailbox_ttl_hours: 48,
      });
      expect(res.statusCode).toBe(200);
      expect(res.json().settings).toMatchObject({ commission_rate: 12.5, cookie_lifetime_days: 7, landing_url: 'https://example.com/landing?x=1', mailbox_ttl_hours: 48 });
      expect((await admin.call('GET', '/admin/api/settings')).json().settings.commission_rate).toBe(12.5);
    });

    it.each([
      [{ commission_rate: 101 }, 'commission_rate'],
      [{ commission_rate: -1 }, 'commission_rate'],
      [{ commission_rate: 10.555 }, 'commission_rate'],
      [{ commission_rate: '10' }, 'commission_rate'],
      [{ cookie_lifetime_days: 0 }, 'cookie_lifetime_days'],
      [{ cookie_lifetime_days: 366 }, 'cookie_lifetime_days'],
      [{ cookie_lifetime_days: 1.5 }, 'cookie_lifetime_days'],
      [{ landing_url: 'javascript:alert(1)' }, 'landing_url'],
      [{ landing_url: '/relative' }, 'landing_url'],
      [{ webhook_url: 'ftp://x.example' }, 'webhook_url'],
      [{ webhook_secret: 'short' }, 'webhook_secret'],
      [{ mailbox_ttl_hours: 0 }, 'mailbox_ttl_hours'],
      [{ mailbox_ttl_hours: 721 }, 'mailbox_ttl_hours'],
      [{ nonsense: 1 }, 'nonsense'],
    ])('refuses %j with 400 naming %s', async (patch, field) => {
      const admin = await t.admin();
      const before = (await admin.call('GET', '/admin/api/settings')).json().settings;
      const res = await admin.call('PATCH', '/admin/api/settings', patch);
      expect(res.statusCode).toBe(400);
      expect(res.json().error.code).toBe('invalid_request');
      expect(res.json().error.details.map((d: { field: string }) => d.field)).toContain(field);
      expect((await admin.call('GET', '/admin/api/settings')).json().settings).toEqual(before);
    });
  });

  describe('API key rotation', () => {
    it('shows the key and rotates it: new valid at once, old invalid at once', async () => {
      const admin = await t.admin();
      const shown = await admin.call('GET', '/admin/api/api-key');
      expect(shown.json()).toEqual({ success: true, api_key: TEST_API_KEY });
      const rotated = await admin.call('POST', '/admin/api/api-key/rotate');
      expect(rotated.statusCode).toBe(200);
      const newKey = rotated.json().api_key as string;
      expect(newKey).toMatch(/^svc_[A-Za-z0-9_-]{32}$/);
      expect((await t.request('GET', '/api/x', undefined, { 'x-api-key': TEST_API_KEY })).statusCode).toBe(401);
      expect((await t.request('GET', '/api/x', undefined, { 'x-api-key': newKey })).statusCode).toBe(404);
      expect((await admin.call('GET', '/admin/api/api-key')).json().api_key).toBe(newKey);
    });
  });

  describe('internal errors', () => {
    it('answers 500 internal_error without stack or SQL when the database fails', async () => {
      const broken = await startTestService(dialect);
      try {
        const admin = await broken.admin();
        await sql`drop table settings`.execute(broken.service.ctx.db);
        broken.service.ctx.services.settings.invalidate();
        const res = await admin.call('GET', '/admin/api/settings');
        expect(res.statusCode).toBe(500);
        const body = res.json();
        expect(body).toEqual({ success: false, error: { code: 'internal_error', message: expect.stringMatching(/^Internal error \(request [\w-]+\)$/) } });
        expect(res.body).not.toMatch(/settings|SQL|sqlite|relation|at \w+ \(/i);
      } finally {
        await broken.close();
      }
    });
  });
});
