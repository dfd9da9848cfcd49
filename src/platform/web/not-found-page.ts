import { existsSync, readFileSync } from 'node:fs';
import { WEB_DIST } from './web-dist.js';

/** The built app's stylesheet links, read once from its index.html (undefined until the app is built). */
let stylesheets: string | undefined;

function appStylesheets(): string {
  if (stylesheets !== undefined) return stylesheets;
  const indexPath = `${WEB_DIST}index.html`;
  if (!existsSync(indexPath)) return '';
  stylesheets = (readFileSync(indexPath, 'utf8').match(/<link rel="stylesheet"[^>]*>/g) ?? []).join('');
  return stylesheets;
}

const AREAS = [
  { prefix: '/admin', home: '/admin', brand: 'svc admin', back: 'Go to the admin area' },
  { prefix: '/portal', home: '/portal', brand: 'svc affiliates', back: 'Go to the affiliate portal' },
] as const;

/** The address as a person typed it (/café, not /caf%C3%A9); as sent when it is not valid percent-encoding. */
function readable(path: string): string {
  try {
    return decodeURIComponent(path);
  } catch {
    return path;
  }
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/**
 * The page a person gets for an address that is no page (CONTRACT §21): the app's own stylesheet and
 * classes, no script and nothing inline (the CSP allows neither), a way back to the area they were in.
 */
export function notFoundPage(path: string): string {
  const area = AREAS.find((a) => path === a.prefix || path.startsWith(`${a.prefix}/`));
  const home = area?.home ?? '/';
  const brand = area ? escapeHtml(area.brand) : '✉ svc';
  return (
    '<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">' +
    `<meta name="color-scheme" content="light"><title>Page not found · svc</title><link rel="icon" href="data:,">${appStylesheets()}</head>` +
    `<body><header class="public-header"><a class="brand" href="${home}">${brand}</a>${area ? '' : '<span class="muted small">temporary mailboxes</span>'}</header>` +
    '<main class="not-found"><section class="card"><h1>Page not found</h1>' +
    `<p>There is no page at <code class="break">${escapeHtml(readable(path))}</code>. The address may be mistyped, or the page has moved.</p>` +
    `<p><a class="btn btn-primary" href="${home}">${area?.back ?? 'Go to the start page'}</a></p></section></main></body></html>`
  );
}
