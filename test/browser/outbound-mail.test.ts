import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';
import { linkIn, type SmtpCapture, startSmtpCapture } from '../helpers/smtp-capture.js';

const NEW_PASSWORD = 'reset-journey-password-1';

describe.skipIf(!CHROMIUM)(`password reset by mail in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let smtp: SmtpCapture;
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await startLiveService({ SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: 'Affiliates <noreply@svc.test.local>' });
    browser = await launchBrowser();
    const res = await t.api('POST', '/api/affiliates', { ref_code: 'forgetful', name: 'Fay', email: 'fay@example.com' });
    expect(res.statusCode).toBe(201);
    await portalSignIn(t, 'forgetful', PORTAL_PASSWORD);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  it('forgot password → the mail → a new password → signed in; the email signs in too', { timeout: 120_000 }, async () => {
    const { page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/portal`);
    await page.getByRole('link', { name: 'Forgot your password?' }).click();
    await page.getByRole('heading', { name: 'Forgot your password?' }).waitFor();
    await page.getByLabel('Ref code or email').fill('fay@example.com');
    await page.getByRole('button', { name: 'Mail me a link' }).click();
    await page.getByText('a mail with a link to choose a new password is on its way').waitFor();
    await screenshot(page, 'portal-forgot');

    // the worker sends it (no drain: the live service's own worker)
    await expect.poll(() => smtp.mails.filter((m) => m.subject === 'Reset your affiliate portal password').length, { timeout: 15_000 }).toBe(1);
    const mail = smtp.mails.find((m) => m.subject === 'Reset your affiliate portal password');
    expect(mail?.to).toEqual(['fay@example.com']);
    const link = linkIn(mail as NonNullable<typeof mail>, 'Choose a new password');
    expect(link.startsWith(`${t.baseUrl}/portal/reset#token=`)).toBe(true);

    await page.goto(link);
    await page.getByRole('heading', { name: 'Choose a new password' }).waitFor();
    await page.locator('input[name="password"]').fill(NEW_PASSWORD);
    await page.getByLabel('Repeat the password').fill(NEW_PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(new URL(page.url()).hash).toBe('');
    await screenshot(page, 'portal-after-reset');

    // the link works once
    const again = await t.request('POST', '/portal/api/reset-password', { token: link.split('#token=')[1], password: 'another-password-1' });
    expect(again.statusCode).toBe(400);
    // a fresh browser signs in with the email and the new password
    const second = await newPage(browser);
    await second.page.goto(`${t.baseUrl}/portal`);
    await second.page.getByLabel('Ref code or email').fill('fay@example.com');
    await second.page.getByLabel('Password').fill(NEW_PASSWORD);
    await second.page.getByRole('button', { name: 'Sign in' }).click();
    await second.page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    // the settings page turns notifications off
    await second.page.goto(`${t.baseUrl}/portal/settings`);
    const box = second.page.getByLabel('Mail me when a commission is approved');
    // enabled once the account has loaded: before that the box shows its default, checked
    await expect.poll(() => box.isEnabled()).toBe(true);
    expect(await box.isChecked()).toBe(true);
    await box.uncheck();
    await second.page.getByRole('button', { name: 'Save notifications' }).click();
    await second.page.getByText('Saved.').waitFor();
    expect((await t.service.ctx.db.selectFrom('affiliate_accounts').select('notify_commissions').where('ref_code', '=', 'forgetful').executeTakeFirst())?.notify_commissions).toBe(0);
    expect(errors).toEqual([]);
    expect(second.errors).toEqual([]);
  });
});
