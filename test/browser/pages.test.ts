import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

/** Issue 24's pages (README.md#web): what people read on them, one scenario per fix. */

const DAY_MS = 86_400_000;

async function adminLogIn(page: Page, baseUrl: string, path: string): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/**
 * Pixels of the nth chart's canvas close to a colour: a line that another one covers completely has
 * none left. (uPlot draws on a canvas of our own origin, which the page may read.)
 */
async function pixelsOf(page: Page, chart: number, hex: string): Promise<number> {
  const want = [1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)) as [number, number, number];
  // runs in the page (the tests are typed without the DOM's names, hence `any`)
  // biome-ignore lint/suspicious/noExplicitAny: a canvas element, in the page
  return page.locator('.chart canvas').nth(chart).evaluate((canvas: any, [r, g, b]) => {
    const data: Uint8ClampedArray = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (Math.abs((data[i] ?? 0) - r) + Math.abs((data[i + 1] ?? 0) - g) + Math.abs((data[i + 2] ?? 0) - b) < 40) n++;
    return n;
  }, want);
}

const MAILBOXES_GREEN = '#16a34a';
const ORDERS_ORANGE = '#d97706';

describe.skipIf(!CHROMIUM)(`pages for people in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    // 'even': one mailbox and one paid order on each of three days, so its mailboxes and orders are
    // equal on every day of any range. 'multi': 3 paid orders from 2 mailboxes.
    const now = t.clock.now();
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'even', commission_rate: 10 })).statusCode).toBe(201);
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'multi' })).statusCode).toBe(201);
    let n = 0;
    const order = async (email: string, amount: number) => {
      const id = `o-${++n}`;
      expect((await t.api('POST', '/api/orders', { order_id: id, email, amount, product: 'Pro' })).statusCode).toBe(201);
      expect((await t.api('POST', '/api/orders/pay', { order_id: id })).statusCode).toBe(200);
    };
    for (const daysAgo of [5, 3, 1]) {
      t.clock.set(now - daysAgo * DAY_MS);
      const mailbox = await t.api('POST', '/api/mailboxes', { name: `even${daysAgo}`, ref_code: 'even' });
      expect(mailbox.statusCode).toBe(201);
      await order(mailbox.json().mailbox.address, 100);
    }
    t.clock.set(now);
    const first = (await t.api('POST', '/api/mailboxes', { name: 'multi1', ref_code: 'multi' })).json().mailbox.address;
    const second = (await t.api('POST', '/api/mailboxes', { name: 'multi2', ref_code: 'multi' })).json().mailbox.address;
    await order(first, 10);
    await order(first, 10);
    await order(second, 10);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it("the portal's charts: counts and money on their own scales, legends with numbers, equal series both visible", async () => {
    const client = await portalSignIn(t, 'even');
    const { context, page, errors } = await newPage(browser);
    const [name = '', value = ''] = client.cookie.split('=');
    await context.addCookies([{ name, value, url: t.baseUrl }]);
    await page.goto(`${t.baseUrl}/portal`);
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(3);
    expect(await page.locator('.chart-title').allTextContents()).toEqual(['Clicks', 'Mailboxes and paid orders', 'Commission']);
    // every legend names its series with a number (the old one read "Day: _ Clicks: _")
    const legends = page.locator('.chart-legend');
    expect(await legends.nth(1).locator('[data-series="mailboxes"]').textContent()).toBe('Mailboxes 3');
    expect(await legends.nth(1).locator('[data-series="orders"]').textContent()).toBe('Paid orders 3');
    expect(await legends.nth(2).locator('[data-series="commission"]').textContent()).toBe('Commission 30.00');
    expect((await legends.allTextContents()).join(' ')).not.toMatch(/:|--|_/);
    // mailboxes equal orders on every day: the orders line is drawn over the mailboxes line, which shows anyway
    await expect.poll(() => pixelsOf(page, 1, MAILBOXES_GREEN)).toBeGreaterThan(300);
    expect(await pixelsOf(page, 1, ORDERS_ORANGE)).toBeGreaterThan(300);
    // and the money has a chart of its own that draws (not squeezed onto the counts' scale)
    expect(await pixelsOf(page, 2, '#9333ea')).toBeGreaterThan(300);
    await screenshot(page, 'pages-portal-charts');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the admin dashboard: equal series stay apart, and orders per mailbox reads 1.50, not 150.0 %', async () => {
    const { context, page, errors } = await newPage(browser);
    await adminLogIn(page, t.baseUrl, '/admin?ref_code=even');
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(3);
    await expect.poll(() => pixelsOf(page, 1, MAILBOXES_GREEN)).toBeGreaterThan(300);
    expect(await pixelsOf(page, 1, ORDERS_ORANGE)).toBeGreaterThan(300);
    // the legend shows which line is which: solid, then dashed
    expect(await page.locator('.chart-legend').nth(1).locator('.swatch').evaluateAll((swatches) => swatches.map((e) => e.ownerDocument.defaultView?.getComputedStyle(e).borderTopStyle))).toEqual(['solid', 'dashed']);
    await screenshot(page, 'pages-admin-equal-series');

    await page.goto(`${t.baseUrl}/admin`);
    const multi = page.locator('tbody tr[data-ref="multi"]');
    await multi.waitFor();
    expect(await page.locator('thead th').allTextContents()).toContain('Orders per mailbox');
    expect(await multi.locator('[data-col="orders-per-mailbox"]').textContent()).toBe('1.50');
    expect(await page.locator('table').textContent()).not.toContain('150.0');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a page address written with percent escapes (/%61dmin) is that page, loaded once: not reloaded in a loop', async () => {
    const { context, page, errors } = await newPage(browser);
    const loads: string[] = [];
    page.on('load', () => loads.push(page.url()));
    // the service routes /%61dmin as /admin and answers it with the app: the app shows /admin's page too
    await page.goto(`${t.baseUrl}/%61dmin`);
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(loads).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('a refused mailbox name is said at the field, in words, never "Request validation failed"', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/`);
    const name = page.getByLabel('Name (optional)');
    await name.fill('bad name!');
    await page.getByRole('button', { name: 'Create this mailbox' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/^Choose a name of letters, digits and \. _ \+ -/);
    expect(await name.getAttribute('aria-invalid')).toBe('true');
    expect(await name.getAttribute('aria-describedby')).toBe(await alert.getAttribute('id'));
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).not.toMatch(/Request validation failed|must be a mailbox name|name:/);
    await screenshot(page, 'pages-landing-refused-name');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the webhook form: a test event needs a saved URL, and a refused URL is said at its field', async () => {
    const { context, page, errors } = await newPage(browser);
    await adminLogIn(page, t.baseUrl, '/admin/webhooks');
    const url = page.getByLabel('Webhook URL');
    await expect.poll(() => url.isEnabled()).toBe(true);
    // nothing saved yet: the button says why it cannot be used instead of answering "webhook_url: is not set"
    const test = page.getByRole('button', { name: 'Send test event' });
    expect(await test.isDisabled()).toBe(true);
    await page.getByText('Save a webhook URL to send a test event to it.').waitFor();

    await url.fill('ftp://hooks.example/svc');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    const refused = page.getByRole('form', { name: 'Webhook' }).getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toBe('Enter the full address of the receiver, like https://example.com/hooks/svc');
    expect(await url.getAttribute('aria-invalid')).toBe('true');

    await url.fill(`${t.baseUrl}/healthz`);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Webhook settings saved.').waitFor();
    // a new address typed but not saved: the test would go to the old one, so the page says so
    await url.fill('https://elsewhere.example/hook');
    await test.click();
    expect(await refused.textContent()).toBe('Save the webhook URL first: the test event goes to the saved address.');
    expect((await page.locator('main').textContent()) ?? '').not.toMatch(/Request validation failed|webhook_url|is not set/);
    await screenshot(page, 'pages-webhook-unsaved-test');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creating an existing affiliate shows the refusal alone, not beside the earlier "created"', async () => {
    const { context, page, errors } = await newPage(browser);
    await adminLogIn(page, t.baseUrl, '/admin/affiliates');
    const refCode = page.getByLabel('ref_code');
    await refCode.fill('twice');
    await page.getByRole('button', { name: 'Create affiliate' }).click();
    const created = page.getByText(/^Affiliate twice created\./);
    await created.waitFor();
    await refCode.fill('twice');
    await page.getByRole('button', { name: 'Create affiliate' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('An affiliate with this ref code exists already. Choose another one.');
    expect(await refCode.getAttribute('aria-invalid')).toBe('true');
    expect(await created.count()).toBe(0);
    expect(await page.locator('.alert-ok').count()).toBe(0);
    await screenshot(page, 'pages-affiliate-exists');
    expect(errors).toEqual([]);
    await context.close();
  });

  it("the portal's withdrawals page asks for payout details only until they are saved", async () => {
    const client = await portalSignIn(t, 'multi');
    const { context, page, errors } = await newPage(browser);
    const [name = '', value = ''] = client.cookie.split('=');
    await context.addCookies([{ name, value, url: t.baseUrl }]);
    await page.goto(`${t.baseUrl}/portal/withdrawals`);
    const payoutTo = page.getByTestId('payout-to');
    await expect.poll(() => payoutTo.textContent()).toMatch(/^No payout details yet/);

    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const payout = page.getByRole('form', { name: 'Payout', exact: true });
    // docs/api.md#payouts: the fields of the chosen method
    await expect.poll(() => payout.getByLabel('Payout method').isEnabled()).toBe(true);
    await payout.getByLabel('Payout method').selectOption('paypal');
    await payout.getByLabel('Email').fill('multi@example.com');
    await payout.getByLabel('Current password').fill(PORTAL_PASSWORD);
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    await payout.getByText('Saved.').waitFor();

    // back without a reload: the page reads them again
    await page.getByRole('navigation').getByRole('link', { name: 'Withdrawals' }).click();
    await expect.poll(() => payoutTo.textContent()).toBe('Paid toPayPal: multi@example.comChange');
    expect(await page.getByText(/No payout details|Add where to send/).count()).toBe(0);
    await screenshot(page, 'pages-portal-withdrawals-paid-to');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('with sign-up closed the portal says so instead of showing the form, and offers no "Sign up"', async () => {
    const admin = await t.admin();
    const { context, page, errors } = await newPage(browser);
    const signInPage = async () => {
      await page.goto(`${t.baseUrl}/portal`);
      // shown once the service has said whether sign-up is open, with the link or without it
      await page.getByText('Invited? Open the link you were sent.').waitFor();
    };

    // closed (the default)
    await signInPage();
    expect(await page.getByRole('link', { name: 'Sign up' }).count()).toBe(0);
    await page.goto(`${t.baseUrl}/portal/signup`);
    await page.getByRole('heading', { name: 'Sign-up is closed', level: 1 }).waitFor();
    expect(await page.getByLabel('Password').count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Sign up' }).count()).toBe(0);
    await screenshot(page, 'pages-portal-signup-closed');

    // open: the link and the form
    expect((await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' })).statusCode).toBe(200);
    await signInPage();
    await page.getByRole('link', { name: 'Sign up' }).click();
    // the form itself, not its heading: "Checking whether sign-up is open" shows the same heading, and
    // closing sign-up before that check answers would rightly show "Sign-up is closed" instead
    await page.getByRole('form', { name: 'Sign up' }).getByLabel('Ref code').waitFor();
    expect(await page.getByText('approved by the team').count()).toBe(0);

    // closed while the form is open: submitting says so, in the same words
    expect((await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' })).statusCode).toBe(200);
    await page.getByLabel('Ref code').fill('latecomer');
    await page.getByLabel('Name').fill('Late Comer');
    await page.getByLabel('Email').fill('late@example.com');
    await page.getByLabel('Password').fill('late-password-1');
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByRole('heading', { name: 'Sign-up is closed', level: 1 }).waitFor();

    // review: the form says new affiliates are approved first
    expect((await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'review' })).statusCode).toBe(200);
    await page.goto(`${t.baseUrl}/portal/signup`);
    await page.getByText('New affiliates are approved by the team before they can sign in.').waitFor();
    expect((await admin.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' })).statusCode).toBe(200);
    expect(errors).toEqual([]);
    await context.close();
  });
});
