import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';

describe.skipIf(!CHROMIUM)(`the inbox's search box in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
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

  it('narrows the list to the messages holding every word typed, in any order, any script; clearing it shows all again', async () => {
    const { page, context, errors } = await newPage(browser);
    try {
      await page.goto(`${t.baseUrl}/`);
      await page.getByRole('button', { name: 'Create a random mailbox' }).click();
      await page.waitForURL(`${t.baseUrl}/inbox`);
      const address = (await page.getByTestId('address').textContent())?.trim() ?? '';
      await page.getByText('● Live').waitFor();
      for (const mail of [
        { subject: 'Your invoice for November', from: 'billing@stripe.example', text: 'Amount due' },
        { subject: 'Welcome to Acme', from: 'hello@acme.example', text: 'Confirm your address to start.' },
        { subject: 'Подтверждение регистрации', from: 'robot@yandex.example', text: 'Ваш код: 604118' },
      ]) {
        expect((await t.api('POST', '/api/inbound', { to: address, ...mail })).statusCode).toBe(201);
      }
      const rows = page.locator('li.message-item');
      await expect.poll(() => rows.count()).toBe(3);

      const box = page.getByRole('searchbox', { name: 'Search this inbox' });
      await box.fill('address acme');
      await expect.poll(() => rows.count()).toBe(1);
      expect(await rows.first().textContent()).toContain('Welcome to Acme');
      await screenshot(page, 'inbox-search');

      await box.fill('РЕГИСТРАЦИИ');
      await expect.poll(async () => (await rows.count()) === 1 && (await rows.first().textContent())?.includes('Подтверждение')).toBe(true);

      await box.fill('nothing like this');
      await page.getByText('No message matches “nothing like this”.').waitFor();
      expect(await rows.count()).toBe(0);

      await box.fill('');
      await expect.poll(() => rows.count()).toBe(3);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
