import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeEachDatabase } from '../helpers/databases.js';
import { startTestService, type TestService } from '../helpers/service.js';

function setCookies(res: { headers: Record<string, unknown> }): string[] {
  const raw = res.headers['set-cookie'];
  return raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
}

const BROWSER = 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36';

describeEachDatabase('/go link', (dialect) => {
  let t: TestService;
  beforeAll(async () => {
    t = await startTestService(dialect);
    for (const ref_code of ['alice', 'bob', 'gone', 'Mixed_Case-1']) {
      expect((await t.api('POST', '/api/affiliates', { ref_code })).statusCode).toBe(201);
    }
    const admin = await t.admin();
    expect((await admin.call('PATCH', '/admin/api/affiliates/gone', { status: 'disabled' })).statusCode).toBe(200);
  });
  afterAll(async () => {
    await t.close();
  });

  const clicksOf = (ref: string) => t.service.ctx.db.selectFrom('clicks').selectAll().where('ref_code', '=', ref).orderBy('id').execute();
  const clickCount = async () => Number((await t.service.ctx.db.selectFrom('clicks').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n);
  // summed over the counter stripes (batches in flight at once add to stripes of their own)
  const dailyClicks = async (ref: string) =>
    (
      await t.service.ctx.db
        .selectFrom('daily_stats')
        .select((eb) => ['day', eb.fn.sum<number>('clicks').as('clicks')])
        .where('ref_code', '=', ref)
        .groupBy('day')
        .orderBy('day')
        .execute()
    )
      .map((r) => ({ day: r.day, clicks: Number(r.clicks) }))
      .filter((r) => r.clicks > 0);

  it('records a click, sets svc_ref and redirects to the landing page with ref', async () => {
    const res = await t.request('GET', '/go/alice', undefined, { 'user-agent': BROWSER, referer: 'https://blog.example/post', 'x-forwarded-for': '1.2.3.4' });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://svc.test.local/?ref=alice');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(setCookies(res)).toEqual(['svc_ref=alice; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax']);
    expect(res.body).toBe('');
    const clicks = await clicksOf('alice');
    expect(clicks).toHaveLength(1);
    expect(clicks[0]).toMatchObject({ ref_code: 'alice', created_at: t.clock.now(), user_agent: BROWSER, referer: 'https://blog.example/post', network_click_ids: null });
    // hashed, salted: neither the address nor its plain sha256
    expect(clicks[0]?.ip_hash).toMatch(/^[0-9a-f]{64}$/);
    expect(clicks[0]?.ip_hash).not.toContain('127.0.0.1');
    expect(await dailyClicks('alice')).toEqual([{ day: '2026-01-15', clicks: 1 }]);
  });

  it('hashes the same IP to the same value and keeps the ref_code case', async () => {
    await t.request('GET', '/go/Mixed_Case-1');
    await t.request('GET', '/go/Mixed_Case-1');
    const clicks = await clicksOf('Mixed_Case-1');
    expect(clicks).toHaveLength(2);
    expect(clicks[0]?.ip_hash).toBe(clicks[1]?.ip_hash);
    expect(clicks[0]?.user_agent).toBe('lightMyRequest');
  });

  it('takes the Max-Age from the cookie_lifetime_days setting', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', { cookie_lifetime_days: 3 });
    const res = await t.request('GET', '/go/bob');
    expect(setCookies(res)).toEqual(['svc_ref=bob; Path=/; Max-Age=259200; HttpOnly; SameSite=Lax']);
    await admin.call('PATCH', '/admin/api/settings', { cookie_lifetime_days: 30 });
  });

  it('adds ref to a landing URL that has its own query, replacing a ref already there', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/settings', { landing_url: 'https://land.example/start?utm_source=x&ref=old#top' });
    const res = await t.request('GET', '/go/bob');
    expect(res.headers.location).toBe('https://land.example/start?utm_source=x&ref=bob#top');
    const unknown = await t.request('GET', '/go/nobody');
    expect(unknown.headers.location).toBe('https://land.example/start?utm_source=x#top');
    await admin.call('PATCH', '/admin/api/settings', { landing_url: 'http://svc.test.local/' });
  });

  it('redirects unknown and disabled codes to the landing page without ref, cookie or click', async () => {
    const before = await clickCount();
    for (const code of ['nobody', 'gone', 'ALICE']) {
      const res = await t.request('GET', `/go/${code}`);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('http://svc.test.local/');
      expect(setCookies(res)).toEqual([]);
    }
    expect(await clickCount()).toBe(before);
    expect(await dailyClicks('gone')).toEqual([]);
  });

  it.each(['//evil.com', '%2F%2Fevil.com', '%2f%2fevil.com', 'https:%2F%2Fevil.com', '..%2F..%2Fevil', '%5C%5Cevil.com', 'alice%0d%0aLocation:%20http://evil.com', '', 'alice/extra', '@evil.com', 'a'.repeat(65)])(
    'never redirects anywhere but the landing page for /go/%s',
    async (code) => {
      const before = await clickCount();
      const res = await t.request('GET', `/go/${code}`);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('http://svc.test.local/');
      expect(setCookies(res)).toEqual([]);
      expect(await clickCount()).toBe(before);
    },
  );

  it('sends /go paths that are not valid percent-encoding to the landing page, uncounted', async () => {
    const before = await clickCount();
    for (const path of ['/go/%ff', '/go/alice%', '/go/%E0%A4%A']) {
      const res = await t.request('GET', path);
      expect(res.statusCode).toBe(302);
      expect(res.headers.location).toBe('http://svc.test.local/');
      expect(setCookies(res)).toEqual([]);
    }
    expect(await clickCount()).toBe(before);
  });

  it('counts /go/<code>/ with a trailing slash as the code', async () => {
    const before = (await clicksOf('bob')).length;
    const res = await t.request('GET', '/go/bob/');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://svc.test.local/?ref=bob');
    expect(setCookies(res)[0]).toMatch(/^svc_ref=bob;/);
    expect(await clicksOf('bob')).toHaveLength(before + 1);
  });

  it('answers HEAD like GET but records nothing', async () => {
    const before = await clickCount();
    const res = await t.request('HEAD', '/go/alice', undefined, { 'user-agent': BROWSER });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://svc.test.local/?ref=alice');
    expect(setCookies(res)).toEqual(['svc_ref=alice; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax']);
    expect(await clickCount()).toBe(before);
  });

  it.each([
    'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)',
    'Mozilla/5.0 (compatible; bingbot/2.0; +http://www.bing.com/bingbot.htm)',
    'Slackbot-LinkExpanding 1.0 (+https://api.slack.com/robots)',
    'Slack-ImgProxy (+https://api.slack.com/robots)',
    'facebookexternalhit/1.1 (+http://www.facebook.com/externalhit_uatext.php)',
    'Twitterbot/1.0',
    'LinkedInBot/1.0 (compatible; Mozilla/5.0; Apache-HttpClient +http://www.linkedin.com)',
    'Mozilla/5.0 (compatible; Discordbot/2.0; +https://discordapp.com)',
    'TelegramBot (like TwitterBot)',
    'WhatsApp/2.23.20.0 A',
    'Mozilla/5.0 (compatible; YandexBot/3.0)',
    'Mozilla/5.0 (compatible; SemrushBot/7~bl)',
    'Some Web Crawler 1.0',
    'Mozilla/5.0 (Windows NT 6.1) SkypeUriPreview Preview/0.5',
    'Mozilla/5.0 (compatible; Applebot/0.1)',
  ])('redirects but does not count the bot %s', async (ua) => {
    const before = await clickCount();
    const res = await t.request('GET', '/go/alice', undefined, { 'user-agent': ua });
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://svc.test.local/?ref=alice');
    expect(await clickCount()).toBe(before);
  });

  it.each([
    'curl/8.5.0',
    'Wget/1.21.4',
    'python-requests/2.31.0',
    'node-fetch/1.0',
    'axios/1.6.0',
    'Go-http-client/1.1',
    'okhttp/4.12.0',
    BROWSER,
    'Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1',
    'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:127.0) Gecko/20100101 Firefox/127.0',
    // batches travel as one JSON parameter (insertClicks): quotes, backslashes, a tab and Latin-1 come back as sent
    'odd/1.0 "quoted" back\\slash\ttab caf\u00e9 [1,2] {"a":null}',
  ])('counts %s', async (ua) => {
    const before = await clickCount();
    const res = await t.request('GET', '/go/alice', undefined, { 'user-agent': ua });
    expect(res.statusCode).toBe(302);
    expect(await clickCount()).toBe(before + 1);
    const last = (await clicksOf('alice')).at(-1);
    expect(last?.user_agent).toBe(ua);
  });

  it('keeps network click ids with the click and carries them to the referral', async () => {
    const res = await t.request('GET', '/go/bob?awc=AW123&cjevent=cj-9&irclickid=ir_x&clickid=c1&transaction_id=tx7&utm_source=ignored&ref=evil');
    expect(res.statusCode).toBe(302);
    expect(res.headers.location).toBe('http://svc.test.local/?ref=bob');
    const clicks = await clicksOf('bob');
    const last = clicks.at(-1);
    expect(JSON.parse(last?.network_click_ids ?? 'null')).toEqual({ awc: 'AW123', cjevent: 'cj-9', irclickid: 'ir_x', clickid: 'c1', transaction_id: 'tx7' });
    const cookies = setCookies(res);
    expect(cookies).toEqual([
      'svc_ref=bob; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax',
      `svc_click=${last?.id}; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax`,
    ]);

    // the browser comes back with both cookies and creates a mailbox on the landing page
    const cookieHeader = cookies.map((c) => c.split(';')[0]).join('; ');
    const mb = await t.request('POST', '/mailboxes', { name: 'fromclick' }, { cookie: cookieHeader });
    expect(mb.statusCode).toBe(201);
    expect(mb.json().mailbox.ref_code).toBe('bob');
    const referral = await t.service.ctx.db.selectFrom('referrals').selectAll().where('mailbox_address', '=', 'fromclick@svc.test').executeTakeFirstOrThrow();
    expect(referral).toMatchObject({ ref_code: 'bob', source: 'cookie' });
    expect(JSON.parse(referral.network_click_ids ?? 'null')).toEqual({ awc: 'AW123', cjevent: 'cj-9', irclickid: 'ir_x', clickid: 'c1', transaction_id: 'tx7' });

    // a click id of another affiliate's click is not carried over
    const other = await t.request('POST', '/mailboxes', { name: 'mismatch', ref: 'alice' }, { cookie: `svc_click=${last?.id}` });
    expect(other.json().mailbox.ref_code).toBe('alice');
    const r2 = await t.service.ctx.db.selectFrom('referrals').selectAll().where('mailbox_address', '=', 'mismatch@svc.test').executeTakeFirstOrThrow();
    expect(r2.network_click_ids).toBeNull();
  });

  it('sets no svc_click cookie when the link carries no network ids', async () => {
    const res = await t.request('GET', '/go/bob?utm_campaign=x');
    expect(setCookies(res)).toEqual(['svc_ref=bob; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax']);
    expect((await clicksOf('bob')).at(-1)?.network_click_ids).toBeNull();
  });

  it('stops counting as soon as the affiliate is disabled and resumes when re-enabled', async () => {
    const admin = await t.admin();
    await admin.call('PATCH', '/admin/api/affiliates/Mixed_Case-1', { status: 'disabled' });
    const off = await t.request('GET', '/go/Mixed_Case-1');
    expect(off.headers.location).toBe('http://svc.test.local/');
    expect(setCookies(off)).toEqual([]);
    await admin.call('PATCH', '/admin/api/affiliates/Mixed_Case-1', { status: 'active' });
    const on = await t.request('GET', '/go/Mixed_Case-1');
    expect(on.headers.location).toBe('http://svc.test.local/?ref=Mixed_Case-1');
    expect(await clicksOf('Mixed_Case-1')).toHaveLength(3);
  });

  it('counts clicks on the day they happen and stores every one of many concurrent clicks', async () => {
    t.clock.advance(24 * 3600 * 1000);
    const n = 120;
    const results = await Promise.all(Array.from({ length: n }, () => t.request('GET', '/go/alice', undefined, { 'user-agent': 'curl/8' })));
    expect(results.every((r) => r.statusCode === 302 && r.headers.location === 'http://svc.test.local/?ref=alice')).toBe(true);
    const days = await dailyClicks('alice');
    const total = (await clicksOf('alice')).length;
    expect(days.find((d) => d.day === '2026-01-16')).toEqual({ day: '2026-01-16', clicks: n });
    expect(days.reduce((s, d) => s + d.clicks, 0)).toBe(total);
  });

  it('adds Secure for an https base URL', async () => {
    const secure = await startTestService(dialect, { env: { SVC_BASE_URL: 'https://svc.example' } });
    try {
      await secure.api('POST', '/api/affiliates', { ref_code: 'alice' });
      const res = await secure.request('GET', '/go/alice');
      expect(res.headers.location).toBe('https://svc.example/?ref=alice');
      expect(setCookies(res)).toEqual(['svc_ref=alice; Path=/; Max-Age=2592000; HttpOnly; SameSite=Lax; Secure']);
    } finally {
      await secure.close();
    }
  });

  describe('across instances', () => {
    it('stores every click sent concurrently to two instances, counters included', async () => {
      const other = await t.sibling();
      try {
        await t.api('POST', '/api/affiliates', { ref_code: 'busy' });
        t.clock.set(Date.UTC(2026, 0, 20, 23, 59, 59));
        const first = Array.from({ length: 60 }, (_, i) => (i % 2 ? other : t).request('GET', '/go/busy', undefined, { 'user-agent': 'curl/8' }));
        const mailboxes = Array.from({ length: 10 }, (_, i) => (i % 2 ? other : t).api('POST', '/api/mailboxes', { ref_code: 'busy' }));
        const answers = await Promise.all([...first, ...mailboxes]);
        expect(answers.filter((r) => r.statusCode === 302)).toHaveLength(60);
        expect(answers.filter((r) => r.statusCode === 201)).toHaveLength(10);
        t.clock.advance(1000); // next day for both (shared clock)
        const second = await Promise.all(Array.from({ length: 40 }, (_, i) => (i % 2 ? other : t).request('GET', '/go/busy')));
        expect(second.every((r) => r.statusCode === 302)).toBe(true);

        expect(await clicksOf('busy')).toHaveLength(100);
        expect(await dailyClicks('busy')).toEqual([
          { day: '2026-01-20', clicks: 60 },
          { day: '2026-01-21', clicks: 40 },
        ]);
        const summary = (await t.api('GET', '/api/affiliate/summary?ref_code=busy')).json().summary[0];
        expect(summary).toMatchObject({ ref_code: 'busy', clicks: 100, mailboxes: 10, conversion_rate: 0.1 });
      } finally {
        await other.close();
      }
    });

    it('sees an affiliate created on another instance and shares the IP salt', async () => {
      const other = await t.sibling();
      try {
        await other.api('POST', '/api/affiliates', { ref_code: 'fromsibling' });
        const res = await t.request('GET', '/go/fromsibling');
        expect(res.headers.location).toBe('http://svc.test.local/?ref=fromsibling');
        await other.request('GET', '/go/fromsibling');
        const clicks = await clicksOf('fromsibling');
        expect(clicks).toHaveLength(2);
        expect(clicks[0]?.ip_hash).toBe(clicks[1]?.ip_hash);
      } finally {
        await other.close();
      }
    });
  });
});
