import { z } from 'zod';
import { addAdminUserSchema, adminUsernameSchema, changePasswordSchema } from '../auth/admin-users.service.js';
import type { AppContext } from '../../context.js';
import { UnauthorizedError } from '../errors.js';
import { errorBody, errors, isoTime } from '../http/openapi.js';
import type { RouteApp } from '../http/route-schema.js';

export const adminUserBody = z.strictObject({ username: z.string(), created_at: isoTime });

const ok = z.strictObject({ success: z.literal(true) });

/** Admin users and the signed-in admin's password (CONTRACT §15). Mounted under /admin/api only. */
export function adminUserRoutes(app: RouteApp, ctx: AppContext): void {
  const { adminUsers } = ctx.services;

  const password = {
    summary: "Change the signed-in admin's password",
    description:
      'new_password: 10-200 characters. A wrong current_password is 400 invalid_request with details [{field: "current_password"}] (not 401: the session stays valid and signed in). Every other session of this user ends; this one stays. Wrong current passwords count like failed logins: after 5 in 15 minutes per client IP or per user, 429 rate_limited with Retry-After. A lost password is reset on the server with `npm run admin -- reset-password`.',
    body: changePasswordSchema,
    responses: { 200: { description: 'Changed', body: ok }, ...errors(400, 429) },
  };
  app.post('/password', { schema: password }, async (request) => {
    if (!request.admin) throw new UnauthorizedError('Log in first');
    await adminUsers.changePassword(request.admin, request.body.current_password, request.body.new_password, request.ip);
    return { success: true };
  });

  const list = {
    summary: 'List the admin users, oldest first',
    description: 'All of them in one answer (next_cursor is always null).',
    responses: {
      200: { description: 'Every admin user', body: z.strictObject({ success: z.literal(true), items: z.array(adminUserBody), next_cursor: z.null() }) },
    },
  };
  app.get('/admin-users', { schema: list }, async () => ({ success: true, items: await adminUsers.list(), next_cursor: null }));

  const add = {
    summary: 'Add an admin user',
    description:
      'With a password (10-200 characters), or without one: then a random password is generated and answered once as `password`. A user name already taken: 409 admin_user_exists.',
    body: addAdminUserSchema,
    responses: {
      201: {
        description: 'Added',
        body: z.strictObject({
          success: z.literal(true),
          admin_user: adminUserBody,
          password: z.string().optional().meta({ description: 'Only when it was generated; shown this once' }),
        }),
      },
      ...errors(400),
      409: { description: 'admin_user_exists', body: errorBody },
    },
  };
  app.post('/admin-users', { schema: add }, async (request, reply) => {
    const { user, generatedPassword } = await adminUsers.add(request.body);
    return reply.code(201).send({ success: true, admin_user: user, ...(generatedPassword ? { password: generatedPassword } : {}) });
  });

  const remove = {
    summary: 'Remove an admin user',
    description:
      'Its sessions end at once (also when it removes itself). The last admin user cannot be removed: 409 last_admin. Unknown user: 404 admin_user_not_found.',
    params: z.object({ username: adminUsernameSchema }),
    responses: {
      200: { description: 'Removed', body: ok },
      ...errors(400),
      404: { description: 'admin_user_not_found', body: errorBody },
      409: { description: 'last_admin: the only admin user left', body: errorBody },
    },
  };
  app.delete('/admin-users/:username', { schema: remove }, async (request) => {
    await adminUsers.remove(request.params.username);
    return { success: true };
  });
}
