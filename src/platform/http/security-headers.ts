import helmet from '@fastify/helmet';
import type { FastifyInstance } from 'fastify';

/**
 * Security headers on every response. Scripts, styles and connections only from our own origin (the
 * web app is built into static files, nothing inline); mail is shown in sandboxed frames of our own
 * origin. The mail HTML view is the one document that may be framed, by our own pages only.
 */
export async function installSecurityHeaders(app: FastifyInstance): Promise<void> {
  await app.register(helmet, {
    contentSecurityPolicy: {
      useDefaults: false,
      directives: {
        defaultSrc: ["'self'"],
        scriptSrc: ["'self'"],
        styleSrc: ["'self'"],
        connectSrc: ["'self'"],
        imgSrc: ["'self'", 'data:'],
        fontSrc: ["'self'"],
        frameSrc: ["'self'"],
        objectSrc: ["'none'"],
        baseUri: ["'self'"],
        formAction: ["'self'"],
        frameAncestors: ["'none'"],
      },
    },
    frameguard: { action: 'deny' },
    referrerPolicy: { policy: 'no-referrer' },
    // The app loads nothing cross-origin; these would only get in the way of the attachment downloads.
    crossOriginEmbedderPolicy: false,
    hsts: false,
  });

  // The inbox frames the mail HTML view. That route sets its own sandbox CSP; here it also becomes
  // frameable by our own pages (and only by them), which helmet's DENY would otherwise forbid.
  app.addHook('onSend', async (request, reply) => {
    if (!FRAMED_BY_OWN_PAGES.has(request.routeOptions.url ?? '')) return;
    reply.header('x-frame-options', 'SAMEORIGIN');
    const csp = reply.getHeader('content-security-policy');
    if (typeof csp === 'string' && !csp.includes('frame-ancestors')) reply.header('content-security-policy', `${csp}; frame-ancestors 'self'`);
  });
}

/** Routes whose documents the web app shows in a sandboxed iframe: the inbox's, and the admin's mail browser's (test/browser/domains.test.ts). */
export const FRAMED_BY_OWN_PAGES: ReadonlySet<string> = new Set(['/mailboxes/:address/messages/:id/html', '/admin/api/mailboxes/:address/messages/:id/html']);
