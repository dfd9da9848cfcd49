import { afterAll, beforeAll, expect, it } from 'vitest';
import { writeSetting } from '../../src/platform/settings/settings.repository.js';
import { describeEachDatabase } from '../helpers/databases.js';
import { addAffiliate } from '../helpers/ledger-fixtures.js';
import { type AdminClient, startTestService, type TestService } from '../helpers/service.js';

const CONTROL = ['\r\n', '\n', '\r', '\t', '\u0001', '\u001b', '\u007f', '\u0085', '\u009f'];

describeEachDatabase('URLs in settings (CONTRACT §11)', (dialect) => {
  let t: TestService;
  let admin: AdminClient;
  beforeAll(async () => {
    t = await startTestService(dialect);
    admin = await t.admin();
    await addAffiliate(t, 'alpha');
  });
  afterAll(() => t.close());

  /** Writes a landing_url the API would refuse, as an older version or a hand edit could have left it. */
  async function storeLandingUrl(value: unknown): Promise<void> {
    await writeSetting(t.service.ctx.db, 'landing_url', value, t.clock.now());
    t.clock.advance(1001); // past the settings cache
  }

  for (const field of ['landing_url', 'webhook_url'] as const) {
    it(`refuses a ${field} with a control character anywhere, even at the ends, and stores nothing`, async () => {
      const before = (await admin.call('GET', '/admin/api/settings')).json().settings;
      for (const c of CONTROL) {
        for (const value of [`https://shop.example/a${c}b`, `https://shop.example/${c}`, `${c}https://shop.example/`, `https://shop.exa${c}mple/`]) {
          const res = await admin.call('PATCH', '/admin/api/settings', { [field]: value });
          expect(res.statusCode, JSON.stringify(value)).toBe(400);
          expect(res.json()).toEqual({
            success: false,
            error: { code: 'invalid_request', message: expect.any(String), details: [{ field, message: 'must not contain control characters (CR, LF, TAB, ...)' }] },
          });
        }
      }
      expect((await admin.call('GET', '/admin/api/settings')).json().settings).toEqual(before);
    });

    it(`refuses a ${field} that is not http(s)`, async () => {
      for (const value of ['ftp://shop.example/', 'javascript:alert(1)', 'data:text/html,hi', 'mailto:a@b.example', 'file:///etc/passwd', '//shop.example/', 'https://']) {
        const res = await admin.call('PATCH', '/admin/api/settings', { [field]: value });
        expect(res.statusCode, value).toBe(400);
        expect(res.json().error.details).toEqual([{ field, message: 'must be an absolute http(s) URL' }]);
      }
    });
  }

  it('still accepts http(s) URLs, trimming spaces around them', async () => {
    const res = await admin.call('PATCH', '/admin/api/settings', { landing_url: '  https://shop.example/start?x=1  ', webhook_url: 'http://127.0.0.1:9/hook' });
    expect(res.statusCode).toBe(200);
    expect(res.json().settings).toMatchObject({ landing_url: 'https://shop.example/start?x=1', webhook_url: 'http://127.0.0.1:9/hook' });
    expect((await t.request('GET', '/go/alpha')).headers.location).toBe('https://shop.example/start?x=1&ref=alpha');
  });

  it('/go never answers 500 for a stored landing URL: a bad one falls back to the default landing page', async () => {
    for (const stored of ['https://shop.example/\r\nSet-Cookie: evil=1', 'not a url', 'javascript:alert(1)', 42, null, '']) {
      await storeLandingUrl(stored);
      const known = await t.request('GET', '/go/alpha');
      expect(known.statusCode, JSON.stringify(stored)).toBe(302);
      expect(known.headers.location).toBe('http://svc.test.local/?ref=alpha');
      expect(known.headers['set-cookie']).toEqual(expect.stringContaining('svc_ref=alpha'));
      const unknown = await t.request('GET', '/go/nobody');
      expect(unknown.statusCode).toBe(302);
      expect(unknown.headers.location).toBe('http://svc.test.local/');
      expect(unknown.headers['set-evil']).toBeUndefined();
    }
  });

  it('/go redirects to a non-ASCII landing URL in its ASCII form, for known and unknown codes', async () => {
    const res = await admin.call('PATCH', '/admin/api/settings', { landing_url: 'https://日本.example/ページ?q=値#目' });
    expect(res.statusCode).toBe(200);
    const known = await t.request('GET', '/go/alpha');
    expect(known.statusCode).toBe(302);
    expect(known.headers.location).toBe('https://xn--wgv71a.example/%E3%83%9A%E3%83%BC%E3%82%B8?q=%E5%80%A4&ref=alpha#%E7%9B%AE');
    const unknown = await t.request('GET', '/go/nobody');
    expect(unknown.statusCode).toBe(302);
    expect(unknown.headers.location).toBe('https://xn--wgv71a.example/%E3%83%9A%E3%83%BC%E3%82%B8?q=%E5%80%A4#%E7%9B%AE');
    await admin.call('PATCH', '/admin/api/settings', { landing_url: 'http://svc.test.local/' });
  });
});
