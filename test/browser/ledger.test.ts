import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

async function logIn(page: Page, baseUrl: string, path: string): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/** CONTRACT §12 in the admin area: the rules page, refunds and clawbacks, the holding period setting. */
describe.skipIf(!CHROMIUM)(`ledger pages in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    await addAffiliate(t, 'gold_aff');
    await addMailbox(t, 'gold-buyer@svc.test', 'gold_aff');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('lists, creates and deletes commission rules; an inexact rate is refused in words', async () => {
    const { context, page, errors } = await newPage(browser);
    await logIn(page, t.baseUrl, '/admin/rules');
    await page.getByRole('heading', { name: 'Rules', level: 1 }).waitFor();
    await page.getByText('No commission rules yet').waitFor();

    const form = page.getByRole('form', { name: 'New rule' });
    await form.getByLabel('Product').fill('Gold');
    await form.getByLabel('Rate %').fill('25.0000000001');
    await form.getByRole('button', { name: 'Create rule' }).click();
    const alert = form.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toContain('rate');

    await form.getByLabel('Rate %').fill('12,5');
    await form.getByLabel('Max orders per customer').fill('3');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await page.getByText('Rule created.').waitFor();
    const row = page.locator('tbody tr', { hasText: '12.5%' });
    await expect.poll(() => row.textContent()).toContain('12.5%');
    expect(await row.textContent()).toContain('3');

    await form.getByLabel('Affiliate (ref_code)').fill('gold_aff');
    await form.getByLabel('Kind').selectOption('flat');
    await form.getByLabel(/^Amount/).fill('4');
    await form.getByRole('button', { name: 'Create rule' }).click();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(2);
    await screenshot(page, 'admin-rules');
    const stored = (await t.api('GET', '/api/commission-rules')).json().items.map((r: { rate: number | null; flat: number | null }) => [r.rate, r.flat]);
    expect(stored).toHaveLength(2);
    expect(stored).toContainEqual([null, 4]);
    expect(stored).toContainEqual([12.5, null]);

    await row.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('Rule deleted.').waitFor();
    await expect.poll(() => page.locator('tbody tr').count()).toBe(1);
    expect((await t.api('GET', '/api/commission-rules')).json().items).toHaveLength(1);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('refunds a paid order from the order list; the clawback is marked in the commission list', async () => {
    await earn(t, 'ui-refund-1', 'gold-buyer@svc.test', 100);
    const { context, page, errors } = await newPage(browser);
    await logIn(page, t.baseUrl, '/admin/orders');
    const row = page.locator('tr', { hasText: 'ui-refund-1' });
    await row.getByRole('button', { name: 'Refund' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Refund' }).click();
    await page.getByText('Order ui-refund-1 refunded.').waitFor();
    await expect.poll(() => row.locator('[data-col="refunded"]').textContent()).toContain('100');
    expect(await row.textContent()).toContain('refunded');
    await screenshot(page, 'admin-orders-refunded');

    await page.getByRole('navigation').getByRole('link', { name: 'Commissions' }).click();
    const claw = page.locator('tr', { hasText: 'clawback' });
    await claw.first().waitFor();
    expect(await claw.first().textContent()).toContain('ui-refund-1');
    await screenshot(page, 'admin-commissions-clawback');

    await page.getByRole('navigation').getByRole('link', { name: 'Settings' }).click();
    const holding = page.getByLabel('Holding period (days)');
    await holding.waitFor();
    await expect.poll(() => page.getByLabel('Commission rate %').inputValue()).toBe('10');
    await holding.fill('14');
    await page.getByRole('button', { name: /save/i }).first().click();
    await expect.poll(async () => (await (await t.admin()).call('GET', '/admin/api/settings')).json().settings.holding_days).toBe(14);
    expect(errors).toEqual([]);
    await context.close();
  });
});
