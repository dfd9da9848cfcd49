
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, launchBrowser, type LiveService, newPage, screenshot, startLiveService, logInAdmin } from '../helpers/browser.js';

describe.skipIf(!CHROMIUM)(`admin: domains and the mail browser in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
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

  it('adds a domain, refuses a bad name in words, toggles it, and shows the 409 of a domain with mailboxes', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/domains');
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    const row = (d: string) => page.locator(`tr[data-domain="${d}"]`);
    await row('svc.test').waitFor();

    await page.locator('input[name="domain"]').fill('not a domain');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await expect.poll(() => page.getByText('Enter a domain name such as mail.example.com').count()).toBeGreaterThan(0);

    await page.locator('input[name="domain"]').fill('Bücher.Example');
    await page.getByRole('button', { name: 'Add domain' }).click();
    await row('xn--bcher-kva.example').waitFor();
    await row('xn--bcher-kva.example').getByRole('button', { name: 'Catch-all on' }).click();
    await expect.poll(() => row('xn--bcher-kva.example').locator('td').nth(2).textContent()).toBe('on');
    await row('xn--bcher-kva.example').getByRole('button', { name: 'Deactivate' }).click();
    await expect.poll(() => row('xn--bcher-kva.example').locator('td').nth(1).textContent()).toBe('inactive');
    const list = (await t.api('GET', '/api/domains')).json().items;
    expect(list).toContainEqual(expect.objectContaining({ domain: 'xn--bcher-kva.example', active: false, catch_all: true }));

    // svc.test has a mailbox: deleting it is refused, and the page says why
    expect((await t.api('POST', '/api/mailboxes', { name: 'someone' })).statusCode).toBe(201);
    await row('svc.test').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    const inUse = page.getByTestId('domain-in-use');
    await inUse.waitFor();
    expect(await inUse.textContent()).toMatch(/has mailboxes; deactivate it instead/);
    await screenshot(page, 'admin-domains');
    // a domain without mailboxes goes
    await row('xn--bcher-kva.example').getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await expect.poll(() => row('xn--bcher-kva.example').count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('adds a private domain (Public unticked), makes it public and private again; visitors are offered only public ones', async () => {
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/domains');
    await page.getByRole('heading', { name: 'Domains', level: 1 }).waitFor();
    const row = (d: string) => page.locator(`tr[data-domain="${d}"]`);
    await row('svc.test').waitFor();
    const offered = async () => (await t.request('GET', '/public/config')).json().domains as string[];

    await page.locator('input[name="domain"]').fill('staff.example');
    const publicBox = page.getByRole('checkbox', { name: /^Public: visitors .* can create mailboxes on it$/ });
    expect(await publicBox.isChecked()).toBe(true);
    await publicBox.uncheck();
    await page.getByRole('button', { name: 'Add domain' }).click();
    await row('staff.example').waitFor();
    await expect.poll(() => row('staff.example').locator('td').nth(3).textContent()).toBe('private');
    expect((await t.api('GET', '/api/domains')).json().items).toContainEqual(expect.objectContaining({ domain: 'staff.example', public: false }));
    expect(await offered()).not.toContain('staff.example');
    // the form is back to its defaults for the next domain
    expect(await publicBox.isChecked()).toBe(true);

    await row('staff.example').getByRole('button', { name: 'Make public' }).click();
    await expect.poll(() => row('staff.example').locator('td').nth(3).textContent()).toBe('public');
    await page.getByText('staff.example is public now').waitFor();
    expect(await offered()).toContain('staff.example');
    await row('staff.example').getByRole('button', { name: 'Make private' }).click();
    await expect.poll(() => row('staff.example').locator('td').nth(3).textContent()).toBe('private');
    expect(await offered()).not.toContain('staff.example');
    expect((await t.request('POST', '/mailboxes', { name: 'billing', domain: 'staff.example' })).statusCode).toBe(400);
    expect((await t.api('POST', '/api/mailboxes', { name: 'billing', domain: 'staff.example' })).statusCode).toBe(201);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('the mail browser lists caught mailboxes and reads their messages in the inbox reader', async () => {
    await t.api('POST', '/api/domains', { domain: 'catch.example', catch_all: true });
    const sent = await t.api('POST', '/api/inbound', { from: 'shop@example.org', to: 'signup@catch.example', subject: 'Confirm your account', text: 'Your code is 482913', html: '<p>Welcome <b>aboard</b></p>' });
    expect(sent.statusCode).toBe(201);
    const { context, page, errors } = await newPage(browser);
    await logInAdmin(page, t.baseUrl, '/admin/mailboxes');
    await page.getByRole('heading', { name: 'Mail browser', level: 1 }).waitFor();
    await page.locator('li[data-mailbox="signup@catch.example"] button').click();
    await page.getByRole('button', { name: /Confirm your account/ }).click();
    await page.getByRole('heading', { name: 'Confirm your account', level: 2 }).waitFor();
    expect(await page.getByTestId('code').first().textContent()).toBe('482913');
    // the HTML view is the service's sanitised document, framed with the admin session
    const frame = page.frameLocator('iframe.mail-frame');
    await frame.getByText('aboard').waitFor();
    await page.getByRole('tab', { name: 'Text' }).click();
    await page.getByText('Your code is 482913').waitFor();
    await screenshot(page, 'admin-mail-browser');
    expect(errors).toEqual([]);
    await context.close();
  });
});
