import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHROMIUM, hasRoute, launchBrowser, type LiveService, newPage, requireFeature, screenshot, startLiveService } from '../helpers/browser.js';

const layout = (name: string) => readFileSync(new URL(`../fixtures/mail-layouts/${name}.html`, import.meta.url), 'utf8');

// A 1×1 PNG, as a remote image host would answer.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==', 'base64');

describe.skipIf(!CHROMIUM)(`the mail reader in Chromium${CHROMIUM ? '' : ' [SKIPPED: no chromium]'}`, () => {
  let t: LiveService;
  let browser: Browser;
  let mail = false;
  /** A "remote" image host: every request it gets is a read receipt the reader must not send by itself. */
  let imageHost: Server;
  let imageBase = '';
  const imageRequests: string[] = [];

  beforeAll(async () => {
    t = await startLiveService();
    browser = await launchBrowser();
    mail = hasRoute(t, 'POST', '/mailboxes') && hasRoute(t, 'POST', '/api/inbound') && hasRoute(t, 'GET', '/mailboxes/:address/events');
    imageHost = createServer((req, res) => {
      imageRequests.push(req.url ?? '');
      res.writeHead(200, { 'content-type': 'image/png', 'cache-control': 'no-store' }).end(PNG);
    });
    await new Promise<void>((resolve) => imageHost.listen(0, '127.0.0.1', resolve));
    const address = imageHost.address();
    imageBase = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await new Promise<void>((resolve) => (imageHost ? imageHost.close(() => resolve()) : resolve()));
  });

  async function visitorWithInbox(mobile = false) {
    const session = await newPage(browser, { mobile });
    await session.page.goto(`${t.baseUrl}/`);
    await session.page.getByRole('button', { name: 'Create a random mailbox' }).click();
    await session.page.waitForURL(`${t.baseUrl}/inbox`);
    const address = (await session.page.getByTestId('address').textContent())?.trim() ?? '';
    await session.page.getByText('● Live').waitFor();
    return { ...session, address };
  }

  async function inbound(body: Record<string, unknown>): Promise<string> {
    const res = await t.api('POST', '/api/inbound', body);
    expect(res.statusCode, res.body).toBe(201);
    return res.json().message.id as string;
  }

  const frameStyle = (page: Page, selector: string, property: string) =>
    page
      .frameLocator('iframe.mail-frame')
      .locator(selector)
      .evaluate((el, p) => (globalThis as unknown as { getComputedStyle(e: unknown): { getPropertyValue(n: string): string } }).getComputedStyle(el).getPropertyValue(p), property);

  it('renders a newsletter as sent: the button keeps its background, style sheets apply, no script runs', async (ctx) => {
    requireFeature(ctx, mail, 'mail intake and the inbox');
    const { context, page, errors, address } = await visitorWithInbox();
    const title = await page.title();
    const html = layout('newsletter-button').replace('</body>', '<img src="data:," onerror="window.parent.pwned=1;document.body.dataset.pwned=1"></body>');
    await inbound({ to: address, from: 'hello@northwind.example', subject: 'Your workspace is ready', html });
    await page.getByRole('button', { name: /Your workspace is ready/ }).click();
    const frame = page.frameLocator('iframe.mail-frame');
    await frame.getByText('Get started').waitFor();

    // inline style and the <style> sheet (class .btn, .hero) both reach the rendering
    expect(await frameStyle(page, '#cta', 'background-color')).toBe('rgb(26, 86, 219)');
    expect(await frameStyle(page, '#cta', 'color')).toBe('rgb(255, 255, 255)');
    expect(await frameStyle(page, '#cta', 'display')).toBe('inline-block');
    expect(await frameStyle(page, '.hero', 'background-color')).toBe('rgb(11, 31, 68)');
    expect(await frameStyle(page, '.hero h1', 'font-size')).toBe('28px');
    await screenshot(page, 'reader-newsletter');

    await page.waitForTimeout(300);
    expect(await page.evaluate(() => (globalThis as unknown as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.title()).toBe(title);
    expect(await frame.locator('body').getAttribute('data-pwned')).toBeNull();
    expect(errors.filter((e) => !/Blocked script execution|sandboxed|Content Security Policy/.test(e))).toEqual([]);
    await context.close();
  });

  it('loads no remote image until the reader allows it for this message only', async (ctx) => {
    requireFeature(ctx, mail, 'mail intake and the inbox');
    const { context, page, address } = await visitorWithInbox();
    const seen: string[] = [];
    context.on('request', (r) => {
      if (r.url().startsWith(imageBase)) seen.push(r.url());
    });
    imageRequests.length = 0;
    const pictures = `<p>Autumn picks</p><img id="a" src="${imageBase}/boots.png?u=1" width="40" height="40" alt="boots"><img src="${imageBase}/scarf.png" alt="scarf"><div style="background:url(${imageBase}/bg.png) #fed7aa" id="bg">bg</div><style>@import url(${imageBase}/x.css); .x{background-image:url(${imageBase}/sheet.png)}</style><p class="x">x</p>`;
    await inbound({ to: address, subject: 'Pictures inside', html: pictures });
    await inbound({ to: address, subject: 'Pictures again', html: pictures });

    await page.getByRole('button', { name: /Pictures inside/ }).click();
    const frame = page.frameLocator('iframe.mail-frame');
    await frame.getByText('Autumn picks').waitFor();
    const note = page.getByTestId('remote-note');
    expect(await note.textContent()).toContain('2 remote images were blocked');
    // the coloured block keeps its colour without its remote background
    expect(await frameStyle(page, '#bg', 'background-color')).toBe('rgb(254, 215, 170)');
    await page.waitForTimeout(500);
    expect(seen).toEqual([]);
    expect(imageRequests).toEqual([]);
    await screenshot(page, 'reader-remote-blocked');

    await page.getByRole('button', { name: 'Show remote images' }).click();
    await expect.poll(() => imageRequests.slice().sort(), { timeout: 5000 }).toEqual(['/boots.png?u=1', '/scarf.png']);
    type Img = { decode(): Promise<void>; naturalWidth: number };
    await page.frameLocator('iframe.mail-frame').locator('#a').evaluate((img) => (img as unknown as Img).decode());
    expect(await page.frameLocator('iframe.mail-frame').locator('#a').evaluate((img) => (img as unknown as Img).naturalWidth)).toBe(1);
    expect(await note.textContent()).toContain('Remote images are shown for this message');

    // the next message starts blocked again
    imageRequests.length = 0;
    await page.getByRole('button', { name: /Pictures again/ }).click();
    await page.getByRole('heading', { name: 'Pictures again' }).waitFor();
    await page.frameLocator('iframe.mail-frame').getByText('Autumn picks').waitFor();
    expect(await page.getByTestId('remote-note').textContent()).toContain('2 remote images were blocked');
    await page.waitForTimeout(500);
    expect(imageRequests).toEqual([]);
    await context.close();
  });

  it('reads like a mail client: code with a copy button, tabs, the message in the URL, Back, a phone layout, new mail announced', async (ctx) => {
    requireFeature(ctx, mail, 'mail intake and the inbox');
    for (const mobile of [false, true]) {
      const { context, page, errors, address } = await visitorWithInbox(mobile);
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.baseUrl });
      await inbound({ to: address, from: 'news@northwind.example', from_name: 'Northwind', subject: 'Autumn picks', html: layout('responsive-columns'), text: 'Autumn picks: boots, scarf.' });
      const id = await inbound({ to: address, from: 'no-reply@acme.example', from_name: 'Acme', subject: 'Confirm your sign-in', html: layout('verification-code'), text: 'Your verification code is 604 118.' });

      // the arrival is announced to screen readers, code included
      await expect.poll(() => page.getByTestId('announcer').textContent()).toContain('New message from no-reply@acme.example: Confirm your sign-in. Code 6 0 4 1 1 8');
      expect(await page.getByTestId('announcer').getAttribute('aria-live')).toBe('polite');

      // the code shows in the list, with a copy button that copies it
      const item = page.locator(`li[data-message="${id}"]`);
      expect(await item.getByTestId('code').textContent()).toBe('604118');
      await item.getByRole('button', { name: 'Copy code: 604118' }).click();
      await item.getByText('Copied ✓').waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe('604118');
      await screenshot(page, mobile ? 'reader-inbox-phone' : 'reader-inbox-desktop');

      // unread until opened
      expect(await item.getAttribute('data-seen')).toBe('false');
      expect(await item.getByRole('button', { name: /Unread: Acme/ }).count()).toBe(1);

      // open it: the URL names it, the code is in the message too, and it is read now (here and on the service)
      await item.getByRole('button', { name: /Confirm your sign-in/ }).click();
      await page.waitForURL(`${t.baseUrl}/inbox?m=${id}`);
      await page.getByRole('heading', { name: 'Confirm your sign-in' }).waitFor();
      expect(await page.locator('.message-code').getByTestId('code').textContent()).toBe('604118');
      await page.frameLocator('iframe.mail-frame').getByText('Confirm your sign-in').waitFor();
      expect(await item.getAttribute('data-seen')).toBe('true');
      const listed = (await t.api('GET', `/api/mailboxes/${encodeURIComponent(address)}/messages`)).json().items as { id: string; seen: boolean }[];
      expect(listed.find((x) => x.id === id)?.seen).toBe(true);
      if (mobile) {
        // a phone shows the message alone, and fits
        expect(await page.locator('.message-list').isVisible()).toBe(false);
        expect(await page.evaluate('document.documentElement.scrollWidth')).toBeLessThanOrEqual(390);
      }
      await screenshot(page, mobile ? 'reader-message-phone' : 'reader-message-desktop');

      // tabs: the text view, kept in the URL
      await page.getByRole('tab', { name: 'Text' }).click();
      await page.waitForURL(`${t.baseUrl}/inbox?m=${id}&view=text`);
      expect(await page.locator('.mail-text').textContent()).toBe('Your verification code is 604 118.');
      expect(await page.getByRole('tab', { name: 'Text' }).getAttribute('aria-selected')).toBe('true');

      // a reload opens the same message on the same tab
      await page.reload();
      await page.getByRole('heading', { name: 'Confirm your sign-in' }).waitFor();
      expect(await page.locator('.mail-text').textContent()).toBe('Your verification code is 604 118.');
      await page.getByRole('tab', { name: 'HTML' }).click();
      await page.frameLocator('iframe.mail-frame').getByText('604 118').waitFor();

      // the raw source and the headers
      await page.getByRole('tab', { name: 'Source' }).click();
      await page.waitForURL(`${t.baseUrl}/inbox?m=${id}&view=source`);
      const source = (await page.getByTestId('source').textContent()) ?? '';
      expect(source).toContain('Subject: Confirm your sign-in');
      expect(source).toMatch(/Content-Type: multipart\/alternative/i);
      await page.getByRole('tab', { name: 'Headers' }).click();
      const subjectRow = page.locator('table.mail-headers tr').filter({ has: page.getByRole('rowheader', { name: 'Subject' }) });
      expect(await subjectRow.locator('td').textContent()).toBe('Confirm your sign-in');
      if (!mobile) await screenshot(page, 'reader-headers-desktop');

      // marked unread again: back to the list, shown unread
      await page.getByRole('button', { name: 'Mark unread' }).click();
      await expect.poll(() => page.locator(`li[data-message="${id}"]`).getAttribute('data-seen')).toBe('false');
      expect(((await t.api('GET', `/api/mailboxes/${encodeURIComponent(address)}/messages`)).json().items as { id: string; seen: boolean }[]).find((x) => x.id === id)?.seen).toBe(false);

      // Back (the browser's, then the page's own) returns to the list
      await page.goto(`${t.baseUrl}/inbox`);
      await page.getByRole('button', { name: /Autumn picks/ }).click();
      await page.waitForURL(`${t.baseUrl}/inbox?m=*`);
      await page.getByRole('heading', { name: 'Autumn picks' }).waitFor();
      await page.goBack();
      await page.waitForURL(`${t.baseUrl}/inbox`);
      await page.getByText('Select a message to read it.').or(page.getByRole('button', { name: /Autumn picks/ })).first().waitFor();
      expect(await page.getByRole('heading', { name: 'Autumn picks' }).count()).toBe(0);
      await page.getByRole('button', { name: /Autumn picks/ }).click();
      await page.getByRole('heading', { name: 'Autumn picks' }).waitFor();
      if (mobile) {
        await page.getByRole('button', { name: '← Inbox' }).click();
        await page.waitForURL(`${t.baseUrl}/inbox`);
        expect(await page.locator('.message-list').isVisible()).toBe(true);
      } else {
        expect(await page.getByRole('button', { name: '← Inbox' }).isVisible()).toBe(false);
      }
      expect(errors).toEqual([]);
      await context.close();
    }
  });
});
