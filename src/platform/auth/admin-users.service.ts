import { z } from 'zod';
import { type Clock, toIso } from '../clock.js';
import { type Db, inTransaction } from '../db/database.js';
import { ConflictError, NotFoundError, ValidationError } from '../errors.js';
import { newId } from '../ids.js';
import type { AdminSession } from './admin-auth.service.js';
import {
  countAdminUsers,
  deleteAdminUser,
  deleteSessionsOfUser,
  findAdminUser,
  findAdminUserById,
  insertAdminUser,
  insertFirstAdminUser,
  listAdminUsers,
  lockAdminUsers,
  updateAdminPassword,
} from './admin-users.repository.js';
import { LoginThrottle } from './login-throttle.js';
import { hashPassword, verifyPassword } from './password.js';
import { generatePassword } from './secrets.js';

/** The user created on first start, and the one `admin reset-password` means without --username. */
export const FIRST_ADMIN = 'admin';

export const adminUsernameSchema = z
  .string()
  .trim()
  .max(64, 'must be 1-64 characters of A-Z a-z 0-9 _ . @ -')
  .regex(/^[A-Za-z0-9_.@-]{1,64}$/, 'must be 1-64 characters of A-Z a-z 0-9 _ . @ -');

/** A password an admin chooses: 10–200 characters, like the affiliate portal's. */
export const adminPasswordSchema = z.string().min(10, 'must be at least 10 characters').max(200, 'must be at most 200 characters');

export const addAdminUserSchema = z.strictObject({
  username: adminUsernameSchema,
  password: adminPasswordSchema.optional().meta({ description: 'Omitted: a random password is generated and answered once' }),
});

export const changePasswordSchema = z.strictObject({
  current_password: z.string().min(1, 'must not be empty').max(1024),
  new_password: adminPasswordSchema,
});

export interface AdminUserView {
  readonly username: string;
  readonly created_at: string;
}

/**
 * Admin users and their passwords: listing, adding and removing users (never the last one), changing
 * one's own password, and the reset of `npm run admin -- reset-password`. A password change or reset
 * ends the user's other sessions; a removed user's sessions end with it.
 */
export class AdminUserService {
  /** Guesses at the current password through a stolen session count like failed logins (CONTRACT §11). */
  private readonly passwordThrottle: LoginThrottle;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.passwordThrottle = new LoginThrottle(db, clock, 'admin-password');
  }

  async list(): Promise<AdminUserView[]> {
    return (await listAdminUsers(this.db)).map((u) => ({ username: u.username, created_at: toIso(u.created_at) }));
  }

  /** Adds a user with the given password, or a generated one that is returned (shown once). */
  async add(input: { username: string; password?: string }): Promise<{ user: AdminUserView; generatedPassword?: string }> {
    const password = input.password ?? generatePassword();
    const now = this.clock.now();
    const row = { id: newId('usr', now), username: input.username, password_hash: await hashPassword(password), created_at: now };
    if (!(await insertAdminUser(this.db, row))) throw new ConflictError('admin_user_exists', `There is already an admin user ${input.username}`);
    return { user: { username: row.username, created_at: toIso(now) }, generatedPassword: input.password === undefined ? password : undefined };
  }

  /** Removes a user and ends its sessions at once; the last admin user stays (409 last_admin). */
  async remove(username: string): Promise<void> {
    await inTransaction(this.db, async (tx) => {
      await lockAdminUsers(tx);
      const user = await findAdminUser(tx, username);
      if (!user) throw new NotFoundError('admin_user_not_found', `No admin user ${username}`);
      if ((await countAdminUsers(tx)) <= 1) {
        throw new ConflictError('last_admin', `${username} is the last admin user and cannot be removed; add another admin user first`);
      }
      await deleteAdminUser(tx, user.id);
    });
  }

  /**
   * The signed-in admin changes its own password. A wrong current password is 400 invalid_request
   * naming current_password (not 401: the session itself is fine and stays). Other sessions end.
   * Wrong current passwords are throttled like logins (5 per 15 minutes per client IP and per user,
   * then 429), so a stolen session cannot be used to guess the password it would need to keep access.
   */
  async changePassword(session: AdminSession, currentPassword: string, newPassword: string, client: string): Promise<void> {
    const attempt = await this.passwordThrottle.begin(client, session.username);
    const user = await findAdminUserById(this.db, session.userId);
    if (!user || !(await verifyPassword(currentPassword, user.password_hash))) {
      throw new ValidationError([{ field: 'current_password', message: 'is not your current password' }], 'The current password is wrong');
    }
    await attempt.succeeded();
    if (currentPassword === newPassword) {
      throw new ValidationError([{ field: 'new_password', message: 'must differ from the current password' }]);
    }
    const hash = await hashPassword(newPassword);
    await inTransaction(this.db, async (tx) => {
      await updateAdminPassword(tx, user.id, hash);
      await deleteSessionsOfUser(tx, user.id, session.idHash);
    });
  }

  /**
   * Sets a new random password for `username` (default `admin`) and ends all its sessions. On a
   * database without any admin user, creates `admin` instead. Unknown user: 404 admin_user_not_found
   * with the existing names.
   */
  async resetPassword(username = FIRST_ADMIN): Promise<{ username: string; password: string; created: boolean; sessionsEnded: number }> {
    const password = generatePassword();
    const hash = await hashPassword(password);
    const now = this.clock.now();
    return inTransaction(this.db, async (tx) => {
      const user = await findAdminUser(tx, username);
      if (!user) {
        if (await insertFirstAdminUser(tx, { id: newId('usr', now), username, password_hash: hash, created_at: now })) {
          return { username, password, created: true, sessionsEnded: 0 };
        }
        const names = (await listAdminUsers(tx)).map((u) => u.username);
        throw new NotFoundError('admin_user_not_found', `No admin user ${JSON.stringify(username)} (admin users: ${names.join(', ')})`);
      }
      await updateAdminPassword(tx, user.id, hash);
      const sessionsEnded = await deleteSessionsOfUser(tx, user.id);
      return { username, password, created: false, sessionsEnded };
    });
  }
}
