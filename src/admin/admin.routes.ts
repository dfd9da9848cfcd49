import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { SESSION_TTL_MS } from '../auth/admin-auth.service.js';
import type { AppContext } from '../context.js';
import { SESSION_COOKIE } from '../http/auth-hooks.js';
import { parseBody } from '../validation.js';

const loginSchema = z.object({
  username: z.string().min(1).max(200),
  password: z.string().min(1).max(1024),
});

/** Admin session, settings and API key (CONTRACT §2, §10). Mounted under /admin/api. */
export function adminRoutes(app: FastifyInstance, ctx: AppContext): void {
  const { adminAuth, settings, apiKeys } = ctx.services;
  const cookieOptions = {
    path: '/',
    httpOnly: true,
    sameSite: 'strict' as const,
    secure: ctx.config.secureCookies,
  };

  app.post('/login', { config: { adminPublic: true } }, async (request, reply) => {
    const body = parseBody(loginSchema, request.body);
    const { token, session } = await adminAuth.login(body.username, body.password, request.ip);
    reply.setCookie(SESSION_COOKIE, token, { ...cookieOptions, maxAge: SESSION_TTL_MS / 1000 });
    return { success: true, csrf_token: session.csrfToken, username: session.username };
  });

  app.post('/logout', async (request, reply) => {
    if (request.admin) await adminAuth.logout(request.admin);
    reply.clearCookie(SESSION_COOKIE, cookieOptions);
    return { success: true };
  });

  app.get('/session', async (request) => ({
    success: true,
    username: request.admin?.username,
    csrf_token: request.admin?.csrfToken,
  }));

  app.get('/settings', async () => ({ success: true, settings: await settings.get() }));

  app.patch('/settings', async (request) => ({ success: true, settings: await settings.update(request.body) }));

  app.get('/api-key', async () => ({ success: true, api_key: await apiKeys.current() }));

  app.post('/api-key/rotate', async () => ({ success: true, api_key: await apiKeys.rotate() }));
}
