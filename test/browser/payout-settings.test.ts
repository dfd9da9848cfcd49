import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, logInAdmin, newPage, screenshot, startLiveService } from '../helpers/browser.js';

/**
 * docs/api.md#payouts in Chromium: the Payouts card of the admin Settings page saves the program currency, the
 * payout minimum, the schedule and the SEPA debtor (only its own fields), says a wrong IBAN at its field
 * without saving anything, and says at the currency field that it is locked once an order exists.
 */
describe.skipIf(!CHROMIUM)(`payout settings in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
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

  const settings = async () => (await (await t.admin()).call('GET', '/admin/api/settings')).json().settings as Record<string, unknown>;

  it('saves currency, minimum, schedule and SEPA debtor; a wrong IBAN is said at its field and nothing is saved; a locked currency is said at its field', { timeout: 90_000 }, async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/settings');
    const form = page.getByRole('form', { name: 'Payouts' });
    const currency = form.getByLabel('Program currency');
    await expect.poll(() => currency.isEnabled()).toBe(true);
    expect(await currency.inputValue()).toBe('USD');
    const before = await settings();

    await currency.selectOption('EUR');
    await form.getByLabel('Payout minimum').fill('25.50');
    await form.getByLabel('Payout schedule').selectOption('monthly');
    await form.getByLabel('SEPA debtor name').fill('Example Shop GmbH');
    await form.getByLabel('SEPA debtor IBAN').fill('DE89 3704 0044 0532 0130 00');
    await form.getByLabel('SEPA debtor BIC').fill('cobadeffxxx');
    const patch = page.waitForRequest((r) => r.method() === 'PATCH' && r.url().endsWith('/admin/api/settings'));
    await form.getByRole('button', { name: 'Save payout settings' }).click();
    // only this card's fields travel
    expect(Object.keys((await patch).postDataJSON() as object).sort()).toEqual([
      'currency',
      'payout_minimum',
      'payout_schedule',
      'sepa_debtor_bic',
      'sepa_debtor_iban',
      'sepa_debtor_name',
    ]);
    await form.getByText('Saved.', { exact: true }).waitFor();
    const saved = await settings();
    expect(saved).toMatchObject({
      currency: 'EUR',
      payout_minimum: 25.5,
      payout_schedule: 'monthly',
      sepa_debtor_name: 'Example Shop GmbH',
      sepa_debtor_iban: 'DE89370400440532013000',
      sepa_debtor_bic: 'COBADEFFXXX',
    });
    expect({ ...saved, currency: before.currency, payout_minimum: before.payout_minimum, payout_schedule: before.payout_schedule, sepa_debtor_name: null, sepa_debtor_iban: null, sepa_debtor_bic: null }).toEqual(before);
    // the form shows what was saved, as the service wrote it
    expect(await form.getByLabel('SEPA debtor IBAN').inputValue()).toBe('DE89370400440532013000');
    expect(await form.getByLabel('Payout minimum (EUR)').inputValue()).toBe('25.5');
    await screenshot(page, 'admin-settings-payouts');

    // a wrong check digit: said at the IBAN field, and the name typed with it is not saved either
    await form.getByLabel('SEPA debtor name').fill('Another Name');
    const iban = form.getByLabel('SEPA debtor IBAN');
    await iban.fill('DE89 3704 0044 0532 0130 01');
    await form.getByRole('button', { name: 'Save payout settings' }).click();
    const ibanAlert = form.getByRole('alert');
    await ibanAlert.waitFor();
    expect(await ibanAlert.textContent()).toBe('Enter a valid IBAN of a SEPA country (its check digits or length are wrong). Leave it empty for none.');
    expect(await iban.getAttribute('aria-invalid')).toBe('true');
    expect(await iban.getAttribute('aria-describedby')).toBe(await ibanAlert.getAttribute('id'));
    expect(await form.getByText('Saved.', { exact: true }).count()).toBe(0);
    expect(await settings()).toEqual(saved);

    // an order exists: the currency is locked, and the refusal is said at the currency field
    expect((await t.api('POST', '/api/orders', { order_id: 'locks-currency', email: 'buyer@svc.test', amount: 10, product: 'p' })).statusCode).toBe(201);
    await page.reload();
    await expect.poll(() => currency.isEnabled()).toBe(true);
    expect(await currency.inputValue()).toBe('EUR');
    await currency.selectOption('USD');
    await form.getByRole('button', { name: 'Save payout settings' }).click();
    const lockedAlert = form.getByRole('alert');
    await lockedAlert.waitFor();
    expect(await lockedAlert.textContent()).toBe('The currency cannot change any more: orders exist, and their amounts are in the current currency.');
    expect(await currency.getAttribute('aria-invalid')).toBe('true');
    expect((await settings()).currency).toBe('EUR');

    // the other fields still save with the currency as it is
    await currency.selectOption('EUR');
    await form.getByLabel('Payout minimum (EUR)').fill('30');
    await form.getByRole('button', { name: 'Save payout settings' }).click();
    await form.getByText('Saved.', { exact: true }).waitFor();
    expect(await settings()).toMatchObject({ currency: 'EUR', payout_minimum: 30 });
    expect(errors).toEqual([]);
    await context.close();
  });
});
