import type { Clock } from '../clock.js';
import type { Db } from '../db/database.js';
import { UnauthorizedError } from '../errors.js';
import { newId } from '../ids.js';
import { deleteExpiredSessions, deleteSession, findAdminByUsername, findLiveSession, insertSession } from './admin.repository.js';
import { LoginThrottle } from './login-throttle.js';
import { verifyPassword } from './password.js';
import { generateSessionToken, sha256Hex } from './secrets.js';

export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;

export interface AdminSession {
  readonly username: string;
  readonly userId: string;
  readonly csrfToken: string;
  readonly idHash: string;
}

/**
 * Admin login with sessions stored (hashed) in the database. Attempts are throttled per client IP and
 * per user name (LoginThrottle, scope `admin`): counted before the password is hashed, in the database,
 * so every instance sharing it enforces the same limit.
 */
export class AdminAuthService {
  private readonly throttle: LoginThrottle;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
  ) {
    this.throttle = new LoginThrottle(db, clock, 'admin');
  }

  async login(username: string, password: string, client: string): Promise<{ token: string; session: AdminSession }> {
    const attempt = await this.throttle.begin(client, username);
    const user = await findAdminByUsername(this.db, username);
    // Verify against a dummy hash when the user is unknown so both paths take the same time.
    const ok = await verifyPassword(password, user?.password_hash ?? DUMMY_HASH);
    // A failure stays counted (it was counted before the hash).
    if (!user || !ok) throw new UnauthorizedError('Wrong user name or password');
    await attempt.succeeded();
    const now = this.clock.now();
    const token = generateSessionToken();
    const csrfToken = generateSessionToken();
    const idHash = sha256Hex(token);
    await deleteExpiredSessions(this.db, now);
    await insertSession(this.db, { id_hash: idHash, user_id: user.id, csrf_token: csrfToken, created_at: now, expires_at: now + SESSION_TTL_MS });
    return { token, session: { username: user.username, userId: user.id, csrfToken, idHash } };
  }

  async sessionFor(token: string | undefined): Promise<AdminSession | undefined> {
    if (!token) return undefined;
    const row = await findLiveSession(this.db, sha256Hex(token), this.clock.now());
    return row ? { username: row.username, userId: row.user_id, csrfToken: row.csrf_token, idHash: row.id_hash } : undefined;
  }

  async logout(session: AdminSession): Promise<void> {
    await deleteSession(this.db, session.idHash);
  }

  static newUserId(now: number): string {
    return newId('usr', now);
  }
}

// scrypt hash of a random password nobody knows; only used to equalise timing for unknown users.
const DUMMY_HASH = 'scrypt$16384$8$1$c3ZjLWR1bW15LXNhbHQ=$3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w0=';
