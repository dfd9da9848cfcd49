import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService } from '../helpers/browser.js';
import { addAffiliate, addMailbox, earn } from '../helpers/ledger-fixtures.js';
import { PORTAL_PASSWORD, portalSignIn } from '../helpers/portal.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

const PASSWORD = 'journey-password-1';
const PORTAL_PAGES = [
  { path: '/portal', heading: 'Dashboard' },
  { path: '/portal/commissions', heading: 'Commissions' },
  { path: '/portal/withdrawals', heading: 'Withdrawals' },
  { path: '/portal/settings', heading: 'Settings' },
] as const;

async function adminLogIn(page: Page, baseUrl: string, path: string): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}

/** Nothing wider than the screen: the page never scrolls sideways (tables scroll in their own box). */
async function fitsWidth(page: Page): Promise<boolean> {
  return (await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth + 1')) === true;
}

describe.skipIf(!CHROMIUM)(`affiliate portal in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    await addAffiliate(t, 'journey', { rateBp: 1000 });
    // this journey starts without payout details (the fixture gives some)
    await t.api('PATCH', '/api/affiliates/journey', { payout_details: null });
    await addMailbox(t, 'buyer-journey@svc.test', 'journey');
    await earn(t, 'order-journey', 'buyer-journey@svc.test', 100);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  it('invitation → password → dashboard with link and balance → withdrawal → the admin sees it with payout details', { timeout: 120_000 }, async () => {
    // the admin invites from the affiliate's row
    const admin = await newPage(browser);
    await adminLogIn(admin.page, t.baseUrl, '/admin/affiliates');
    const row = admin.page.locator('tr[data-ref="journey"]');
    await row.getByRole('button', { name: 'Invite' }).click();
    const inviteInput = row.getByLabel('Invitation link of journey');
    await inviteInput.waitFor();
    const inviteUrl = await inviteInput.inputValue();
    expect(inviteUrl).toMatch(new RegExp(`^${t.baseUrl}/portal/accept#token=[\\w-]{40,}$`));
    await screenshot(admin.page, 'portal-admin-invite');

    // the affiliate opens it and chooses a password
    const { context, page, errors } = await newPage(browser);
    await page.goto(inviteUrl);
    await page.getByRole('heading', { name: 'Welcome to svc affiliates' }).waitFor();
    await screenshot(page, 'portal-accept');
    await page.getByLabel('New password').fill(PASSWORD);
    await page.getByLabel('Repeat the password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Set password and sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/portal');
    expect(new URL(page.url()).hash).toBe('');

    // the dashboard: the link ready to copy, its QR code, the balance
    expect(await page.getByLabel('Your promotion link').inputValue()).toBe(`${t.baseUrl}/go/journey`);
    expect(await page.getByRole('button', { name: /Copy link/ }).isVisible()).toBe(true);
    expect(await page.locator('[data-testid="qr"] svg').count()).toBe(1);
    const balance = page.locator('[data-figure="Balance"] .figure-value');
    await expect.poll(() => balance.textContent()).toBe('10.00');
    expect(await page.locator('[data-figure="Paid orders"] .figure-value').textContent()).toBe('1');
    expect(await page.locator('[data-figure="Mailboxes"] .figure-value').textContent()).toBe('1');
    // the chart draws its canvas in an effect, a frame after the figures
    await page.locator('.chart canvas').first().waitFor();
    await screenshot(page, 'portal-dashboard');

    // payout details need the current password (docs/api.md#affiliate-portal): a wrong one is refused at its field and
    // saves nothing; the right one saves. Then a refused and an accepted withdrawal.
    await page.getByRole('link', { name: 'Settings' }).click();
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    const payout = page.getByRole('form', { name: 'Payout', exact: true });
    // docs/api.md#payouts: the form shows the fields of the chosen method
    await expect.poll(() => payout.getByLabel('Payout method').isEnabled()).toBe(true);
    await payout.getByLabel('Payout method').selectOption('sepa');
    await payout.getByLabel('Account holder').fill('Jo Urney');
    await payout.getByLabel('IBAN').fill('DE89 3704 0044 0532 0130 00');
    const currentPassword = payout.getByLabel('Current password');
    await currentPassword.fill('not-my-password');
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    const passwordRefused = payout.getByRole('alert');
    await passwordRefused.waitFor();
    expect(await passwordRefused.textContent()).toMatch(/current password is wrong/);
    // at the field: it describes the password input, which is marked invalid; no banner in the form
    expect(await currentPassword.getAttribute('aria-invalid')).toBe('true');
    expect(await currentPassword.getAttribute('aria-describedby')).toBe(await passwordRefused.getAttribute('id'));
    expect(await payout.locator('.alert').count()).toBe(0);
    await screenshot(page, 'portal-settings-wrong-password');
    const account = () => t.service.ctx.db.selectFrom('affiliate_accounts').select('payout_details').where('ref_code', '=', 'journey').executeTakeFirst();
    expect((await account())?.payout_details).toBeNull();
    await currentPassword.fill(PASSWORD);
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    await payout.getByText('Saved.').waitFor();
    expect(await payout.getByRole('alert').count()).toBe(0);
    expect(await currentPassword.inputValue()).toBe('');
    await expect.poll(() => payout.getByLabel('IBAN').inputValue()).toBe('DE89370400440532013000');
    expect(JSON.parse((await account())?.payout_details ?? 'null')).toEqual({ method: 'sepa', iban: 'DE89370400440532013000', account_holder: 'Jo Urney' });
    await screenshot(page, 'portal-settings');

    await page.getByRole('link', { name: 'Withdrawals' }).click();
    await page.getByRole('heading', { name: 'Withdrawals', level: 1 }).waitFor();
    await expect.poll(() => page.getByTestId('available').textContent()).toContain('10.00');
    await page.getByLabel('Amount').fill('50');
    await page.getByRole('button', { name: 'Request', exact: true }).click();
    const refused = page.getByRole('alert');
    await refused.waitFor();
    expect(await refused.textContent()).toMatch(/more than your available balance \(10\.00\)/);
    await page.getByLabel('Amount').fill('4');
    await page.getByRole('button', { name: 'Request', exact: true }).click();
    await page.getByText('Requested 4.00.', { exact: false }).waitFor();
    await expect.poll(() => page.getByTestId('available').textContent()).toContain('6.00');
    await page.locator('tbody tr').filter({ hasText: '4.00' }).first().waitFor();
    await screenshot(page, 'portal-withdrawals');

    await page.getByRole('link', { name: 'Commissions' }).click();
    await page.getByRole('heading', { name: 'Commissions', level: 1 }).waitFor();
    await page.locator('tbody tr').filter({ hasText: 'order-journey' }).waitFor();
    await screenshot(page, 'portal-commissions');

    // the admin sees the withdrawal with the payout details beside it
    await admin.page.getByRole('link', { name: 'Withdrawals' }).click();
    const wRow = admin.page.locator('tbody tr').filter({ hasText: 'journey' }).first();
    await wRow.getByTestId('payout-details').filter({ hasText: 'SEPA: DE89370400440532013000' }).waitFor();
    expect(await wRow.textContent()).toContain('4.00');
    await screenshot(admin.page, 'portal-admin-withdrawals');

    // the affiliate changes its payout details while the admin's page stays open: the withdrawal keeps
    // where it was requested to be paid (docs/api.md#payouts), in the dialog and the row
    await t.service.ctx.db.updateTable('affiliate_accounts').set({ payout_details: 'IBAN FR76 3000 6000 0112' }).where('ref_code', '=', 'journey').execute();
    expect(await wRow.getByTestId('payout-details').textContent()).toContain('SEPA: DE89');
    await wRow.getByRole('button', { name: 'Mark paid' }).click();
    const confirm = admin.page.getByRole('dialog');
    await confirm.getByTestId('pay-to').filter({ hasText: 'SEPA: DE89370400440532013000' }).waitFor();
    expect(await wRow.getByTestId('payout-details').textContent()).toContain('SEPA: DE89');
    await screenshot(admin.page, 'portal-admin-withdrawal-pay-to');
    await confirm.getByRole('button', { name: 'Mark paid' }).click();
    await admin.page.getByText(/marked paid/).waitFor();
    await wRow.getByText('paid', { exact: true }).waitFor();

    // sign out, and back in with the password
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    await screenshot(page, 'portal-sign-in');
    await page.getByLabel('Ref code').fill('journey');
    await page.getByLabel('Password').fill('wrong-password-x');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();

    expect(errors).toEqual([]);
    expect(admin.errors).toEqual([]);
    await context.close();
    await admin.context.close();
  });

  it('what is typed as soon as the payout field is enabled is what gets saved, however late the page runs its effects', async () => {
    await addAffiliate(t, 'eager');
    const client = await portalSignIn(t, 'eager');
    const { context, page, errors } = await newPage(browser);
    const [name = '', value = ''] = client.cookie.split('=');
    await context.addCookies([{ name, value, url: t.baseUrl }]);
    // The affiliate's details answer only once the page's timers and animation frames are held back (a
    // busy machine): the field is enabled and typed into before any effect of that render has run.
    let answerMe: () => void = () => {};
    const meHeld = new Promise<void>((resolve) => {
      answerMe = resolve;
    });
    await page.route('**/portal/api/me', async (route) => {
      await meHeld;
      await route.continue();
    });
    await page.clock.install();
    await page.goto(`${t.baseUrl}/portal/settings`);
    await page.getByRole('heading', { name: 'Settings', level: 1 }).waitFor();
    await page.clock.pauseAt(Date.now() + 60_000);
    answerMe();
    // the fixture's details are an `other` note (docs/api.md#payouts): its field is the one typed into
    const field = page.getByLabel('How to pay you');
    await expect.poll(() => field.isEnabled()).toBe(true);
    await field.fill('PayPal eager@example.com');
    await page.clock.resume();
    expect(await field.inputValue()).toBe('PayPal eager@example.com');
    const payout = page.getByRole('form', { name: 'Payout', exact: true });
    await payout.getByLabel('Current password').fill(PORTAL_PASSWORD);
    await payout.getByRole('button', { name: 'Save payout details' }).click();
    await page.getByText('Saved.').waitFor();
    expect((await client.call('GET', '/portal/api/me')).json().affiliate.payout_details).toEqual({ method: 'other', note: 'PayPal eager@example.com' });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('sign-up when open; every portal page fits a phone (390 px)', { timeout: 120_000 }, async () => {
    const adminClient = await t.admin();
    await adminClient.call('PATCH', '/admin/api/settings', { affiliate_signup: 'open' });
    const { context, page, errors } = await newPage(browser, { mobile: true });
    await page.goto(`${t.baseUrl}/portal/signup`);
    await page.getByRole('form', { name: 'Sign up' }).getByLabel('Ref code').waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'portal-signup-phone');
    await page.getByLabel('Ref code').fill('phone_aff');
    await page.getByLabel('Name').fill('Pat Phone');
    await page.getByLabel('Email').fill('pat@example.com');
    await page.getByLabel('Password').fill(PASSWORD);
    await page.getByRole('button', { name: 'Sign up' }).click();
    // the sign-up says where the confirmation link went before it leads on
    await page.getByText('This service sends no mail, so your email cannot be confirmed yet').waitFor();
    await page.getByRole('button', { name: 'Go to the portal' }).click();
    await page.getByRole('heading', { name: 'Dashboard', level: 1 }).waitFor();
    for (const { path, heading } of PORTAL_PAGES) {
      await page.goto(`${t.baseUrl}${path}`);
      await page.getByRole('heading', { name: heading, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await fitsWidth(page), `${path} fits 390 px`).toBe(true);
      await screenshot(page, `portal-${heading.toLowerCase()}-phone`);
    }
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    expect(await fitsWidth(page)).toBe(true);
    await screenshot(page, 'portal-sign-in-phone');
    await page.goto(`${t.baseUrl}/portal/accept#token=x`);
    await page.getByRole('heading', { name: 'Welcome to svc affiliates' }).waitFor();
    await screenshot(page, 'portal-accept-phone');
    expect(errors).toEqual([]);
    await context.close();
    await adminClient.call('PATCH', '/admin/api/settings', { affiliate_signup: 'closed' });
  });
});
