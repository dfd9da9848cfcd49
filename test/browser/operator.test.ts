import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

const DAY = 86_400_000;

function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

async function logIn(page: Page, baseUrl: string, path: string, username = 'admin', password = TEST_ADMIN_PASSWORD): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('User name').fill(username);
  await page.getByLabel('Password', { exact: true }).fill(password);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

describe.skipIf(!CHROMIUM)(`an operator's first hour in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;
  const now = Date.now();

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    // Three affiliates with clicks, mailboxes and paid orders on many days of the last 30, and less in
    // the 30 days before (the previous period); one paid-out and one requested withdrawal.
    const api = async (method: string, url: string, body?: unknown) => {
      const res = await t.api(method, url, body);
      if (res.statusCode >= 300) throw new Error(`${method} ${url}: ${res.statusCode} ${res.body}`);
      return res.json();
    };
    t.clock.set(now - 60 * DAY);
    for (const [ref_code, name] of [
      ['spring', 'Spring Deals'],
      ['techblog', 'Tech Blog'],
      ['newsletter', null],
    ] as const) {
      await api('POST', '/api/affiliates', name ? { ref_code, name } : { ref_code });
      t.clock.advance(1000);
    }
    let n = 0;
    for (let daysAgo = 55; daysAgo >= 0; daysAgo -= 1) {
      t.clock.set(now - daysAgo * DAY);
      const recent = daysAgo < 30;
      for (const [ref, weight] of [
        ['spring', 3],
        ['techblog', 2],
        ['newsletter', 1],
      ] as const) {
        const clicks = ((daysAgo * 7 + weight * 3) % 5) + weight * (recent ? 2 : 1);
        for (let i = 0; i < clicks; i++) await t.request('GET', `/go/${ref}`, undefined, { 'user-agent': 'Mozilla/5.0 test' });
        if ((daysAgo + weight) % (recent ? 2 : 4) === 0) {
          const { mailbox } = await api('POST', '/api/mailboxes', { ref_code: ref });
          if ((daysAgo + weight) % (recent ? 4 : 8) === 0) {
            n++;
            await api('POST', '/api/orders', { order_id: `seed-${n}`, email: mailbox.address, amount: 20 + ((n * 37) % 180), product: 'Pro plan' });
            const { commission } = await api('POST', '/api/orders/pay', { order_id: `seed-${n}` });
            if (n % 3 === 0) await api('POST', `/api/commissions/${commission.id}/mark-paid`);
          }
        }
      }
    }
    t.clock.set(now);
    const balance = (await api('GET', '/api/affiliate/summary?ref_code=spring')).totals.balance as number;
    if (balance < 2) throw new Error(`seed: spring's balance is only ${balance}`);
    // docs/api.md#payouts: a withdrawal needs payout details
    await api('PATCH', '/api/affiliates/spring', { payout_details: { method: 'paypal', email: 'spring@example.com' } });
    const paidOut = await api('POST', '/api/withdrawals', { ref_code: 'spring', amount: 1.5 });
    await api('POST', `/api/withdrawals/${paidOut.withdrawal.id}/mark-paid`);
    await api('POST', '/api/withdrawals', { ref_code: 'spring', amount: 0.25 });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('dashboard: headline figures against the previous period, per-day charts with totals, day ticks, Withdrawn = paid only', async () => {
    const { context, page, errors } = await newPage(browser, { now });
    await logIn(page, t.baseUrl, '/admin');
    const from = isoDay(now - 29 * DAY);
    const to = isoDay(now);
    const admin = await t.admin();
    const current = (await admin.call('GET', `/admin/api/affiliate/summary?from=${from}&to=${to}`)).json().totals;
    const previous = (await admin.call('GET', `/admin/api/affiliate/summary?from=${isoDay(now - 59 * DAY)}&to=${isoDay(now - 30 * DAY)}`)).json().totals;
    expect(current.clicks).toBeGreaterThan(previous.clicks);

    const figure = (key: string) => page.locator(`[data-figure="${key}"]`);
    await expect.poll(() => figure('clicks').locator('.figure-value').textContent()).toBe(current.clicks.toLocaleString('en-US'));
    const pct = Math.round(((current.clicks - previous.clicks) / previous.clicks) * 100);
    await expect.poll(() => figure('clicks').locator('.figure-change').textContent()).toContain(`+${pct} %`);
    expect(await figure('clicks').locator('.figure-change').textContent()).toContain(`vs previous 30 days (${previous.clicks.toLocaleString('en-US')})`);
    expect(await figure('revenue').locator('.figure-value').textContent()).toBe(current.revenue.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
    expect(await figure('commission').locator('.figure-value').textContent()).toBe(current.commission.total.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }));
    expect(await figure('orders').locator('.figure-value').textContent()).toBe(String(current.orders));
    expect(await figure('mailboxes').locator('.figure-value').textContent()).toBe(String(current.mailboxes));

    // three charts (clicks; mailboxes and orders; money), each with its legend showing the range's totals without hovering
    await expect.poll(() => page.locator('.chart canvas').count()).toBe(3);
    const legend = page.locator('.chart-legend');
    expect(await legend.first().locator('[data-series="clicks"] strong').textContent()).toBe(current.clicks.toLocaleString('en-US'));
    expect(await legend.first().locator('.legend-when').textContent()).toBe('Total, 30 days');
    expect(await legend.nth(1).locator('[data-series="orders"] strong').textContent()).toBe(String(current.orders));
    expect(await legend.nth(2).locator('[data-series="commission"] strong').textContent()).toBe(
      current.commission.total.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
    );
    expect(await page.locator('.chart-legend').allTextContents()).not.toContain('--');
    // hovering a day shows that day's values in every legend
    const canvas = page.locator('.chart .u-over').first();
    const box = await canvas.boundingBox();
    if (!box) throw new Error('no chart');
    await page.mouse.move(box.x + box.width - 2, box.y + box.height / 2);
    const today = new Date(`${to}T00:00:00Z`).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' });
    await expect.poll(() => legend.nth(2).locator('.legend-when').textContent()).toBe(today);
    const todays = (await (await t.admin()).call('GET', `/admin/api/reports/daily?from=${to}&to=${to}`)).json().items[0];
    expect(await legend.first().locator('[data-series="clicks"] strong').textContent()).toBe(String(todays.clicks));
    await page.mouse.move(0, 0);

    // the Withdrawn column counts the paid-out withdrawal only; the request is apart
    const spring = page.locator('tbody tr[data-ref="spring"]');
    expect(await spring.locator('[data-col="withdrawn"]').textContent()).toBe('1.50');
    expect(await spring.locator('[data-col="requested"]').textContent()).toBe('0.25');
    await screenshot(page, 'operator-dashboard');

    // a 7-day range: one tick per day, labelled with days (never hours)
    await page.getByRole('button', { name: '7 days' }).click();
    await expect.poll(() => legend.first().locator('.legend-when').textContent()).toBe('Total, 7 days');
    // (uPlot paints the labels on its canvas, on its next frame; the chart also lists them in data-x-ticks)
    const week = Array.from({ length: 7 }, (_v, i) => new Date(now - (6 - i) * DAY).toLocaleDateString('en-US', { month: 'short', day: 'numeric', timeZone: 'UTC' }));
    const tickLabels = async () => ((await page.locator('.chart').first().getAttribute('data-x-ticks')) ?? '').split(',');
    await expect.poll(async () => (await tickLabels()).every((label) => week.includes(label))).toBe(true);
    const labels = await tickLabels();
    expect(labels.length).toBeGreaterThanOrEqual(3);
    const ticks = labels.join(',');
    expect(ticks).not.toMatch(/\d{1,2}(am|pm)|:\d\d/i);
    await screenshot(page, 'operator-dashboard-7-days');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('dashboard: range and affiliate live in the URL (reload and Back keep them), the affiliate is picked from a list', async () => {
    const { context, page, errors } = await newPage(browser, { now });
    await logIn(page, t.baseUrl, '/admin');
    const picker = page.locator('select[name="ref_code"]');
    await expect.poll(() => picker.locator('option').allTextContents()).toEqual(['all affiliates', 'newsletter', 'techblog · Tech Blog', 'spring · Spring Deals']);
    await picker.selectOption('techblog');
    await page.waitForURL(/ref_code=techblog/);
    await expect.poll(() => page.locator('tbody tr[data-ref]').count()).toBe(1);
    expect(await page.locator('tbody tr[data-ref]').getAttribute('data-ref')).toBe('techblog');

    await page.getByRole('button', { name: '90 days' }).click();
    await page.waitForURL(new RegExp(`from=${isoDay(now - 89 * DAY)}`));
    expect(new URL(page.url()).searchParams.get('ref_code')).toBe('techblog');
    await page.reload();
    await expect.poll(() => page.getByLabel('From').inputValue()).toBe(isoDay(now - 89 * DAY));
    expect(await page.locator('select[name="ref_code"]').inputValue()).toBe('techblog');
    await expect.poll(() => page.locator('.chart-legend').first().locator('.legend-when').textContent()).toBe('Total, 90 days');

    // Back: the 30-day range again, still techblog; Back again: everyone
    await page.goBack();
    await expect.poll(() => page.getByLabel('From').inputValue()).toBe(isoDay(now - 29 * DAY));
    expect(await page.locator('select[name="ref_code"]').inputValue()).toBe('techblog');
    await page.goBack();
    await expect.poll(() => page.locator('select[name="ref_code"]').inputValue()).toBe('');
    await expect.poll(() => page.locator('tbody tr[data-ref]').count()).toBe(3);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('on a phone: the navigation fits, the dashboard reads, and wide tables show that they scroll', async () => {
    const { context, page, errors } = await newPage(browser, { mobile: true, now });
    await logIn(page, t.baseUrl, '/admin');
    await page.locator('[data-figure="clicks"] .figure-value').filter({ hasText: /\d/ }).waitFor();
    await page.locator('.chart canvas').first().waitFor();
    await screenshot(page, 'operator-dashboard-phone');
    // every section's link is on screen, inside 390 px, and nothing scrolls sideways
    const links = page.getByRole('navigation').getByRole('link');
    expect(await links.count()).toBe(14); // with Rules (issue 13), Integrations, Domains, Mail, Mail browser, Payouts (issue 26) and Review (fraud review)
    for (const box of await links.evaluateAll((as) => as.map((a) => a.getBoundingClientRect().toJSON()))) {
      expect(box.left).toBeGreaterThanOrEqual(0);
      expect(box.right).toBeLessThanOrEqual(390);
      expect(box.width).toBeGreaterThan(0);
    }
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    const nav = await page.getByRole('navigation').evaluate((el) => ({ scroll: el.scrollWidth, client: el.clientWidth }));
    expect(nav.scroll).toBeLessThanOrEqual(nav.client);

    // the per-affiliate table is wider than the phone: a fade on its right edge and a hint
    const frame = page.locator('.table-frame').first();
    await expect.poll(() => frame.getAttribute('data-more-right')).toBe('');
    expect(await page.getByTestId('scroll-hint').first().textContent()).toContain('scroll the table sideways');
    await frame.locator('.table-wrap').evaluate((el) => el.scrollTo({ left: el.scrollWidth }));
    await expect.poll(() => frame.getAttribute('data-more-right')).toBeNull();
    expect(await frame.getAttribute('data-more-left')).toBe('');

    await page.getByRole('navigation').getByRole('link', { name: 'Orders' }).click();
    await page.locator('tbody tr[data-id]').first().waitFor();
    await screenshot(page, 'operator-orders-phone');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('lists: orders name the affiliate and commission; the webhook log shows adapter rows only when asked', async () => {
    const { context, page, errors } = await newPage(browser, { now });
    await logIn(page, t.baseUrl, '/admin/orders');
    const row = page.locator('tbody tr[data-id="seed-1"]');
    await row.waitFor();
    const order = (await (await t.admin()).call('GET', '/admin/api/orders?q=seed-1')).json().items.find((o: { order_id: string }) => o.order_id === 'seed-1');
    expect(await row.locator('[data-col="affiliate"]').textContent()).toBe(order.ref_code);
    expect(await row.locator('[data-col="commission"]').textContent()).toBe(
      `${order.commission.commission.toLocaleString('en-US', { minimumFractionDigits: 2 })} ${order.commission.status}`,
    );
    await screenshot(page, 'operator-orders');

    // commissions: the id column is the narrowest text column
    await page.getByRole('navigation').getByRole('link', { name: 'Commissions' }).click();
    await page.locator('tbody tr[data-id]').first().waitFor();
    const widths = await page.locator('thead th').evaluateAll((ths) => Object.fromEntries(ths.map((th) => [th.textContent?.trim() ?? '', th.getBoundingClientRect().width])));
    expect(widths.ID).toBeLessThan(widths.Affiliate as number);
    expect(widths.ID).toBeLessThan(widths.Created as number);
    await screenshot(page, 'operator-commissions');

    // the logging adapter got a delivery for every event; the log starts with the webhook's only
    await page.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    const target = page.getByLabel('Target');
    await expect.poll(() => target.inputValue()).toBe('webhook');
    await page.getByText(/No webhook deliveries yet/).waitFor();
    await target.selectOption({ label: 'all, adapters included' });
    await expect.poll(() => page.locator('tbody tr[data-id]').count()).toBeGreaterThan(0);
    expect((await page.locator('tbody tr[data-id]').allTextContents()).every((text) => text.includes('adapter:'))).toBe(true);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('settings: changes the password (other sessions end), adds an admin with a generated password, removes it, never the last', async () => {
    const admin = await t.admin();
    const { context, page, errors } = await newPage(browser, { now });
    await logIn(page, t.baseUrl, '/admin/settings');
    const users = page.getByRole('region', { name: 'Admin users' });
    // the list and "(you)" come from two requests: wait for both
    await users.locator('li[data-user="admin"]').getByText('(you)').waitFor();
    // the only admin cannot be removed
    expect(await users.locator('li[data-user="admin"]').getByRole('button', { name: 'Remove' }).isDisabled()).toBe(true);

    await page.getByLabel('New user name').fill('ops-anna');
    await page.getByRole('button', { name: 'Add admin user' }).click();
    const generated = page.getByTestId('new-admin-password');
    await generated.waitFor();
    const annaPassword = (await generated.textContent()) ?? '';
    expect(annaPassword.length).toBeGreaterThanOrEqual(16);
    await users.locator('li[data-user="ops-anna"]').waitFor();
    await screenshot(page, 'operator-settings-admin-users');

    // anna signs in elsewhere with the generated password, and is then removed: her session ends at once
    const anna = await newPage(browser, { now });
    await logIn(anna.page, t.baseUrl, '/admin', 'ops-anna', annaPassword);
    await users.locator('li[data-user="ops-anna"]').getByRole('button', { name: 'Remove' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
    await page.getByText('Admin user ops-anna removed.').waitFor();
    await anna.page.getByRole('navigation').getByRole('link', { name: 'Orders' }).click();
    await anna.page.getByRole('button', { name: 'Log in' }).waitFor();
    await anna.context.close();

    // a wrong current password is refused in words and signs nobody out
    await page.getByLabel('Current password').fill('not-my-password');
    await page.locator('input[name="new_password"]').fill('a-brand-new-password');
    await page.getByLabel('New password again').fill('a-brand-new-password');
    await page.getByRole('button', { name: 'Change password' }).click();
    // at the field, in words (README.md#web), not "current_password: is not your current password"
    await page.getByText('That is not your current password.', { exact: true }).waitFor();
    expect(await page.locator('input[name="current_password"]').getAttribute('aria-invalid')).toBe('true');
    expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);

    await page.getByLabel('Current password').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed. Your other sessions have been signed out.').waitFor();
    await screenshot(page, 'operator-settings-password');
    expect((await admin.call('GET', '/admin/api/session')).statusCode).toBe(401);
    expect((await t.request('POST', '/admin/api/login', { username: 'admin', password: 'a-brand-new-password' })).statusCode).toBe(200);
    // put it back for the other scenarios
    const back = await t.service.ctx.services.adminUsers.list();
    expect(back.map((u) => u.username)).toEqual(['admin']);
    await page.getByLabel('Current password').fill('a-brand-new-password');
    await page.locator('input[name="new_password"]').fill(TEST_ADMIN_PASSWORD);
    await page.getByLabel('New password again').fill(TEST_ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Change password' }).click();
    await page.getByText('Password changed.', { exact: false }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });
});
