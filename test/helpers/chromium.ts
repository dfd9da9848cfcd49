import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Debian's chromium package (never a downloaded browser): /usr/bin/chromium, else `chromium` on PATH. */
export function findChromium(): string | undefined {
  const candidates = ['/usr/bin/chromium', ...(process.env.PATH ?? '').split(delimiter).filter(Boolean).map((dir) => join(dir, 'chromium'))];
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK);
      return path;
    } catch {
      // not here; try the next one
    }
  }
  return undefined;
}

export const CHROMIUM = findChromium();

/** How every test Chromium starts (one per run: helpers/browser-server.ts). */
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];
