import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { PORTAL_PASSWORD } from '../helpers/portal.js';
import { type CapturedMail, linkIn, type SmtpCapture, startSmtpCapture } from '../helpers/smtp-capture.js';

// docs/api.md#email-confirmation: the sign-up says where the link went, the link's page confirms on a click,
// and Settings shows the state and mails a new link.
describe.skipIf(!CHROMIUM)(`email confirmation in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let smtp: SmtpCapture;
  let browser: Browser;
  const flush = async () => {
    await t.service.ctx.dispatcher.drain();
    await t.service.ctx.mailDispatcher.drain();
  };
  const confirmationTo = (to: string) => smtp.mails.filter((m) => m.to.includes(to) && m.subject.startsWith('Confirm'));

  beforeAll(async () => {
    smtp = await startSmtpCapture();
    t = await startLiveService({ SVC_SMTP_URL: smtp.url, SVC_MAIL_FROM: 'Affiliates <noreply@svc.test.local>' });
    browser = await launchBrowser();
    await (await t.admin()).call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await smtp?.close();
  });

  // each try has its own affiliate and address: a retry that signed up conf_aff again was refused 409
  let tries = 0;
  it('sign-up → "a link was mailed" → the link confirms on a click, once → Settings says confirmed; an address another affiliate confirmed is refused', { timeout: 120_000 }, async () => {
    const n = ++tries;
    const ref = `conf_aff${n}`;
    const email = `cora${n}@example.com`;
    const { context, page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/portal/signup`);
    await page.getByRole('form', { name: 'Sign up' }).getByLabel('Ref code').fill(ref);
    await page.getByLabel('Name').fill('Cora');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(PORTAL_PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    await page.getByText(`We mailed a confirmation link to ${email}`).waitFor();
    await page.getByRole('button', { name: 'Go to the portal' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.goto(`${t.baseUrl}/portal/settings`);
    const card = page.getByRole('region', { name: 'Email address' });
    await card.getByText('Not confirmed').waitFor();
    await screenshot(page, 'portal-email-unconfirmed');

    await flush();
    const link = linkIn(confirmationTo(email)[0] as CapturedMail, 'Confirm this address');
    expect(link.startsWith(`${t.baseUrl}/portal/confirm-email#token=`)).toBe(true);
    // opening the link confirms nothing by itself (a mail scanner opening it does no harm)
    await page.goto(link);
    await page.getByRole('heading', { name: 'Confirm your email address' }).waitFor();
    expect((await t.service.ctx.db.selectFrom('affiliates').select('email_confirmed_at').where('ref_code', '=', ref).executeTakeFirstOrThrow()).email_confirmed_at).toBeNull();
    await screenshot(page, 'portal-confirm-email');
    await page.getByRole('button', { name: 'Confirm this address' }).click();
    await page.getByText(`${email} is confirmed for the affiliate account ${ref}`).waitFor();
    // the fragment is gone from the address bar
    expect(page.url()).toBe(`${t.baseUrl}/portal/confirm-email`);
    await page.goto(`${t.baseUrl}/portal/settings`);
    await page.getByRole('region', { name: 'Email address' }).getByText('Confirmed', { exact: true }).waitFor();

    // the same link again: used up
    await page.goto(link);
    await page.getByRole('button', { name: 'Confirm this address' }).click();
    await page.getByText('This confirmation link does not work any more').waitFor();

    // someone else signs up with Cora's address: its link is refused, and says why
    const impostor = await t.service.app.inject({
      method: 'POST',
      url: '/portal/api/signup',
      payload: { ref_code: `conf_imp${n}`, name: 'Cora', email, password: PORTAL_PASSWORD },
      remoteAddress: '192.0.2.50',
    });
    expect(impostor.statusCode).toBe(201);
    await flush();
    const impostorLink = linkIn(confirmationTo(email)[1] as CapturedMail, 'Confirm this address');
    // opened from the mail: a page load of its own (a goto that changes only the fragment loads nothing)
    await page.goto(`${t.baseUrl}/portal`);
    await page.goto(impostorLink);
    await page.getByRole('button', { name: 'Confirm this address' }).click();
    await page.getByText('Another affiliate already confirmed this email address').waitFor();
    await screenshot(page, 'portal-confirm-email-taken');
    // a refused request is a 4xx the page explains, not a script error
    expect(errors.filter((e) => !/status of 4\d\d/.test(e))).toEqual([]);
    await context.close();
  });
});
