import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, logInAdmin, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { addAffiliate, addMailbox, earn, givePayoutDetails } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';

/** docs/api.md#payouts in Chromium: the portal's payout form (fields of the chosen method) and the admin's Payouts page. */
describe.skipIf(!CHROMIUM)(`payouts in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    await addAffiliate(t, 'payme');
    await addMailbox(t, 'buyer-payme@svc.test', 'payme');
    await earn(t, 'order-payme', 'buyer-payme@svc.test', 100);
    await addAffiliate(t, 'other1');
    await addMailbox(t, 'buyer-other1@svc.test', 'other1');
    await earn(t, 'order-other1', 'buyer-other1@svc.test', 50);
    await givePayoutDetails(t, 'other1', { method: 'paypal', email: 'other1@example.com' });
    await portalSignIn(t, 'payme');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('the portal form shows the fields of the chosen method, names a wrong IBAN, and saves PayPal details', { timeout: 90_000 }, async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/portal/settings`);
    await page.getByLabel('Ref code or email').fill('payme');
    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const payout = page.getByRole('form', { name: 'Payout', exact: true });
    await expect.poll(() => payout.getByLabel('Payout method').isEnabled()).toBe(true);

    await payout.getByLabel('Payout method').selectOption('sepa');
    expect(await payout.getByLabel('IBAN').count()).toBe(1);
    expect(await payout.getByLabel('Account holder').count()).toBe(1);
    expect(await payout.getByLabel('Email').count()).toBe(0);
    await payout.getByLabel('Account holder').fill('Pay Me');
    await payout.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 01');
    await payout.getByLabel('Current password').fill(PORTAL_PASSWORD);
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    const wrong = payout.getByText('Enter a valid IBAN of a SEPA country');
    await wrong.waitFor();

    await payout.getByLabel('Payout method').selectOption('paypal');
    expect(await payout.getByLabel('IBAN').count()).toBe(0);
    await payout.getByLabel('Email').fill('payme@example.com');
    await payout.getByLabel('Current password').fill(PORTAL_PASSWORD);
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    await payout.getByText('Saved.').waitFor();
    expect((await t.api('GET', '/api/affiliates/payme')).json().affiliate.payout_details).toEqual({ method: 'paypal', email: 'payme@example.com' });
    await screenshot(page, 'portal-payout-form');

    // the withdrawals page speaks of what is available to withdraw, requested and paid out
    await page.getByRole('link', { name: 'Withdrawals' }).click();
    await expect.poll(() => page.getByTestId('available').textContent()).toMatch(/^Available to withdraw: \d/);
    await page.getByLabel('Amount').fill('4');
    await page.getByRole('button', { name: 'Request', exact: true }).click();
    await page.getByText('Requested 4.00.', { exact: false }).waitFor();
    await page.getByTestId('payout-to').filter({ hasText: 'PayPal: payme@example.com' }).waitFor();
    expect(errors).toEqual([]);
  });

  it('the admin sees what is owed per method, makes a PayPal batch, downloads its file and marks it paid', { timeout: 90_000 }, async () => {
    expect((await t.api('POST', '/api/withdrawals', { ref_code: 'other1', amount: 2.5 })).statusCode).toBe(201);
    const { page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/payouts');
    await page.getByRole('heading', { name: 'Payouts', level: 1 }).waitFor();
    const owedRow = page.locator('[data-testid="owed"] tr[data-method="paypal"]');
    await expect.poll(() => owedRow.textContent()).toContain('6.50 USD');
    expect(await owedRow.textContent()).toContain('2');
    await screenshot(page, 'admin-payouts-owed');

    await owedRow.getByRole('button', { name: 'Make a batch' }).click();
    await page.getByText('Batch of 2 PayPal payouts made: 6.50 USD.').waitFor();
    const batchRow = page.locator('[data-testid="batches"] tbody tr').first();
    const download = page.waitForEvent('download');
    await batchRow.getByRole('link', { name: /Download PayPal Payouts CSV/ }).click();
    const file = await download;
    const text = await (await file.createReadStream()).toArray();
    const csv = Buffer.concat(text as Buffer[]).toString('utf8');
    expect(csv).toContain('payme@example.com,4.00,USD,');
    expect(csv).toContain('other1@example.com,2.50,USD,');

    await batchRow.getByRole('button', { name: 'Mark paid' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Mark paid' }).click();
    await page.getByText('Batch paid: 2 withdrawals marked paid.').waitFor();
    await batchRow.getByText('paid', { exact: true }).waitFor();
    const paid = (await t.api('GET', '/api/withdrawals?status=paid')).json().items as unknown[];
    expect(paid).toHaveLength(2);
    await screenshot(page, 'admin-payouts-paid');
    expect(errors).toEqual([]);
  });

  it('a Wise batch larger than one upload (1,000) offers its file in parts, each a whole file', { timeout: 90_000 }, async () => {
    await addAffiliate(t, 'wiser');
    await addMailbox(t, 'buyer-wiser@svc.test', 'wiser');
    await earn(t, 'order-wiser', 'buyer-wiser@svc.test', 200);
    await givePayoutDetails(t, 'wiser', { method: 'wise', email: 'wiser@example.com', account_holder: 'Wi Ser' });
    for (let i = 0; i < 1001; i++) expect((await t.api('POST', '/api/withdrawals', { ref_code: 'wiser', amount: 0.01 })).statusCode).toBe(201);
    const { page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/payouts');
    const owedRow = page.locator('[data-testid="owed"] tr[data-method="wise"]');
    await owedRow.getByRole('button', { name: 'Make a batch' }).click();
    await page.getByText('Batch of 1001 Wise payouts made: 10.01 USD.').waitFor();
    // the row by its method: both batches may carry the same instant, so newest first does not say which is on top
    const batchRow = page.locator('[data-testid="batches"] tbody tr').filter({ hasText: 'Wise' });
    await batchRow.getByText('Wise batch CSV in 2 files (Wise takes 1,000 per upload):').waitFor();
    expect(await batchRow.getByRole('link', { name: /^Part / }).count()).toBe(2);
    const download = page.waitForEvent('download');
    await batchRow.getByRole('link', { name: 'Part 2' }).click();
    const file = await download;
    expect(file.suggestedFilename()).toMatch(/^wise-pb_\w+-part-2-of-2\.csv$/);
    const csv = Buffer.concat((await (await file.createReadStream()).toArray()) as Buffer[]).toString('utf8');
    expect(csv.trim().split('\r\n')).toEqual([expect.stringMatching(/^name,recipientEmail,/), expect.stringMatching(/^Wi Ser,wiser@example.com,wd_\w+,PERSON,USD,0.01,USD,USD$/)]);
    await screenshot(page, 'admin-payouts-parts');
    expect(errors).toEqual([]);
  });
});
