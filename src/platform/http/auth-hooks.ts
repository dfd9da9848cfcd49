import type { FastifyReply, FastifyRequest } from 'fastify';
import { safeEqual } from '../auth/secrets.js';
import type { AdminSession } from '../auth/admin-auth.service.js';
import type { AppContext } from '../../context.js';
import { CsrfError, UnauthorizedError } from '../errors.js';

export const SESSION_COOKIE = 'svc_session';

declare module 'fastify' {
  interface FastifyRequest {
    admin?: AdminSession;
  }
  interface FastifyContextConfig {
    /** Admin routes reachable without a session (login). */
    adminPublic?: boolean;
  }
}

/** `/api/...`: X-API-Key, compared in constant time against the current key. */
export function apiKeyHook(ctx: AppContext) {
  return async (request: FastifyRequest): Promise<void> => {
    const presented = request.headers['x-api-key'];
    const key = Array.isArray(presented) ? presented[0] : presented;
    if (!(await ctx.services.apiKeys.verify(key))) throw new UnauthorizedError('Missing or wrong X-API-Key');
  };
}

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** `/admin/api/...`: a live session, and for mutations the session's CSRF token in X-CSRF-Token. */
export function adminSessionHook(ctx: AppContext) {
  return async (request: FastifyRequest, _reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.config?.adminPublic) return;
    const session = await ctx.services.adminAuth.sessionFor(request.cookies[SESSION_COOKIE]);
    if (!session) throw new UnauthorizedError('Log in first');
    if (!SAFE_METHODS.has(request.method)) {
      const header = request.headers['x-csrf-token'];
      const token = Array.isArray(header) ? header[0] : header;
      if (!token || !safeEqual(token, session.csrfToken)) throw new CsrfError();
    }
    request.admin = session;
  };
}
