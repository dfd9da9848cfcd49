import { createHmac } from 'node:crypto';
import type { Browser, } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService, logInAdmin } from '../helpers/browser.js';

/** The Integrations page (docs/api.md, "Integrations"): what to paste where, the secrets, the last events. */
describe.skipIf(!CHROMIUM)(`integrations page in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;
  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('shows each provider\'s URL and events, saves a secret, and lists a received event with its outcome', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/integrations');
    await page.getByRole('heading', { name: 'Integrations', level: 1 }).waitFor();
    const stripe = page.getByRole('form', { name: 'Stripe' });
    expect(await stripe.getByTestId('stripe-url').textContent()).toBe(`${t.baseUrl}/integrations/stripe`);
    expect(await stripe.getByTestId('stripe-events').textContent()).toContain('invoice.paid');
    expect(await page.getByTestId('lemonsqueezy-events').textContent()).toContain('subscription_payment_refunded');
    const paddleEvents = await page.getByTestId('paddle-events').textContent();
    for (const e of ['transaction.completed', 'customer.created', 'customer.updated']) expect(paddleEvents).toContain(e);
    expect(await page.getByTestId('paddle-waiting').textContent()).toContain('No transaction waits for its customer.');
    // "Not connected" once the settings have answered (before that the line says only that no event came)
    await page.getByTestId('lemonsqueezy-last').filter({ hasText: 'Not connected' }).waitFor();

    const lemon = page.getByRole('form', { name: 'Lemon Squeezy' });
    await lemon.locator('input[name=lemonsqueezy_webhook_secret]').fill('browser-lemon-secret');
    await lemon.getByRole('button', { name: 'Save' }).click();
    await lemon.getByText('Lemon Squeezy secret saved.').waitFor();
    const admin = await t.admin();
    expect((await admin.call('GET', '/admin/api/settings')).json().settings.lemonsqueezy_webhook_secret).toEqual({ set: true, last4: 'cret' });
    // write-only (docs/api.md#settings): the field is empty again, says what is kept, and saving it empty keeps it
    const lemonInput = lemon.locator('input[name=lemonsqueezy_webhook_secret]');
    await expect.poll(() => lemonInput.getAttribute('placeholder')).toBe('Unchanged (…cret); type a new one to replace it');
    expect(await lemonInput.inputValue()).toBe('');
    expect(await page.content()).not.toContain('browser-lemon-secret');
    await lemon.getByRole('button', { name: 'Save' }).click();
    await lemon.getByText('Lemon Squeezy secret unchanged.').waitFor();
    expect((await t.service.ctx.services.settings.get()).lemonsqueezy_webhook_secret).toBe('browser-lemon-secret');

    const body = JSON.stringify({ meta: { event_name: 'order_created' }, data: { type: 'orders', id: '9', attributes: { status: 'paid', user_email: 'b@svc.test', total: 1500, currency: 'EUR' } } });
    const sig = createHmac('sha256', 'browser-lemon-secret').update(body).digest('hex');
    const res = await fetch(`${t.baseUrl}/integrations/lemonsqueezy`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-signature': sig } });
    expect(await res.json()).toMatchObject({ outcome: 'ignored', reason: 'currency_mismatch' });

    // a Paddle transaction whose customer has not been notified yet waits, and the page counts it
    expect((await admin.call('PATCH', '/admin/api/settings', { paddle_webhook_secret: 'browser-paddle-secret' })).statusCode).toBe(200);
    const tx = JSON.stringify({
      event_id: 'evt_browser_tx',
      event_type: 'transaction.completed',
      data: { id: 'txn_browser', customer_id: 'ctm_browser', currency_code: 'USD', details: { totals: { total: '1500' } }, items: [], custom_data: null },
    });
    const ts = Math.floor(Date.now() / 1000);
    const h1 = createHmac('sha256', 'browser-paddle-secret').update(`${ts}:${tx}`).digest('hex');
    const paddle = await fetch(`${t.baseUrl}/integrations/paddle`, { method: 'POST', body: tx, headers: { 'content-type': 'application/json', 'paddle-signature': `ts=${ts};h1=${h1}` } });
    expect(await paddle.json()).toMatchObject({ outcome: 'ignored', reason: 'waiting_for_customer', order_id: 'paddle:txn_browser' });

    await page.reload();
    await expect.poll(() => page.getByTestId('paddle-waiting').textContent()).toContain('1 transaction waits for its customer\'s notification');
    const table = page.getByRole('region', { name: 'Received events' });
    const rows = async () => (await table.locator('tbody tr').allTextContents()).join('\n');
    await expect.poll(rows).toContain('currency_mismatch');
    expect(await rows()).toMatch(/order_created.*currency_mismatch/);
    expect(await rows()).toMatch(/transaction\.completed.*waiting_for_customer.*paddle:txn_browser/);
    expect(await page.getByTestId('lemonsqueezy-last').textContent()).toContain('order_created');
    await screenshot(page, 'admin-integrations');
    await lemon.getByRole('button', { name: 'Clear secret' }).click();
    await lemon.getByText('Lemon Squeezy secret cleared: its events are refused.').waitFor();
    expect((await admin.call('GET', '/admin/api/settings')).json().settings.lemonsqueezy_webhook_secret).toEqual({ set: false, last4: null });
    expect(errors).toEqual([]);
    await context.close();
  });
});
