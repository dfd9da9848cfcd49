import type { Browser, } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService, logInAdmin } from '../helpers/browser.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';

/** The ledger (docs/ledger.md#the-ledger) in the admin area: the rules page, refunds and clawbacks, the holding period setting. */
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
    await logInAdmin(page, t.baseUrl, '/admin/rules');
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

  it('refunds part of a paid order, then the rest, from the order list; refusals show in the dialog; the clawbacks are marked in the commission list', async () => {
    // an affiliate of its own, so no rule of the test above applies: the global 10 %, 2.00 on 19.99
    await addAffiliate(t, 'refund_aff');
    await addMailbox(t, 'refund-buyer@svc.test', 'refund_aff');
    await earn(t, 'ui-refund-1', 'refund-buyer@svc.test', 19.99);
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/orders');
    const row = page.locator('tr', { hasText: 'ui-refund-1' });
    const dialog = page.getByRole('dialog');
    const amount = dialog.getByLabel('Amount to refund');

    // part of it: the amount is prefilled with all that is left, and takes a smaller one
    await row.getByRole('button', { name: 'Refund' }).click();
    expect(await amount.inputValue()).toBe('19.99');
    await amount.fill('5');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    // the commission follows what remains: 1.50 on 14.99, so 0.50 of the paid 2.00 is clawed back
    await page.getByText('Refunded 5.00 of order ui-refund-1; 0.50 clawed back.').waitFor();
    await expect.poll(() => row.locator('[data-col="refunded"]').textContent()).toBe('5.00');
    expect(await row.textContent()).toContain('partially_refunded');
    expect(await dialog.count()).toBe(0);
    const order = async () => (await t.api('GET', '/api/orders?q=ui-refund-1')).json().items[0];
    expect(await order()).toMatchObject({ order_id: 'ui-refund-1', status: 'partially_refunded', refunded_amount: 5 });

    // the service's refusals are shown in the dialog, which stays open with what was typed
    await row.getByRole('button', { name: 'Refund' }).click();
    expect(await amount.inputValue()).toBe('14.99'); // what is left, computed in cents (not 14.989999…)
    await amount.fill('15');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('The refunds would exceed the order amount — left to refund: 14.99');
    await screenshot(page, 'admin-orders-refund-dialog');
    await amount.fill('0');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    // a refused amount in words, at the field (README.md#web), not the validator's "Request validation failed
    // — amount: …"
    await expect.poll(() => dialog.getByRole('alert').textContent()).toBe('Enter an amount above 0 with at most 2 decimals, like 25.50.');
    expect(await amount.getAttribute('aria-invalid')).toBe('true');
    expect(await amount.getAttribute('aria-describedby')).toBe(await dialog.getByRole('alert').getAttribute('id'));
    expect(await amount.inputValue()).toBe('0');
    expect((await order()).refunded_amount).toBe(5);

    // the rest: while the refund is on its way the dialog cannot be sent again
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let sent = 0;
    await page.route('**/admin/api/orders/refund', async (route) => {
      sent++;
      await held;
      await route.continue();
    });
    await amount.fill('14,99');
    await dialog.getByRole('button', { name: 'Refund' }).click();
    const busy = dialog.getByRole('button', { name: 'Refunding…' });
    await busy.waitFor();
    expect(await busy.isDisabled()).toBe(true);
    expect(await amount.isDisabled()).toBe(true);
    expect(await dialog.getByRole('button', { name: 'Cancel' }).isDisabled()).toBe(true);
    await amount.press('Enter');
    release();
    await page.getByText('Refunded 14.99 of order ui-refund-1; 1.50 clawed back.').waitFor();
    expect(sent).toBe(1);
    await page.unroute('**/admin/api/orders/refund');
    await expect.poll(() => row.locator('[data-col="refunded"]').textContent()).toBe('19.99');
    expect(await row.locator('td').nth(3).textContent()).toBe('refunded');
    expect(await row.getByRole('button', { name: 'Refund' }).count()).toBe(0);
    expect(await order()).toMatchObject({ status: 'refunded', refunded_amount: 19.99 });
    await screenshot(page, 'admin-orders-refunded');

    await page.getByRole('navigation').getByRole('link', { name: 'Commissions' }).click();
    const claw = page.locator('tr', { hasText: 'clawback' });
    await claw.first().waitFor();
    await expect.poll(() => claw.count()).toBe(2);
    for (const r of await claw.all()) expect(await r.textContent()).toContain('ui-refund-1');
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
