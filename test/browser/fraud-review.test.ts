import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, dataLoaded, launchBrowser, type LiveService, logInAdmin, newPage, PHONE, screenshot, startLiveService } from '../helpers/browser.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';

// docs/api.md#fraud-review: the Review page (open cases first, their count in the navigation, evidence in words,
// release and reject with a note), the held commission in the admin's list, and the portal's "under review".

describe.skipIf(!CHROMIUM)(`fraud review in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
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

  const selfReferral = async (ref: string, orderId: string) => {
    await t.api('POST', '/api/orders', { order_id: orderId, email: `${ref}@${ref}-shop.example`, amount: 80, product: 'p', ref_code: ref });
    const paid = await t.api('POST', '/api/orders/pay', { order_id: orderId });
    expect(paid.json().commission.hold).not.toBeNull();
    return paid.json().commission.id as string;
  };

  it('lists the open case with its evidence and count, releases one and rejects another with a note', async () => {
    // a retry starts from no open case (the first attempt may have left some)
    for (const c of (await t.api('GET', '/api/fraud/cases?status=open')).json().items as { id: string }[]) await t.api('POST', `/api/fraud/cases/${c.id}/reject`);
    const n = String(Date.now()).slice(-6);
    const [ritaRef, rolfRef] = [`rita${n}`, `rolf${n}`];
    for (const ref of [ritaRef, rolfRef]) expect((await t.api('POST', '/api/affiliates', { ref_code: ref, email: `${ref}@${ref}-shop.example` })).statusCode).toBe(201);
    const ritaCommission = await selfReferral(ritaRef, `rv-1-${n}`);
    const rolfCommission = await selfReferral(rolfRef, `rv-2-${n}`);

    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/commissions');
    await dataLoaded(page);
    // the held commission says so, and offers no approval
    const row = page.locator(`tr[data-id="${ritaCommission}"]`);
    expect(await row.getByText('on hold').isVisible()).toBe(true);
    expect(await row.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    expect(await row.getByRole('button', { name: 'Mark earned' }).isDisabled()).toBe(true);

    const nav = page.getByRole('navigation', { name: 'Admin sections' });
    await expect.poll(() => nav.getByRole('link', { name: /Review/ }).textContent()).toContain('2');
    await nav.getByRole('link', { name: /Review/ }).click();
    await page.getByRole('heading', { name: 'Review', level: 1 }).waitFor();
    await dataLoaded(page);
    const rita = page.getByRole('article', { name: `Case of ${ritaRef}` });
    expect(await rita.textContent()).toContain(`Ordered with the affiliate's own email ${ritaRef}@${ritaRef}-shop.example`);
    expect(await rita.getByTestId('held').textContent()).toContain('Holds 1 pending commission (8.00 USD)');
    await screenshot(page, 'admin-review');

    await rita.getByLabel('Note (kept with the case)').fill('Her own test order');
    await rita.getByRole('button', { name: 'Release' }).click();
    const dialog = page.getByRole('dialog');
    expect(await dialog.textContent()).toContain('continue as if never held');
    await dialog.getByRole('button', { name: 'Release' }).click();
    await page.getByText(`Case of ${ritaRef} released.`).waitFor();
    await expect.poll(() => nav.getByRole('link', { name: /Review/ }).textContent()).toContain('1');

    const rolf = page.getByRole('article', { name: `Case of ${rolfRef}` });
    await rolf.getByRole('button', { name: 'Reject' }).click();
    expect(await page.getByRole('dialog').textContent()).toContain('become void');
    await page.getByRole('dialog').getByRole('button', { name: 'Reject' }).click();
    await page.getByText(`Case of ${rolfRef} rejected.`).waitFor();
    await page.getByText('No open case: nothing waits for review.').waitFor();
    await expect.poll(() => nav.getByRole('link', { name: /Review/ }).textContent()).toBe('Review');
    // the case list keeps both, with the note
    const all = page.getByRole('region', { name: 'All cases' });
    await expect.poll(() => all.locator(`tbody tr`).filter({ hasText: n }).count()).toBe(2);
    expect(await all.textContent()).toContain('Her own test order');

    expect((await t.api('GET', `/api/commissions/${ritaCommission}`)).json().commission).toMatchObject({ status: 'pending', hold: null });
    expect((await t.api('GET', `/api/commissions/${rolfCommission}`)).json().commission).toMatchObject({ status: 'void', void_reason: 'fraud' });
    // on a phone, nothing is wider than the screen
    const phone = await newPage(browser, { viewport: PHONE });
    await logInAdmin(phone.page, t.baseUrl, '/admin/review');
    await dataLoaded(phone.page);
    expect(await phone.page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(PHONE.width);
    await screenshot(phone.page, 'admin-review-phone');
    await phone.context.close();
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sets the rules on the Settings page', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/settings');
    const card = page.getByRole('form', { name: 'Fraud review' });
    await dataLoaded(page);
    await card.getByLabel('Burst of clicks').selectOption('hold');
    const limit = card.getByLabel('Click burst limit (clicks per 10 minutes)');
    await limit.fill('0');
    // the browser's own range check would stop the form first: the service's refusal is what is shown
    await limit.evaluate((el) => el.removeAttribute('min'));
    await card.getByRole('button', { name: 'Save' }).click();
    expect(await card.getByRole('alert').textContent()).toBe('Enter a whole number of clicks from 1 to 100000.');
    await card.getByLabel('Click burst limit (clicks per 10 minutes)').fill('50');
    await card.getByRole('button', { name: 'Save' }).click();
    await card.getByText('Fraud review settings saved.').waitFor();
    const s = (await (await t.admin()).call('GET', '/admin/api/settings')).json().settings;
    expect(s.fraud_rules).toEqual({ self_referral: 'hold', duplicate_payout: 'hold', click_burst: 'hold', refund_rate: 'flag' });
    expect(s.fraud_click_burst).toBe(50);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows the affiliate a held commission as under review, never why', async () => {
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'uma', email: 'uma@uma-shop.example' })).statusCode).toBe(201);
    await selfReferral('uma', 'rv-3');
    const client = await portalSignIn(t, 'uma', PORTAL_PASSWORD);
    const { context, page, errors } = await newPage(browser);
    await context.addCookies([{ name: 'svc_portal', value: client.cookie.split('=')[1] as string, url: `${t.baseUrl}/portal` }]);
    await page.goto(`${t.baseUrl}/portal/commissions`);
    await page.getByRole('heading', { name: 'Commissions', level: 1 }).waitFor();
    await dataLoaded(page);
    const text = (await page.locator('main').textContent()) ?? '';
    expect(text).toContain('under review');
    expect(text).not.toContain('self_referral');
    expect(text).not.toContain('Self-referral');
    await screenshot(page, 'portal-commission-under-review');
    expect(errors).toEqual([]);
    await context.close();
  });
});
