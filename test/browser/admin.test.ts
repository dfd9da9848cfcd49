import type { Browser, } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, dataLoaded, hasRoute, launchBrowser, type LiveService, newPage, requireFeature, screenshot, startLiveService, logInAdmin } from '../helpers/browser.js';
import { TEST_ADMIN_PASSWORD, TEST_API_KEY } from '../helpers/service.js';

const ADMIN_PAGES = ['Dashboard', 'Affiliates', 'Commissions', 'Withdrawals', 'Orders', 'Rules', 'Webhooks', 'Settings'] as const;

describe.skipIf(!CHROMIUM)(`admin area in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
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

  it('refuses a wrong password in words, logs in, and stays logged in over a reload', async () => {
    const { context, page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/admin`);
    await page.getByRole('heading', { name: 'svc admin' }).waitFor();
    await screenshot(page, 'admin-login');
    await page.getByLabel('Password').fill('wrong-password');
    await page.getByRole('button', { name: 'Log in' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(/\w+/);
    expect(await alert.textContent()).not.toContain('undefined');

    // By keyboard: Enter in the password field submits.
    await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await page.getByLabel('Password').press('Enter');
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(await page.getByRole('button', { name: 'Log out' }).isVisible()).toBe(true);

    await page.getByRole('button', { name: 'Log out' }).click();
    await page.getByRole('button', { name: 'Log in' }).waitFor();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('changes the commission rate, and shows an out-of-range value as a readable error', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/settings');
    const rate = page.getByLabel('Commission rate %');
    await expect.poll(() => rate.inputValue()).toBe('10');

    await rate.fill('150');
    await page.getByRole('button', { name: 'Save settings' }).click();
    // refused in words at the field (README.md#web), never the validator's "Request validation failed —
    // commission_rate: …"
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Enter a rate from 0 to 100 %, with at most 2 decimals, like 12.5.');
    expect(await rate.getAttribute('aria-invalid')).toBe('true');

    await rate.fill('12.5');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Settings saved.').waitFor();
    await screenshot(page, 'admin-settings');

    const admin = await t.admin();
    const res = await admin.call('GET', '/admin/api/settings');
    expect(res.json()).toMatchObject({ success: true, settings: { commission_rate: 12.5 } });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('says what the click log keeps and for how long, refuses 6 days in words, and removes old clicks on demand', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/settings');
    const card = page.getByRole('form', { name: 'Click log' });
    await card.getByText('those counts are kept for good').waitFor();
    expect(await card.textContent()).toContain('never an address');
    const days = card.getByLabel('Keep raw clicks (days)');
    await expect.poll(() => days.inputValue()).toBe('90');

    await days.fill('6');
    // the browser's own range check would stop the form first: the service's refusal is what is shown
    await days.evaluate((el) => el.removeAttribute('min'));
    await card.getByRole('button', { name: 'Save' }).click();
    const alert = card.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toBe('Enter a whole number of days from 7 to 3650.');

    await days.fill('30');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('Click log setting saved.').waitFor();
    const admin = await t.admin();
    expect((await admin.call('GET', '/admin/api/settings')).json().settings.click_retention_days).toBe(30);

    await card.getByRole('button', { name: 'Remove old clicks now' }).click();
    await card.getByText(/^No raw click older than .+ \(UTC\) was left\.$/).waitFor();
    await screenshot(page, 'admin-settings-click-log');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the API key on demand and rotates it after a confirmation', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/settings');
    await page.getByRole('button', { name: 'Show API key' }).click();
    const key = page.getByTestId('api-key');
    await key.waitFor();
    expect(await key.textContent()).toBe(TEST_API_KEY);
    // the API reference next to the key is the served document
    const reference = page.getByRole('link', { name: '/openapi.json' });
    const doc = await (await page.request.get(new URL((await reference.getAttribute('href')) ?? '', t.baseUrl).toString())).json();
    expect(doc.openapi).toBe('3.1.0');

    // Cancelling the confirmation changes nothing.
    await page.getByRole('button', { name: 'Rotate key…' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('The current key stops working immediately.').waitFor();
    // a destructive confirmation starts on Cancel: a reflex Enter does no harm
    await expect.poll(() => page.evaluate('document.activeElement?.textContent?.trim()')).toBe('Cancel');
    await screenshot(page, 'admin-rotate-confirm');
    // The confirmation is a real modal: Escape cancels it.
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });
    expect(await key.textContent()).toBe(TEST_API_KEY);

    await page.getByRole('button', { name: 'Rotate key…' }).click();
    await dialog.getByRole('button', { name: 'Rotate key' }).click();
    await page.getByText('New key active; the old one no longer works.').waitFor();
    const newKey = (await key.textContent()) ?? '';
    expect(newKey).not.toBe(TEST_API_KEY);
    expect(newKey.length).toBeGreaterThanOrEqual(16);

    const old = await t.request('GET', '/api/affiliates', undefined, { 'x-api-key': TEST_API_KEY });
    expect(old.statusCode).toBe(401);
    expect(old.json()).toMatchObject({ success: false, error: { code: 'unauthorized' } });
    const fresh = await t.request('GET', '/api/affiliates', undefined, { 'x-api-key': newKey });
    expect(fresh.statusCode).not.toBe(401);
    expect(fresh.json()).not.toMatchObject({ error: { code: 'unauthorized' } });

    expect(errors).toEqual([]);
    await context.close();
  });

  it('approves and pays commissions (a refused action in words), pays and rejects withdrawals, searches orders', async (ctx) => {
    requireFeature(
      ctx,
      hasRoute(t, 'GET', '/admin/api/commissions') && hasRoute(t, 'POST', '/api/orders') && hasRoute(t, 'POST', '/api/mailboxes'),
      'the commission ledger (orders, commissions) and mailboxes',
    );
    // The key changed in the rotation scenario; ask for the current one.
    const admin = await t.admin();
    const apiKey = (await admin.call('GET', '/admin/api/api-key')).json().api_key as string;
    const api = (method: string, url: string, body?: unknown) => t.request(method, url, body, { 'x-api-key': apiKey });

    expect((await api('POST', '/api/affiliates', { ref_code: 'payme' })).statusCode).toBe(201);
    const mailbox = await api('POST', '/api/mailboxes', { ref_code: 'payme' });
    expect(mailbox.statusCode).toBe(201);
    const address = mailbox.json().mailbox.address as string;
    for (const [orderId, amount] of [
      ['ord-b1', 80],
      ['ord-b2', 40],
    ] as const) {
      expect((await api('POST', '/api/orders', { order_id: orderId, email: address, amount, product: 'Pro plan' })).statusCode).toBe(201);
      const paid = await api('POST', '/api/orders/pay', { order_id: orderId });
      expect(paid.json()).toMatchObject({ success: true, commission: { ref_code: 'payme', status: 'pending' } });
    }

    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/commissions');
    const rows = page.locator('tbody tr');
    await expect.poll(() => rows.count()).toBe(2);
    await screenshot(page, 'admin-commissions');

    // Approve one, then mark both paid at once (mark-paid from pending is allowed).
    const first = rows.first();
    const firstId = (await first.getAttribute('data-id')) ?? '';
    await first.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('1 commission approved.').waitFor();
    await page.getByLabel('Select all').check();
    // docs/api.md#payouts: on a commission it is "Mark earned" (it credits the balance; no money moves)
    await page.getByRole('button', { name: 'Mark earned selected' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Mark earned' }).click();
    await page.getByText('2 commissions marked earned.').waitFor();

    // A selection made before a filter change never acts on rows the filter hides.
    await page.getByLabel('Select all').check();
    await expect.poll(() => page.getByText('2 selected').count()).toBe(1);
    // while the filtered answer is on its way, the old rows are dimmed and marked busy
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/admin/api/commissions?*status=pending*', async (route) => {
      await gate;
      await route.continue();
    });
    await page.getByLabel('Status').selectOption('pending');
    await page.getByRole('status').filter({ hasText: 'Updating…' }).waitFor();
    expect(await page.locator('.table-wrap').getAttribute('aria-busy')).toBe('true');
    release();
    await expect.poll(() => rows.count()).toBe(0);
    expect(await page.getByRole('status').filter({ hasText: 'Updating…' }).count()).toBe(0);
    await page.unroute('**/admin/api/commissions?*status=pending*');
    await expect.poll(() => page.getByText('0 selected').count()).toBe(1);
    expect(await page.getByRole('button', { name: 'Void selected' }).isDisabled()).toBe(true);
    await page.getByLabel('Status').selectOption('');
    await expect.poll(() => rows.count()).toBe(2);

    // Voiding a paid commission is refused (409) and the reason is shown in words.
    await page.getByLabel('Select all').check();
    await page.getByRole('button', { name: 'Void selected' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Void' }).click();
    const refused = page.getByText('Some actions were refused:');
    await refused.waitFor();
    const text = (await page.getByRole('alert').first().textContent()) ?? '';
    expect(text).toContain(firstId);
    expect(text).not.toContain('undefined');
    await screenshot(page, 'admin-commissions-refused');

    const list = await admin.call('GET', '/admin/api/commissions?ref_code=payme');
    const statuses = (list.json().items as { status: string }[]).map((c) => c.status);
    expect(statuses).toEqual(['paid', 'paid']);

    // Withdrawals: one paid out, one rejected, each after a confirmation.
    // docs/api.md#payouts: a withdrawal needs payout details
    expect((await api('PATCH', '/api/affiliates/payme', { payout_details: { method: 'other', note: 'by hand' } })).statusCode).toBe(200);
    for (const amount of [5, 4]) {
      expect((await api('POST', '/api/withdrawals', { ref_code: 'payme', amount })).statusCode).toBe(201);
    }
    await page.getByRole('navigation').getByRole('link', { name: 'Withdrawals' }).click();
    const wRows = page.locator('tbody tr[data-id]');
    await expect.poll(() => wRows.count()).toBe(2);
    await screenshot(page, 'admin-withdrawals-requested');
    await wRows.filter({ hasText: '5.00' }).getByRole('button', { name: 'Mark paid' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Mark paid' }).click();
    await page.getByText(/marked paid\./).waitFor();
    await wRows.filter({ hasText: '4.00' }).getByRole('button', { name: 'Reject' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
    await page.getByText(/rejected\./).waitFor();
    const withdrawals = await admin.call('GET', '/admin/api/withdrawals?ref_code=payme');
    const byAmount = Object.fromEntries((withdrawals.json().items as { amount: number; status: string }[]).map((w) => [w.amount, w.status]));
    expect(byAmount).toEqual({ 5: 'paid', 4: 'rejected' });

    // Orders: search narrows the list.
    await page.getByRole('navigation').getByRole('link', { name: 'Orders' }).click();
    const oRows = page.locator('tbody tr[data-id]');
    await expect.poll(() => oRows.count()).toBe(2);
    await page.getByLabel('Search', { exact: true }).fill('ord-b1');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => oRows.count()).toBe(1);
    expect(await oRows.first().getAttribute('data-id')).toBe('ord-b1');
    await screenshot(page, 'admin-orders-search');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates an affiliate, edits its rate and disables it after a confirmation', async (ctx) => {
    requireFeature(ctx, hasRoute(t, 'PATCH', '/admin/api/affiliates/:ref_code'), 'affiliates');
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/affiliates');
    await page.getByLabel('ref_code').fill('summer');
    await page.getByLabel('Name').fill('Summer Blog');
    await page.getByRole('button', { name: 'Create affiliate' }).click();
    await page.getByText(`Affiliate summer created. Its link: ${t.baseUrl}/go/summer`).waitFor();
    const row = page.locator('tr[data-ref="summer"]');
    await row.getByRole('button', { name: 'Copy link' }).waitFor();

    // The same code again is refused in words.
    await page.getByLabel('ref_code').fill('summer');
    await page.getByRole('button', { name: 'Create affiliate' }).click();
    expect(await page.getByRole('alert').textContent()).toMatch(/summer|exists/i);

    await row.getByRole('button', { name: 'Edit rate' }).click();
    await row.getByLabel('Commission rate of summer in percent').fill('7,5 %');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText('Rate of summer saved.').waitFor();
    await expect.poll(() => row.locator('td').nth(2).textContent()).toBe('7.5%');
    // a typo is refused in words and changes nothing (it used to be sent as NaN, i.e. null: the global rate)
    await row.getByRole('button', { name: 'Edit rate' }).click();
    await row.getByLabel('Commission rate of summer in percent').fill('abc');
    await row.getByRole('button', { name: 'Save' }).click();
    await page.getByText(/Commission rate must be a percentage from 0 to 100/).waitFor();
    expect((await (await t.admin()).call('GET', '/admin/api/affiliates/summer')).json().affiliate.commission_rate).toBe(7.5);
    await row.getByRole('button', { name: 'Cancel' }).click();

    await row.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Disable' }).click();
    await page.getByText('summer is disabled.').waitFor();
    await screenshot(page, 'admin-affiliates-edited');

    const admin = await t.admin();
    const res = await admin.call('GET', '/admin/api/affiliates/summer');
    expect(res.json()).toMatchObject({ success: true, affiliate: { ref_code: 'summer', name: 'Summer Blog', status: 'disabled', commission_rate: 7.5 } });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('pages through a long affiliate list with Load more', async () => {
    // through the admin API: an earlier test rotated the API key
    const admin = await t.admin();
    for (let i = 0; i < 120; i++) expect((await admin.call('POST', '/admin/api/affiliates', { ref_code: `page${String(i).padStart(3, '0')}` })).statusCode).toBe(201);
    const listed = (await admin.call('GET', '/admin/api/affiliates?limit=500')).json();
    expect(listed.next_cursor).toBeNull();
    const total = listed.items.length;
    expect(total).toBeGreaterThan(120);
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/affiliates');
    const rows = page.locator('tr[data-ref]');
    await expect.poll(() => rows.count()).toBe(100);
    await page.getByRole('button', { name: 'Load more' }).click();
    await expect.poll(() => rows.count()).toBe(total);
    // every affiliate once, and no button once the list is complete
    const refs = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-ref')));
    expect(new Set(refs).size).toBe(total);
    expect(await page.getByRole('button', { name: 'Load more' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('keeps the settings forms read-only until the saved values have loaded, so nothing typed is overwritten', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin');
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/admin/api/settings', async (route) => {
      if (route.request().method() === 'GET') await gate;
      await route.continue();
    });
    for (const [link, field, save] of [
      ['Webhooks', 'webhook_url', 'Save'],
      ['Settings', 'landing_url', 'Save settings'],
    ] as const) {
      await page.getByRole('navigation').getByRole('link', { name: link, exact: true }).click();
      const input = page.locator(`input[name="${field}"]`);
      await input.waitFor();
      expect(await input.isDisabled()).toBe(true);
      expect(await page.getByRole('button', { name: save, exact: true }).isDisabled()).toBe(true);
    }
    release();
    const landing = page.locator('input[name="landing_url"]');
    await expect.poll(() => landing.isDisabled()).toBe(false);
    expect(await landing.inputValue()).toMatch(/^https?:\/\//);
    await page.unroute('**/admin/api/settings');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('generates and saves a whsec_ webhook secret, sends a test event and shows its delivery attempts', async (ctx) => {
    requireFeature(ctx, hasRoute(t, 'POST', '/admin/api/webhooks/test') && hasRoute(t, 'GET', '/admin/api/deliveries/:id'), 'webhook deliveries');
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/webhooks');
    // The saved secret is write-only (docs/api.md#settings): the field is empty and says which one is kept; Generate asks
    // only when one exists, and the new one must differ from it.
    const before = (await t.service.ctx.services.settings.get()).webhook_secret;
    const secretInput = page.locator('input[name="webhook_secret"]');
    await expect.poll(() => secretInput.getAttribute('placeholder')).toBe(`Unchanged (…${before.slice(-4)}); type a new one to replace it`);
    expect(await secretInput.inputValue()).toBe('');
    expect(await page.content()).not.toContain(before.slice(0, -4));
    // Any local URL will do (private URLs are allowed in tests): a refused attempt is logged like a good one.
    await page.getByLabel('Webhook URL').fill(`${t.baseUrl}/healthz`);
    // Replacing an existing secret asks first.
    await page.getByRole('button', { name: 'Generate' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Generate new secret' }).click();
    const secret = await secretInput.inputValue();
    expect(secret).not.toBe(before);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Webhook settings saved.').waitFor();
    const admin = await t.admin();
    expect((await admin.call('GET', '/admin/api/settings')).json()).toMatchObject({ settings: { webhook_url: `${t.baseUrl}/healthz`, webhook_secret: { set: true, last4: secret.slice(-4) } } });
    expect((await t.service.ctx.services.settings.get()).webhook_secret).toBe(secret);
    // Saved again without touching the field: the secret stays
    expect(await secretInput.inputValue()).toBe('');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByText('Webhook settings saved.').waitFor();
    expect((await t.service.ctx.services.settings.get()).webhook_secret).toBe(secret);

    await page.getByRole('button', { name: 'Send test event' }).click();
    await page.getByText('Test event queued').waitFor();
    // the log reloads by itself
    const row = page.locator('tbody tr[data-id]').filter({ hasText: t.baseUrl });
    await row.first().waitFor();
    // the summary line says what the stats endpoint says (the test event's POST to /healthz got a 404)
    // (other tests' events may still be on their way, so compare after a refresh until both agree)
    await expect
      .poll(async () => {
        const { stats } = (await admin.call('GET', '/admin/api/deliveries/stats')).json();
        await page.getByRole('button', { name: 'Refresh' }).click();
        await page.getByTestId('queue-summary').waitFor();
        const text = (await page.getByTestId('queue-summary').textContent()) ?? '';
        return stats.pending + stats.unfanned_events > 0 && new RegExp(`^${stats.pending + stats.unfanned_events} waiting to be delivered \\(oldest queued .+ ago\\)`).test(text);
      })
      .toBe(true);
    // the target filter narrows the log to the webhook's deliveries
    await page.getByLabel('Target').selectOption('webhook');
    await expect.poll(async () => (await page.locator('tbody tr[data-id]').allTextContents()).every((text) => text.includes('webhook') && !text.includes('adapter:'))).toBe(true);
    expect(await page.locator('tbody tr[data-id]').count()).toBeGreaterThan(0);
    // the event filter offers the service's event catalogue
    const catalogue = (await admin.call('GET', '/admin/api/event-types')).json().items.map((e: { type: string }) => e.type);
    expect(catalogue).toContain('order.paid');
    await expect.poll(() => page.locator('#event-names option').evaluateAll((options) => options.map((o) => o.getAttribute('value')))).toEqual(catalogue);
    // an empty result under a filter says so, not "no deliveries yet"
    const eventFilter = page.getByLabel('Event', { exact: true });
    await eventFilter.fill('nonsense.event');
    await eventFilter.press('Tab');
    await page.getByText('No deliveries match these filters.').waitFor();
    await eventFilter.fill('');
    await eventFilter.press('Tab');
    await row.first().getByRole('button', { name: 'Attempts' }).click();
    await page.locator('.attempts').waitFor();
    // each attempt shows the start of the receiver's answer as stored (here /healthz's 404 body)
    const id = (await row.first().getAttribute('data-id')) as string;
    const stored = async () => ((await admin.call('GET', `/admin/api/deliveries/${id}`)).json().delivery.attempts[0]?.response_body ?? '') as string;
    await expect.poll(stored).toContain('not_found');
    await row.first().getByRole('button', { name: 'Hide attempts' }).click();
    await row.first().getByRole('button', { name: 'Attempts' }).click();
    await expect.poll(() => page.locator('.attempts .attempt-body').first().textContent()).toBe(await stored());
    await row.first().getByRole('button', { name: 'Redeliver' }).click();
    await page.getByText('Queued again.').waitFor();
    await screenshot(page, 'admin-webhooks-deliveries');
    expect(errors).toEqual([]);
    await context.close();
  });

  for (const mobile of [false, true]) {
    it(`renders every admin page without errors${mobile ? ' on a phone' : ''}`, async () => {
      const { context, page, errors } = await newPage(browser, { mobile });
      await logInAdmin(page, t.baseUrl);
      for (const name of ADMIN_PAGES) {
        await page.getByRole('navigation').getByRole('link', { name }).click();
        await page.getByRole('heading', { name, level: 1 }).waitFor();
        // Let each page finish loading (its data drawn, spinners gone) before the width check and the picture.
        await dataLoaded(page);
        await expect.poll(() => page.locator('.loading').count()).toBe(0);
        // wide tables scroll inside their own box; the page itself never scrolls sideways
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(mobile ? 390 : 1280);
        await screenshot(page, `admin-${name.toLowerCase()}${mobile ? '-phone' : ''}`);
      }
      expect(errors).toEqual([]);
      await context.close();
      // seven pages, each loaded and photographed in full (the lists hold 100+ rows by now): more than
      // the default 30 s when the machine is busy
    }, 90_000);
  }
});
