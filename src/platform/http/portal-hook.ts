import type { FastifyRequest } from 'fastify';
import { safeEqual } from '../auth/secrets.js';
import type { AppContext } from '../../context.js';
import { CsrfError, UnauthorizedError } from '../errors.js';
import type { PortalSession } from './portal-session.js';

/** The affiliate portal's own session cookie (never the admin's `svc_session`), sent only to /portal. */
export const PORTAL_COOKIE = 'svc_portal';

declare module 'fastify' {
  interface FastifyRequest {
    /** The signed-in affiliate of a /portal/api request; set by portalSessionHook only. */
    portal?: PortalSession;
  }
  interface FastifyContextConfig {
    /** Portal routes reachable without a session (login, sign-up, accept-invite). */
    portalPublic?: boolean;
  }
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * `/portal/api/...`: a live session of an active affiliate, and for mutations its CSRF token in
 * X-CSRF-Token. The only place a portal request learns which affiliate it acts for.
 */
export function portalSessionHook(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    if (request.routeOptions.config?.portalPublic) return;
    const session = await ctx.services.portalAuth.sessionFor(request.cookies[PORTAL_COOKIE]);
    if (!session) throw new UnauthorizedError('Sign in to the portal first');
    if (!SAFE_METHODS.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      const token = Array.isArray(header) ? header[0] : header;
      if (!token || !safeEqual(token, session.csrfToken)) throw new CsrfError();
    }
    request.portal = session;
  };
}

/** The session of a portal route's request; a route registered outside the portal mount has none (401). */
export function portalSessionOf(request: FastifyRequest): PortalSession {
  if (!request.portal) throw new UnauthorizedError('Sign in to the portal first');
  return request.portal;
}
