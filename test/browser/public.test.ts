import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, downloadText, hasRoute, launchBrowser, type LiveService, newPage, requireFeature, screenshot, startLiveService } from '../helpers/browser.js';
import { TEST_ADMIN_PASSWORD } from '../helpers/service.js';

describe.skipIf(!CHROMIUM)(`public pages in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;
  let attribution = false;
  let mail = false;

  beforeAll(async () => {
    t = await startLiveService({ SVC_MAIL_DOMAINS: 'svc.test,mail.example' });
    browser = await launchBrowser();
    attribution = hasRoute(t, 'GET', '/public/config') && hasRoute(t, 'POST', '/mailboxes') && hasRoute(t, 'GET', '/api/affiliate/summary');
    mail = attribution && hasRoute(t, 'POST', '/api/inbound') && hasRoute(t, 'GET', '/mailboxes/:address/events');
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  /** A visitor with a fresh mailbox on the inbox page, its address and token. */
  async function visitorWithInbox() {
    const session = await newPage(browser);
    await session.page.goto(`${t.baseUrl}/`);
    await session.page.getByRole('button', { name: 'Create a random mailbox' }).click();
    await session.page.waitForURL(`${t.baseUrl}/inbox`);
    const address = (await session.page.getByTestId('address').textContent())?.trim() ?? '';
    expect(address).toMatch(/^[^@\s]+@svc\.test$/);
    // The inbox listens for new mail before anything is sent.
    await session.page.getByText('● Live').waitFor();
    return { ...session, address };
  }

  async function inbound(body: Record<string, unknown>) {
    const res = await t.api('POST', '/api/inbound', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().message as { id: string };
  }

  it('follows /go/<code> to the landing page, creates a mailbox, and the summary counts click and mailbox', async (ctx) => {
    requireFeature(ctx, attribution, 'attribution (/go, POST /mailboxes, /public/config, summary)');
    expect((await t.api('POST', '/api/affiliates', { ref_code: 'spring' })).statusCode).toBe(201);

    const { context, page, errors } = await newPage(browser);
    await page.goto(`${t.baseUrl}/go/spring`);
    await page.waitForURL(/\/\?ref=spring$/);
    await page.getByRole('button', { name: 'Create a random mailbox' }).waitFor();
    await screenshot(page, 'landing');
    await page.getByRole('button', { name: 'Create a random mailbox' }).click();
    await page.waitForURL(`${t.baseUrl}/inbox`);
    const address = (await page.getByTestId('address').textContent())?.trim() ?? '';
    expect(address).toMatch(/^[^@\s]+@svc\.test$/);
    // Reading the inbox is the mail feature's; without it this scenario still checks the attribution.
    if (mail) await page.getByText('No mail yet.').waitFor();
    await screenshot(page, 'inbox-empty');

    // A reload keeps the inbox: the token lives in localStorage.
    await page.reload();
    expect((await page.getByTestId('address').textContent())?.trim()).toBe(address);

    const summary = await t.api('GET', '/api/affiliate/summary?ref_code=spring');
    expect(summary.json()).toMatchObject({ success: true, summary: [{ ref_code: 'spring', clicks: 1, mailboxes: 1, conversion_rate: 1 }] });

    // The admin dashboard shows the same row.
    const admin = await newPage(browser);
    await admin.page.goto(`${t.baseUrl}/admin`);
    await admin.page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
    await admin.page.getByRole('button', { name: 'Log in' }).click();
    const row = admin.page.locator('tbody tr[data-ref="spring"]');
    await row.waitFor();
    expect(await row.locator('[data-col="clicks"]').textContent()).toBe('1');
    expect(await row.locator('[data-col="mailboxes"]').textContent()).toBe('1');
    await admin.page.locator('.chart canvas').first().waitFor();
    await screenshot(admin.page, 'admin-dashboard-with-data');
    expect(admin.errors).toEqual([]);
    await admin.context.close();

    expect(errors).toEqual([]);
    await context.close();
  });

  it('creates a chosen name on a chosen domain, and says so in words when it is taken', async (ctx) => {
    requireFeature(ctx, mail, 'public mailbox creation and the inbox');
    const { context, page, errors } = await newPage(browser, { mobile: true });
    await page.goto(`${t.baseUrl}/`);
    await page.getByLabel('Name (optional)').fill('alice');
    await page.getByLabel('Domain').selectOption('mail.example');
    await screenshot(page, 'landing-phone');
    await page.getByRole('button', { name: 'Create this mailbox' }).click();
    await page.waitForURL(`${t.baseUrl}/inbox`);
    expect((await page.getByTestId('address').textContent())?.trim()).toBe('alice@mail.example');
    // a message with a long subject and a wide body still fits the phone: no sideways scrolling
    const subject = `A very long subject line that goes on and on ${'and on '.repeat(12)}`;
    expect((await t.api('POST', '/api/inbound', { to: 'alice@mail.example', subject, text: 'x'.repeat(300) })).statusCode).toBe(201);
    // the row, not the screen reader's announcement of the same arrival
    await page.locator('.message-row').getByText(subject.slice(0, 30)).click();
    await page.getByRole('heading', { name: subject.trim() }).waitFor();
    expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
    await screenshot(page, 'inbox-phone');

    // Leaving the mailbox asks first, then the same name again is refused with a readable message.
    await page.getByRole('button', { name: 'New mailbox', exact: true }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Leave it' }).click();
    await page.waitForURL(`${t.baseUrl}/`);
    await page.getByLabel('Name (optional)').fill('alice');
    await page.getByLabel('Domain').selectOption('mail.example');
    await page.getByRole('button', { name: 'Create this mailbox' }).click();
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect((await alert.textContent())?.length).toBeGreaterThan(5);
    expect(page.url()).toBe(`${t.baseUrl}/`);
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows new mail live, opens it, downloads its attachment and deletes it', async (ctx) => {
    requireFeature(ctx, mail, 'mail intake and the inbox API');
    const { context, page, errors, address } = await visitorWithInbox();
    await inbound({
      to: address,
      from: 'shop@example.com',
      from_name: 'Example Shop',
      subject: 'Your receipt',
      text: 'Thanks for your order.\nTotal: 12.50',
      attachments: [{ filename: 'receipt.txt', content_type: 'text/plain', content_base64: Buffer.from('receipt body').toString('base64') }],
    });
    // No reload: the row arrives over server-sent events.
    const row = page.getByRole('button', { name: /Your receipt/ });
    await row.waitFor({ timeout: 10_000 });
    await row.click();
    await page.getByRole('heading', { name: 'Your receipt' }).waitFor();
    expect(await page.locator('.mail-text').textContent()).toContain('Total: 12.50');
    await screenshot(page, 'inbox-message');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: /receipt\.txt/ }).click()]);
    expect(download.suggestedFilename()).toBe('receipt.txt');
    expect(await downloadText(download)).toBe('receipt body');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page.getByText('No mail yet.').waitFor();
    const list = await t.api('GET', `/api/mailboxes/${encodeURIComponent(address)}/messages`);
    expect(list.json()).toMatchObject({ success: true, items: [] });
    expect(errors).toEqual([]);
    await context.close();
  });

  it('shows an HTML message in a sandboxed frame where its script and event handlers do not run', async (ctx) => {
    requireFeature(ctx, mail, 'mail intake and the inbox API');
    const { context, page, errors, address } = await visitorWithInbox();
    const title = await page.title();
    await inbound({
      to: address,
      from: 'attacker@example.com',
      subject: 'Harmless looking',
      html: [
        '<p id="greeting">Hello from <b>HTML</b></p>',
        '<script>document.body.setAttribute("data-pwned","script");window.parent.pwned=1;window.parent.document.title="pwned"</script>',
        '<img src="data:," onerror="document.body.setAttribute(\'data-pwned\',\'onerror\');window.parent.pwned=2">',
        '<a id="js-link" href="javascript:window.parent.pwned=3">click</a>',
      ].join(''),
    });
    await page.getByRole('button', { name: /Harmless looking/ }).click();
    const frame = page.frameLocator('iframe.mail-frame');
    await frame.getByText('Hello from').waitFor();
    await screenshot(page, 'inbox-html-message');

    const iframe = page.locator('iframe.mail-frame');
    expect(await iframe.getAttribute('sandbox')).not.toContain('allow-scripts');
    expect(await iframe.getAttribute('sandbox')).not.toContain('allow-same-origin');
    // Give any handler a chance to fire, then check the page itself, not the markup.
    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.title()).toBe(title);
    expect(await frame.locator('body').getAttribute('data-pwned')).toBeNull();
    expect(errors.filter((e) => !/Blocked script execution|sandboxed/.test(e))).toEqual([]);
    await context.close();
  });
});
