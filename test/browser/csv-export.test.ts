import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, downloadText, launchBrowser, type LiveService, newPage, screenshot, startLiveService, logInAdmin } from '../helpers/browser.js';
import { parseCsv } from '../helpers/csv.js';

/** Clicks "Export CSV" and answers the downloaded file's name and records. */
async function exportCsv(page: Page): Promise<{ name: string; records: string[][] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Export CSV' }).click()]);
  return { name: download.suggestedFilename(), records: parseCsv(await downloadText(download)) };
}

describe.skipIf(!CHROMIUM)(`CSV export buttons in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    for (const ref of ['exp-a', 'exp-b']) expect((await t.api('POST', '/api/affiliates', { ref_code: ref })).statusCode).toBe(201);
    for (const [box, ref] of [
      ['ea', 'exp-a'],
      ['eb', 'exp-b'],
    ] as const) {
      expect((await t.api('POST', '/api/mailboxes', { name: box, ref_code: ref })).statusCode).toBe(201);
    }
    // exp-a: three commissions, two of them paid; exp-b: one pending
    for (const [id, email, amount] of [
      ['ex-1', 'ea@svc.test', 10],
      ['ex-2', 'ea@svc.test', 20],
      ['ex-3', 'ea@svc.test', 30],
      ['ex-4', 'eb@svc.test', 40],
    ] as const) {
      expect((await t.api('POST', '/api/orders', { order_id: id, email, amount, product: '=SUM(1,2)' })).statusCode).toBe(201);
      const paid = (await t.api('POST', '/api/orders/pay', { order_id: id })).json();
      if (id === 'ex-1' || id === 'ex-2') expect((await t.api('POST', `/api/commissions/${paid.commission.id}/mark-paid`)).statusCode).toBe(200);
    }
    expect((await t.api('POST', '/api/orders', { order_id: 'ex-5', email: 'nobody@example.com', amount: 5, product: 'x' })).statusCode).toBe(201);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('downloads exactly the commissions the status filter shows, then the orders of a search', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/commissions');
    const rows = page.locator('tbody tr[data-id]');
    await expect.poll(() => rows.count()).toBe(4);
    await page.getByLabel('Status').selectOption('paid');
    await expect.poll(() => rows.count()).toBe(2);
    const shown = await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-id')));
    await screenshot(page, 'admin-commissions-export');

    const paid = await exportCsv(page);
    expect(paid.name).toMatch(/^commissions-\d{4}-\d{2}-\d{2}\.csv$/);
    const [header, ...records] = paid.records as [string[], ...string[][]];
    expect(header.slice(0, 3)).toEqual(['id', 'order_id', 'ref_code']);
    const col = (name: string) => header.indexOf(name);
    expect(records.map((r) => r[col('id')])).toEqual(shown);
    // (in the list's order, checked above; two commissions booked in one millisecond tie on created_at)
    expect(records.map((r) => [r[col('order_id')], r[col('ref_code')], r[col('commission')], r[col('status')]]).sort()).toEqual([
      ['ex-1', 'exp-a', '1.00', 'paid'],
      ['ex-2', 'exp-a', '2.00', 'paid'],
    ]);

    // no filter: every commission
    await page.getByLabel('Status').selectOption('');
    await expect.poll(() => rows.count()).toBe(4);
    expect((await exportCsv(page)).records).toHaveLength(5);

    // Orders: the search applied (not what is typed but not yet searched) decides the rows
    await page.getByRole('navigation').getByRole('link', { name: 'Orders' }).click();
    const oRows = page.locator('tbody tr[data-id]');
    await expect.poll(() => oRows.count()).toBe(5);
    await page.getByLabel('Search', { exact: true }).fill('ex-3');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(() => oRows.count()).toBe(1);
    const orders = await exportCsv(page);
    expect(orders.name).toMatch(/^orders-/);
    const [oHeader, ...oRecords] = orders.records as [string[], ...string[][]];
    expect(oRecords).toHaveLength(1);
    const row = oRecords[0] as string[];
    expect(row[oHeader.indexOf('order_id')]).toBe('ex-3');
    expect(row[oHeader.indexOf('product')]).toBe("'=SUM(1,2)");
    expect(row[oHeader.indexOf('commission_status')]).toBe('pending');
    expect(errors).toEqual([]);
    await context.close();
  });

  it('downloads the dashboard summary for the affiliate picked, and the withdrawals', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin?ref_code=exp-a');
    await page.getByRole('heading', { name: 'Per affiliate' }).waitFor();
    await expect.poll(() => page.locator('.summary-table tbody tr').count()).toBeGreaterThan(0);
    const summary = await exportCsv(page);
    expect(summary.name).toMatch(/^affiliate-summary-/);
    const [header, ...records] = summary.records as [string[], ...string[][]];
    expect(header).toContain('commission_pending');
    expect(records.map((r) => [r[header.indexOf('ref_code')], r[header.indexOf('commission_paid')], r[header.indexOf('balance')]])).toEqual([['exp-a', '3.00', '3.00']]);

    expect((await t.api('PATCH', '/api/affiliates/exp-a', { payout_details: { method: 'other', note: 'by hand' } })).statusCode).toBe(200);
    expect((await t.api('POST', '/api/withdrawals', { ref_code: 'exp-a', amount: 1.5 })).statusCode).toBe(201);
    await page.getByRole('navigation').getByRole('link', { name: 'Withdrawals' }).click();
    await expect.poll(() => page.locator('tbody tr[data-id]').count()).toBe(1);
    await page.getByLabel('Status').selectOption('rejected');
    await expect.poll(() => page.locator('tbody tr[data-id]').count()).toBe(0);
    // docs/api.md#payouts: each row carries the currency and the payout details it was requested with
    expect((await exportCsv(page)).records).toEqual([
      ['id', 'ref_code', 'amount', 'currency', 'status', 'payout_method', 'payout_email', 'payout_iban', 'payout_bic', 'payout_account_holder', 'payout_note', 'batch_id', 'created_at'],
    ]);
    await page.getByLabel('Status').selectOption('requested');
    await expect.poll(() => page.locator('tbody tr[data-id]').count()).toBe(1);
    const requested = (await exportCsv(page)).records;
    expect(requested.slice(1).map((r) => [r[1], r[2], r[3], r[4], r[5], r[10]])).toEqual([['exp-a', '1.50', 'USD', 'requested', 'other', 'by hand']]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
