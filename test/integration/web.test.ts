import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_DIST, WEB_PAGES } from '../../src/platform/web/web.routes.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

const built = existsSync(`${WEB_DIST}index.html`);

function expectSecurityHeaders(headers: Record<string, unknown>): void {
  const csp = String(headers['content-security-policy']);
  expect(csp).toContain("default-src 'self'");
  expect(csp).toContain("script-src 'self'");
  expect(csp).toContain("style-src 'self'");
  expect(csp).toContain("connect-src 'self'");
  expect(csp).toContain("frame-src 'self'");
  expect(csp).toContain("img-src 'self' data:");
  expect(csp).toContain("frame-ancestors 'none'");
  expect(csp).not.toContain('unsafe-inline');
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['referrer-policy']).toBe('no-referrer');
  expect(headers['x-content-type-options']).toBe('nosniff');
}

describeEachDatabase('web app serving', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
  });
  afterAll(async () => {
    await t.close();
  });

  it('has a built web app (npm run build runs vite build)', () => {
    expect(built, `no ${WEB_DIST}index.html: run \`npm run build\` first`).toBe(true);
  });

  describe.runIf(built)('pages', () => {
    it('answers every page with the app shell, uncached, with security headers', async () => {
      for (const page of [...WEB_PAGES, '/?ref=abc']) {
        const res = await t.request('GET', page);
        expect(res.statusCode, page).toBe(200);
        expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
        expect(res.headers['cache-control']).toBe('no-cache');
        expect(res.body).toContain('<div id="app"></div>');
        expect(res.body).toMatch(/<script type="module" crossorigin src="\/assets\/index-[\w-]+\.js"><\/script>/);
        // Nothing inline: the CSP allows no inline script or style.
        expect(res.body).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
        expect(res.body).not.toContain('<style');
        expectSecurityHeaders(res.headers);
      }
    });

    it('serves the hashed assets with a long cache and the right type', async () => {
      const files = readdirSync(`${WEB_DIST}assets`);
      const js = files.find((f) => f.endsWith('.js'));
      const css = files.find((f) => f.endsWith('.css'));
      const jsRes = await t.request('GET', `/assets/${js}`);
      expect(jsRes.statusCode).toBe(200);
      expect(jsRes.headers['content-type']).toMatch(/^(text|application)\/javascript/);
      expect(jsRes.headers['cache-control']).toContain('immutable');
      expect(jsRes.body.length).toBeGreaterThan(1000);
      const cssRes = await t.request('GET', `/assets/${css}`);
      expect(cssRes.statusCode).toBe(200);
      expect(cssRes.headers['content-type']).toMatch(/^text\/css/);
      expectSecurityHeaders(cssRes.headers);
    });

    it('answers a missing asset with 404, not the app shell', async () => {
      const res = await t.request('GET', '/assets/nope-123.js');
      expect(res.statusCode).toBe(404);
      expect(res.body).not.toContain('<div id="app">');
    });
  });

  it('puts the security headers on API answers and errors too', async () => {
    const health = await t.request('GET', '/healthz');
    expect(health.json()).toEqual({ success: true, status: 'ok' });
    expectSecurityHeaders(health.headers);
    const unauthorized = await t.request('GET', '/api/affiliates');
    expect(unauthorized.statusCode).toBe(401);
    expect(unauthorized.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    expectSecurityHeaders(unauthorized.headers);
  });

  it('lets only our own pages frame the mail HTML view', async () => {
    const created = await t.api('POST', '/api/mailboxes', { name: 'framed' });
    expect(created.statusCode).toBe(201);
    const { address, token } = created.json().mailbox as { address: string; token: string };
    const stored = await t.api('POST', '/api/inbound', { to: address, subject: 'Hi', html: '<p>Hi</p>' });
    expect(stored.statusCode).toBe(201);
    const id = stored.json().message.id as string;
    const doc = await t.request('GET', `/mailboxes/${encodeURIComponent(address)}/messages/${id}/html?token=${encodeURIComponent(token)}`);
    expect(doc.statusCode).toBe(200);
    expect(doc.body).toContain('<p>Hi</p>');
    expect(doc.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(String(doc.headers['content-security-policy'])).toMatch(/^sandbox;.*; frame-ancestors 'self'$/);
    // Everything else stays unframeable.
    const page = await t.request('GET', '/inbox');
    expect(page.headers['x-frame-options']).toBe('DENY');
  });

  it('keeps unknown /admin/api paths as JSON errors, not the app shell', async () => {
    const res = await t.request('GET', '/admin/api/no-such-thing');
    expect([401, 404]).toContain(res.statusCode);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toMatchObject({ success: false });
    const page = await t.request('GET', '/admin/no-such-page');
    expect(page.statusCode).toBe(404);
    expect(page.json()).toMatchObject({ success: false, error: { code: 'not_found' } });
  });
});
