import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium, type Download, type Page } from 'playwright-core';
import { expect, inject } from 'vitest';
import { FakeClock } from '../../src/platform/clock.js';
import type {} from './browser-server.js';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';
import { freePort } from './process.js';
import { startTestService, TEST_ADMIN_PASSWORD, type TestService } from './service.js';

export { CHROMIUM };

export const SCREENS_DIR = join(process.cwd(), '.tmp', 'screens');

/**
 * The run's one Chromium (started by the browser project's globalSetup, helpers/browser-server.ts), connected
 * to; a file run outside that project launches its own. `browser.close()` in a file closes that file's
 * contexts and disconnects, leaving the shared process to the other files.
 */
export async function launchBrowser(): Promise<Browser> {
  if (!CHROMIUM) throw new Error('Chromium is not installed');
  const wsEndpoint = inject('chromiumWsEndpoint');
  if (wsEndpoint) return chromium.connect(wsEndpoint);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
}


export interface LiveService extends TestService {
  /** http://127.0.0.1:<port>, also the service's SVC_BASE_URL so redirects land on it. */
  readonly baseUrl: string;
}

/**
 * The real service listening on a free port (SQLite), with a fake clock set to real time so that what
 * the browser computes from its own clock (date ranges, expiry) matches what the service stores.
 */
export async function startLiveService(env: Record<string, string> = {}): Promise<LiveService> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const t = await startTestService('sqlite', {
    clock: new FakeClock(Date.now()),
    env: { HOST: '127.0.0.1', PORT: String(port), SVC_BASE_URL: baseUrl, ...env },
  });
  await t.service.start();
  return Object.assign(t, { baseUrl });
}

/** A phone's screen (CSS pixels), as the phone scenarios use it. */
export const PHONE = { width: 390, height: 844 } as const;

export async function newPage(
  browser: Browser,
  opts: { mobile?: boolean; now?: number; viewport?: { width: number; height: number } } = {},
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext(
    opts.mobile
      ? { viewport: opts.viewport ?? PHONE, deviceScaleFactor: 2, isMobile: true, hasTouch: true }
      : { viewport: opts.viewport ?? { width: 1280, height: 860 } },
  );
  // Fail a step well before the test's own timeout, so the error names the step.
  context.setDefaultTimeout(10_000);
  // A test that compares the page's "today" with its own pins the page's clock (timers still run), so a
  // run that crosses midnight does not see two different days.
  if (opts.now !== undefined) await context.clock.setFixedTime(opts.now);
  const page = await context.newPage();
  trackRequests(page);
  // Any CSP violation or script error in our own pages is a bug; tests assert this stays empty.
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(`pageerror: ${err.message}`));
  page.on('console', (msg) => {
    // Failed requests are the API's answers (401 before login, 409s), which the UI shows itself.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) errors.push(`console: ${msg.text()}`);
  });
  return { context, page, errors };
}

/** The page's API requests (fetch) not answered yet; a live mail stream (EventSource) never ends and is not one. */
const inFlight = new WeakMap<Page, Set<unknown>>();

function trackRequests(page: Page): void {
  const open = new Set<unknown>();
  inFlight.set(page, open);
  page.on('request', (req) => {
    if (req.resourceType() === 'fetch') open.add(req);
  });
  page.on('requestfinished', (req) => open.delete(req));
  page.on('requestfailed', (req) => open.delete(req));
}

/**
 * Until every API request the page has made is answered and the answers are drawn: a page draws its heading
 * (and for some data no spinner) before its data arrives, so a width check or a picture taken at the heading
 * can miss what loads after it. Only for pages from newPage.
 */
export async function dataLoaded(page: Page): Promise<void> {
  const open = inFlight.get(page);
  if (!open) throw new Error('dataLoaded: the page was not made by newPage');
  await expect.poll(() => open.size).toBe(0);
  // the answers' renders: two frames (runs in the page; the tests are typed without the DOM's names)
  await page.evaluate('new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(() => done(undefined))))');
}

/** A download's bytes as UTF-8 text (read through Playwright: the shared Chromium's files are not ours to open by path). */
export async function downloadText(download: Download): Promise<string> {
  return Buffer.concat((await (await download.createReadStream()).toArray()) as Buffer[]).toString('utf8');
}

/** Saves a full-page screenshot under .tmp/screens/ (gitignored) for a person to look at. */
export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENS_DIR, { recursive: true });
  await page.screenshot({ path: join(SCREENS_DIR, `${name}.png`), fullPage: true });
}

/** Does the running service have this route yet? (Features land on main one by one.) */
export function hasRoute(t: TestService, method: string, url: string): boolean {
  return t.service.app.hasRoute({ method: method as 'GET', url });
}

/**
 * A scenario whose API has not landed yet is skipped with its reason, except under
 * SVC_REQUIRE_BROWSER=1 (.ci/run), where everything must run.
 */
export function requireFeature(ctx: { skip: (note?: string) => void }, available: boolean, what: string): void {
  if (available) return;
  if (process.env.SVC_REQUIRE_BROWSER === '1') throw new Error(`${what} is missing from the service`);
  process.stderr.write(`!!! browser scenario SKIPPED: ${what} is not in this build yet\n`);
  ctx.skip(`${what} is not in this build yet`);
}

/** Signs in to the admin area as the test admin from `path` (its login form), and waits for the signed-in page. */
export async function logInAdmin(page: Page, baseUrl: string, path = '/admin'): Promise<void> {
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('User name').fill('admin');
  await page.getByLabel('Password').fill(TEST_ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Log in' }).click();
  await page.getByRole('button', { name: 'Log out' }).waitFor();
}
