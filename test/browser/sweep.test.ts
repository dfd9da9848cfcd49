import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEB_PAGES } from '../../src/platform/web/web.routes.js';
import { ADMIN_PAGES, APP_PATHS, PORTAL_ENTRY_PAGES, PORTAL_PAGES, PUBLIC_PAGES } from '../../web/src/routes.js';
import { CHROMIUM, dataLoaded, launchBrowser, type LiveService, newPage, PHONE, screenshot, startLiveService } from '../helpers/browser.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

/**
 * README.md#web: every page of the web app, the not-found page included, is styled and works under its
 * CSP with no console error, on a desktop and on a phone. The pages come from the app's own route table
 * (web/src/routes.ts), so a new page is swept without anyone remembering to add it here. Each visit
 * leaves a screenshot under .tmp/screens/sweep-* for a person to look at.
 */

const DESKTOP = { width: 1280, height: 800 } as const;
const DAY_MS = 86_400_000;

interface Visit {
  /** The screenshot's name. */
  readonly name: string;
  readonly path: string;
  /** The page's own heading: it shows once the page has rendered. */
  readonly heading: string | RegExp;
  /** A path of the route table this visit covers (the sign-in forms and the not-found pages cover none). */
  readonly covers?: string;
  readonly notFound?: boolean;
}

/** Whether a page is done: its heading shows, its data has arrived, no spinner turns, every chart has drawn. */
async function settled(page: Page, heading: string | RegExp): Promise<void> {
  await page.getByRole('heading', { name: heading, level: 1 }).first().waitFor();
  await dataLoaded(page);
  await expect.poll(() => page.locator('.loading, [aria-busy="true"]').count(), { timeout: 10_000 }).toBe(0);
  await expect.poll(() => page.locator('.chart:not(:has(canvas))').count()).toBe(0);
  await page.evaluate('document.fonts.ready.then(() => undefined)');
}

/** How the page looks to the sweep: styled by the app, nothing wider than the screen. */
async function looks(page: Page): Promise<{ font: string; appSheet: boolean; rules: number; overflow: number }> {
  // runs in the page (the tests are typed without the DOM's names)
  return page.evaluate(`(() => {
    const sheets = [...document.styleSheets].filter((s) => s.href !== null && /\\/assets\\/index-[\\w-]+\\.css$/.test(new URL(s.href).pathname));
    return {
      font: getComputedStyle(document.body).fontFamily,
      appSheet: sheets.length > 0,
      rules: sheets.reduce((n, s) => n + s.cssRules.length, 0),
      overflow: document.documentElement.scrollWidth - window.innerWidth,
    };
  })()`);
}

describe.skipIf(!CHROMIUM)(`every page in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;
  let inbox: { address: string; token: string; created_at: string };
  let messageId = '';

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    // Ten days of an affiliate's traffic, so the charts and tables have something to draw: on some days
    // two series are equal (clicks = mailboxes, mailboxes = orders), which must still show as two lines.
    const now = t.clock.now();
    t.clock.set(now - 9 * DAY_MS);
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'alpha', name: 'Alpha Blog', commission_rate: 10 })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'beta' })).statusCode).toBe(201);
    const perDay = [
      [3, 2, 1],
      [2, 2, 2],
      [5, 3, 1],
      [1, 1, 1],
      [0, 0, 0],
      [4, 2, 2],
      [6, 3, 0],
      [2, 2, 3],
      [3, 1, 1],
      [2, 2, 2],
    ] as const;
    let n = 0;
    for (const [clicks, mailboxes, orders] of perDay) {
      for (let i = 0; i < clicks; i++) {
        const res = await t.service.app.inject({ method: 'GET', url: '/go/alpha', remoteAddress: `10.0.${n % 250}.${i + 1}` });
        expect(res.statusCode).toBe(302);
      }
      const addresses: string[] = [];
      for (let i = 0; i < mailboxes; i++) {
        const created = await t.api('POST', '/api/mailboxes', { name: `buyer${++n}`, ref_code: 'alpha' });
        expect(created.statusCode).toBe(201);
        addresses.push(created.json().mailbox.address);
      }
      for (let i = 0; i < orders; i++) {
        const orderId = `ord-${++n}`;
        const email = addresses[i % Math.max(1, addresses.length)] ?? `buyer${n - 1}@svc.test`;
        expect((await t.api('POST', '/api/orders', { order_id: orderId, email, amount: 40 + i * 15, product: 'Pro plan' })).statusCode).toBe(201);
        expect((await t.api('POST', '/api/orders/pay', { order_id: orderId })).statusCode).toBe(200);
      }
      t.clock.advance(DAY_MS);
    }
    t.clock.set(now);
    // paid commission to withdraw from, a withdrawal, a rule, and a portal account with payout details
    const commissions = (await t.api('GET', '/api/commissions?ref_code=alpha&limit=5')).json().items as { id: string }[];
    for (const c of commissions) expect((await t.api('POST', `/api/commissions/${c.id}/mark-paid`)).statusCode).toBe(200);
    expect((await t.api('PATCH', '/api/affiliates/alpha', { payout_details: { method: 'paypal', email: 'alpha@example.com' } })).statusCode).toBe(200);
    expect((await t.api('POST', '/api/withdrawals', { ref_code: 'alpha', amount: 5 })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/commission-rules', { product: 'Pro plan', rate: 15 })).statusCode).toBe(201);
    const portal = await portalSignIn(t, 'alpha');
    expect((await portal.call('PATCH', '/portal/api/me', { payout_details: { method: 'sepa', iban: 'DE89 3704 0044 0532 0130 00', account_holder: 'Alpha' }, current_password: PORTAL_PASSWORD })).statusCode).toBe(200);
    // a visitor's mailbox with mail in it, for /inbox
    const visitor = await t.request('POST', '/mailboxes', { name: 'visitor' });
    expect(visitor.statusCode).toBe(201);
    inbox = visitor.json().mailbox;
    for (const subject of ['Your code is 482913', 'Welcome aboard']) {
      const html = `<h1>${subject}</h1><p>Thanks for signing up.</p><p><a href="https://shop.example/">Visit the shop</a></p>`;
      const res = await t.api('POST', '/api/inbound', { to: inbox.address, from: 'shop@example.com', subject, text: `${subject}. Thanks for signing up.`, html });
      expect(res.statusCode).toBe(201);
      messageId = res.json().message.id;
    }
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("sweeps the app's own route table, which is exactly what the service serves", () => {
    expect([...APP_PATHS].sort()).toEqual([...WEB_PAGES].sort());
    expect(new Set(APP_PATHS).size).toBe(APP_PATHS.length);
  });

  for (const [size, mobile] of [
    ['desktop', false],
    ['phone', true],
  ] as const) {
    it(`shows every page styled, without a console error, on a ${size}`, { timeout: 240_000 }, async () => {
      const { context, page, errors } = await newPage(browser, { mobile, viewport: mobile ? PHONE : DESKTOP });
      // an asset that fails to load leaves a page unstyled or dead: as much a failure as a console error
      page.on('response', (res) => {
        if (new URL(res.url()).pathname.startsWith('/assets/') && res.status() >= 400) errors.push(`asset ${res.status()}: ${res.url()}`);
      });
      page.on('requestfailed', (req) => {
        if (new URL(req.url()).pathname.startsWith('/assets/')) errors.push(`asset failed: ${req.url()}`);
      });
      // the visitor's mailbox, as the landing page stores it (not in the mail's sandboxed frame, which has no storage)
      await context.addInitScript(`try { localStorage.setItem('svc_mailbox', ${JSON.stringify(JSON.stringify(inbox))}); } catch {}`);

      const covered = new Set<string>();
      const visit = async (v: Visit) => {
        const before = errors.length;
        const res = await page.goto(`${t.baseUrl}${v.path}`);
        expect(res?.status(), v.path).toBe(v.notFound ? 404 : 200);
        await settled(page, v.heading);
        const look = await looks(page);
        await screenshot(page, `sweep-${v.name}-${size}`);
        expect(look.appSheet, `${v.path}: the app's stylesheet is loaded`).toBe(true);
        expect(look.rules, `${v.path}: the app's stylesheet has rules`).toBeGreaterThan(50);
        expect(look.font, `${v.path}: the body is in the app's font, not the browser's default`).toMatch(/^system-ui,/);
        expect(look.overflow, `${v.path}: nothing wider than the screen`).toBeLessThanOrEqual(1);
        expect(errors.slice(before), v.path).toEqual([]);
        if (v.covers) covered.add(v.covers);
      };

      // signed out: the public pages, the portal's entry pages, the two sign-in forms, the not-found pages
      for (const p of PUBLIC_PAGES) {
        await visit({ name: p.path === '/' ? 'landing' : p.path.slice(1), path: p.path, heading: p.path === '/' ? p.label : /visitor@/, covers: p.path });
      }
      // a message open in the inbox: its HTML in a sandboxed frame of our own origin, under the same CSP
      await visit({ name: 'inbox-message', path: `/inbox?m=${messageId}`, heading: /visitor@/ });
      await page.frameLocator('iframe').getByRole('heading', { name: 'Welcome aboard' }).waitFor();
      await screenshot(page, `sweep-inbox-message-${size}`);
      for (const p of PORTAL_ENTRY_PAGES) {
        const headings: Record<string, string> = {
          '/portal/signup': 'Sign-up is closed',
          '/portal/accept': 'Welcome to svc affiliates',
          '/portal/forgot': 'Forgot your password?',
          '/portal/reset': 'Choose a new password',
        };
        const withToken = p.path === '/portal/accept' || p.path === '/portal/reset';
        await visit({ name: `portal-${p.path.split('/').pop()}`, path: withToken ? `${p.path}#token=from-the-link` : p.path, heading: headings[p.path] ?? p.label, covers: p.path });
      }
      await visit({ name: 'admin-login', path: '/admin/settings', heading: 'svc admin' });
      await visit({ name: 'portal-sign-in', path: '/portal/withdrawals', heading: 'svc affiliates' });
      for (const path of ['/no/such/page', '/admin/no-such-page', '/portal/no-such-page']) {
        await visit({ name: `not-found${path.split('/')[1] === 'no' ? '' : `-${path.split('/')[1]}`}`, path, heading: 'Page not found', notFound: true });
      }

      // the admin area, signed in
      await page.goto(`${t.baseUrl}/admin`);
      await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Log in' }).click();
      await page.getByRole('button', { name: 'Log out' }).waitFor();
      for (const p of ADMIN_PAGES) await visit({ name: `admin-${p.path.split('/')[2] ?? 'dashboard'}`, path: p.path, heading: p.label, covers: p.path });

      // the affiliate portal, signed in
      await page.goto(`${t.baseUrl}/portal`);
      await page.getByLabel('Ref code').fill('alpha');
      await page.getByLabel('Password').fill(PORTAL_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('button', { name: 'Sign out' }).waitFor();
      for (const p of PORTAL_PAGES) await visit({ name: `portal-${p.path.split('/')[2] ?? 'dashboard'}`, path: p.path, heading: p.label, covers: p.path });

      // every page of the route table was seen with its own content
      expect([...covered].sort()).toEqual([...APP_PATHS].sort());
      expect(errors).toEqual([]);
      await context.close();
    });
  }
});
