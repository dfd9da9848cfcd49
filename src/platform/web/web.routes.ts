import { existsSync, readFileSync } from 'node:fs';
import fastifyStatic from '@fastify/static';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../../context.js';
import { WEB_DIST } from './web-dist.js';

export { WEB_DIST };

/**
 * Client-side pages of the single-page app: the paths of its route table (web/src/routes.ts; the
 * Chromium sweep fails when the two differ). Listed one by one (not `/admin/*`) so an unknown
 * `/admin/api/...` path still answers the JSON 404, and an unknown page the not-found page.
 */
export const WEB_PAGES: readonly string[] = [
  '/',
  '/inbox',
  '/admin',
  '/admin/affiliates',
  '/admin/commissions',
  '/admin/review',
  '/admin/withdrawals',
  '/admin/payouts',
  '/admin/orders',
  '/admin/rules',
  '/admin/webhooks',
  '/admin/integrations',
  '/admin/domains',
  '/admin/mail',
  '/admin/mailboxes',
  '/admin/settings',
  '/portal',
  '/portal/accept',
  '/portal/confirm-email',
  '/portal/forgot',
  '/portal/reset',
  '/portal/signup',
  '/portal/commissions',
  '/portal/withdrawals',
  '/portal/settings',
];

/** Serves the built web app: hashed assets under /assets/, the app's index.html for every page. */
export async function webRoutes(app: FastifyInstance, _ctx: AppContext): Promise<void> {
  const indexPath = `${WEB_DIST}index.html`;
  const built = existsSync(indexPath);
  // Read once: the build does not change under a running process, and pages are the hot path of visitors.
  const indexHtml = built ? readFileSync(indexPath, 'utf8') : undefined;

  if (built && existsSync(`${WEB_DIST}assets`)) {
    await app.register(fastifyStatic, {
      root: `${WEB_DIST}assets`,
      prefix: '/assets/',
      // File names carry a content hash, so they never change under the same URL.
      immutable: true,
      maxAge: '365d',
      index: false,
      list: false,
    });
  }

  for (const page of WEB_PAGES) {
    app.get(page, async (_request, reply) => {
      reply.header('cache-control', 'no-cache');
      if (!indexHtml) {
        reply.code(503).type('text/plain; charset=utf-8');
        return 'The web app is not built: run `npm run build` (it runs `vite build`).\n';
      }
      reply.type('text/html; charset=utf-8');
      return indexHtml;
    });
  }
}
