import type { TestProject } from 'vitest/node';
import { chromium } from 'playwright-core';
import { CHROMIUM, CHROMIUM_ARGS } from './chromium.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The one Chromium of the run (the browser project's globalSetup); each test file connects and opens its own context. */
    chromiumWsEndpoint: string;
  }
}

/**
 * The browser project's globalSetup: one Chromium for every browser test file of the run (instead of one
 * launch per file), its endpoint given to the files with `provide`; launchBrowser (helpers/browser.ts)
 * connects to it. Without Chromium nothing is launched and the browser suites skip (global-setup.ts says so).
 */
export default async function setup(project: TestProject): Promise<(() => Promise<void>) | undefined> {
  if (!CHROMIUM) return undefined;
  const server = await chromium.launchServer({ executablePath: CHROMIUM, args: CHROMIUM_ARGS, headless: true });
  project.provide('chromiumWsEndpoint', server.wsEndpoint());
  return async () => {
    await server.close();
  };
}
