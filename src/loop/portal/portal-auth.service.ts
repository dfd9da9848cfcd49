import { z } from 'zod';
import { stripInvisible } from '../../platform/plain-text.js';
import { createAffiliateSchema } from '../affiliates/affiliate.schemas.js';
import type { AffiliateService } from '../affiliates/affiliate.service.js';
import { adminPasswordSchema } from '../../platform/auth/admin-users.service.js';
import { LoginThrottle } from '../../platform/auth/login-throttle.js';
import { hashPassword, verifyPassword } from '../../platform/auth/password.js';
import { generateSessionToken, sha256Hex } from '../../platform/auth/secrets.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import { ForbiddenError, PasswordRequiredError, UnauthorizedError, ValidationError } from '../../platform/errors.js';
import type { SettingsService } from '../../platform/settings/settings.service.js';
import type { RateWindows } from '../../platform/limits/rate-windows.js';
import type { Logger } from '../../platform/logger.js';
import type { MailOutcome, PortalMailer } from './portal-mailer.js';
import {
  consumeInvite,
  deleteExpiredPortalSessions,
  deletePortalSession,
  deletePortalSessionsOf,
  deleteUnusedInvites,
  findLivePortalSession,
  findOpenInvite,
  findLoginAccount,
  insertInvite,
  insertPortalSession,
  upsertPassword,
} from './portal.repository.js';
import { PortalMailLinks } from './portal-mail-links.service.js';
import type { PortalSession, SignedIn } from './portal-session.js';

export const PORTAL_SESSION_TTL_MS = 12 * 60 * 60 * 1000;
/** docs/api.md#affiliate-portal: an invitation is single use and valid 72 hours. */
export const INVITE_TTL_MS = 72 * 60 * 60 * 1000;


/** 10–200 characters (docs/api.md#affiliate-portal), the same rule as an admin's password. */
export const portalPasswordSchema = adminPasswordSchema;

export const signupSchema = z.strictObject({
  ref_code: createAffiliateSchema.shape.ref_code,
  name: z.string().overwrite(stripInvisible).trim().min(1, 'must not be empty').max(200),
  email: z
    .string()
    .trim()
    .toLowerCase()
    .max(320)
    .regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address'),
  password: portalPasswordSchema,
});
export type SignupInput = z.infer<typeof signupSchema>;

export type { PortalSession, SignedIn } from './portal-session.js';

/**
 * Affiliate identity for the portal (docs/api.md#affiliate-portal): invitations, sign-up, login, sessions, password.
 * Logins are throttled like the admin's (LoginThrottle, scope `portal`: atomic, per client IP and per
 * ref_code); every check of the current password from inside a session (a password change, a change of
 * payout details) shares the scope `portal-password`, so a session cannot guess more through two routes.
 * Sessions are stored hashed; only an active affiliate's session is live, so disabling an affiliate ends
 * them at once. Every way of setting a password goes through `storePassword` (docs/api.md#affiliate-portal).
 */
export class PortalAuthService {
  private readonly throttle: LoginThrottle;
  private readonly passwordThrottle: LoginThrottle;
  /** Every sign-up costs a password hash: at most 5 per client IP (and per ref_code) in 15 minutes. */
  private readonly signupThrottle: LoginThrottle;
  private readonly links: PortalMailLinks;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly affiliates: AffiliateService,
    private readonly settings: SettingsService,
    private readonly outboundMail: PortalMailer,
    rateWindows: RateWindows,
    logger: Logger,
  ) {
    this.throttle = new LoginThrottle(db, clock, 'portal');
    this.passwordThrottle = new LoginThrottle(db, clock, 'portal-password');
    this.signupThrottle = new LoginThrottle(db, clock, 'portal-signup');
    this.links = new PortalMailLinks(db, clock, baseUrl, affiliates, outboundMail, rateWindows, logger);
    // docs/api.md#affiliate-portal: disabling an affiliate ends its portal sessions at once
    affiliates.onInactive(async (refCode) => {
      await deletePortalSessionsOf(db, refCode);
    });
  }

  /** A single-use invitation link, valid 72 h; the token is stored only as its hash. */
  async invite(refCode: string): Promise<{ invite_url: string; expires_at: string; mail: MailOutcome }> {
    const affiliate = await this.affiliates.get(refCode);
    const now = this.clock.now();
    const token = generateSessionToken();
    const expiresAt = now + INVITE_TTL_MS;
    // In the fragment, so the token never reaches a server log or a Referer header.
    const inviteUrl = `${this.baseUrl}/portal/accept#token=${token}`;
    // the invitation and its mail in one transaction: a mail only for an invitation that exists
    const mail = await inTransaction(this.db, async (tx) => {
      await insertInvite(tx, { token_hash: sha256Hex(token), ref_code: affiliate.ref_code, created_at: now, expires_at: expiresAt, kind: 'invite' });
      return this.outboundMail.queue(tx, affiliate.email_confirmed_at === null ? null : affiliate.email, 'invitation', { name: affiliate.name, refCode: affiliate.ref_code, link: inviteUrl, expiresAt: toIso(expiresAt) });
    });
    if (mail === 'queued') this.outboundMail.signal.kick();
    return { invite_url: inviteUrl, expires_at: toIso(expiresAt), mail };
  }

  /** See PortalMailLinks.forgotPassword. */
  forgotPassword(login: string, client: string): Promise<MailOutcome> {
    return this.links.forgotPassword(login, client);
  }

  /** Waits for the reset mails being queued after their answers (tests; shutdown). */
  settled(): Promise<void> {
    return this.links.settled();
  }

  /** Sets a new password from a reset link and signs in; every session ends and every older link and unused invitation is void. */
  async resetPassword(token: string, password: string): Promise<SignedIn> {
    return this.useToken(token, password, 'reset');
  }

  /**
   * Uses an invitation: sets the password and signs in. Unknown, used or expired: 400 naming `token`.
   * The invitation and its affiliate are checked before the password is hashed (no scrypt for a bad
   * token) and before the invitation is used (a pending or disabled affiliate keeps it for later).
   */
  async acceptInvite(token: string, password: string): Promise<SignedIn> {
    return this.useToken(token, password, 'invite');
  }

  private async useToken(token: string, password: string, kind: 'invite' | 'reset'): Promise<SignedIn> {
    const tokenHash = sha256Hex(token);
    const invalid = () =>
      kind === 'invite'
        ? new ValidationError([{ field: 'token', message: 'is not a valid invitation (unknown, already used or expired)' }], 'The invitation is not valid')
        : new ValidationError([{ field: 'token', message: 'is not a valid reset link (unknown, already used, expired or replaced by a newer password)' }], 'The reset link is not valid');
    const invited = await findOpenInvite(this.db, tokenHash, this.clock.now(), kind);
    if (invited === undefined) throw invalid();
    const affiliate = await this.affiliates.get(invited);
    if (affiliate.status !== 'active') throw new UnauthorizedError(affiliate.status === 'pending' ? 'Your sign-up is waiting for approval' : 'This affiliate is disabled');
    const hash = await hashPassword(password);
    const now = this.clock.now();
    const signedIn = await inTransaction(this.db, async (tx) => {
      // the conditional update makes it single use however many accept at once
      const code = await consumeInvite(tx, tokenHash, now, kind);
      if (code === undefined) return undefined;
      // a reset by invitation is how the admin takes a stolen account back: every earlier session ends
      await this.storePassword(tx, code, hash, now);
      return this.insertSession(tx, code, now);
    });
    if (signedIn === undefined) throw invalid();
    await deleteExpiredPortalSessions(this.db, now);
    return signedIn;
  }

  /**
   * Self sign-up, as the `affiliate_signup` setting allows: open signs in at once, review waits for approval.
   * The email stays unconfirmed until the link mailed to it is followed (docs/api.md#email-confirmation); until
   * then the affiliate signs in with its ref code.
   */
  async signup(input: SignupInput, client: string): Promise<{ refCode: string; signedIn?: SignedIn; confirmationMail: 'queued' | 'not_configured' }> {
    const mode = (await this.settings.get()).affiliate_signup;
    if (mode === 'closed') throw new ForbiddenError('signup_closed', 'Sign-up is closed; ask for an invitation');
    // counted before hashing, successes included (never forgiven): a script cannot buy a hash per request
    await this.signupThrottle.begin(client, input.ref_code);
    // hashed before the transaction opens: scrypt is slow and no transaction waits on it
    const hash = await hashPassword(input.password);
    // the affiliate, affiliate.created, its password and its confirmation mail in one transaction: never an affiliate without a password
    let confirmation: MailOutcome | 'capped' = 'not_configured';
    const created = await this.affiliates.create(
      { ref_code: input.ref_code, name: input.name, email: input.email },
      mode === 'open' ? 'active' : 'pending',
      async (tx, affiliate) => {
        await this.storePassword(tx, affiliate.ref_code, hash, affiliate.created_at);
        confirmation = await this.links.queueConfirmation(tx, affiliate.ref_code, affiliate.name, affiliate.email);
      },
      false,
    );
    this.links.afterConfirmation(confirmation, created.ref_code);
    return {
      refCode: created.ref_code,
      signedIn: mode === 'open' ? await this.startSession(created.ref_code) : undefined,
      confirmationMail: confirmation === 'not_configured' ? 'not_configured' : 'queued',
    };
  }

  /** See PortalMailLinks.resendConfirmation. */
  resendConfirmation(session: PortalSession): Promise<'queued' | 'not_configured' | 'no_email'> {
    return this.links.resendConfirmation(session);
  }

  /** See PortalMailLinks.confirmEmail. */
  confirmEmail(token: string): Promise<{ refCode: string; email: string }> {
    return this.links.confirmEmail(token);
  }

  /** `login`: a ref_code, or the affiliate's email (an email several affiliates share signs in none: use the ref code). */
  async login(login: string, password: string, client: string): Promise<SignedIn> {
    const attempt = await this.throttle.begin(client, login);
    const found = await this.links.accountsFor(login.trim());
    const account = found.length === 1 ? found[0] : undefined;
    // A dummy hash when there is no password, so every path takes the same time.
    const ok = await verifyPassword(password, account?.password_hash ?? DUMMY_HASH);
    if (!account?.password_hash || !ok) throw new UnauthorizedError('Wrong login or password');
    await attempt.succeeded();
    if (account.status === 'pending') throw new UnauthorizedError('Your sign-up is waiting for approval');
    if (account.status !== 'active') throw new UnauthorizedError('This affiliate is disabled');
    return this.startSession(account.ref_code);
  }

  async sessionFor(token: string | undefined): Promise<PortalSession | undefined> {
    if (!token) return undefined;
    const row = await findLivePortalSession(this.db, sha256Hex(token), this.clock.now());
    return row ? { refCode: row.ref_code, csrfToken: row.csrf_token, idHash: row.id_hash } : undefined;
  }

  async logout(session: PortalSession): Promise<void> {
    await deletePortalSession(this.db, session.idHash);
  }

  /**
   * Changes the signed-in affiliate's password; its other sessions end and its unused invitations are
   * void. A wrong current password is 400 naming current_password (the session itself is fine),
   * throttled like logins.
   */
  async changePassword(session: PortalSession, currentPassword: string, newPassword: string, client: string): Promise<void> {
    if (!(await this.checkPassword(session, currentPassword, client))) {
      throw new ValidationError([{ field: 'current_password', message: 'is not your current password' }], 'The current password is wrong');
    }
    if (currentPassword === newPassword) throw new ValidationError([{ field: 'new_password', message: 'must differ from the current password' }]);
    const hash = await hashPassword(newPassword);
    await inTransaction(this.db, (tx) => this.storePassword(tx, session.refCode, hash, this.clock.now(), session.idHash));
  }

  /**
   * For a change a stolen session must not make alone (docs/api.md#affiliate-portal: payout details): the signed-in
   * affiliate's current password, else 403 password_required (its message names `change`). A wrong one
   * is counted in the same throttle as a password change (5 per client IP and per ref_code in 15
   * minutes, then 429), so this is no password-guessing oracle; a missing one checks nothing and is not
   * counted.
   * Proved by test/integration/portal-session-security.test.ts.
   */
  async requirePassword(session: PortalSession, currentPassword: string | undefined, client: string, change: string): Promise<void> {
    if (!currentPassword) throw new PasswordRequiredError(`Enter your current password to change ${change}`, `is required to change ${change}`);
    if (!(await this.checkPassword(session, currentPassword, client))) throw new PasswordRequiredError('The current password is wrong', 'is not your current password');
  }

  /** Whether `password` is the session's affiliate's password; counted by the `portal-password` throttle (429 past it). */
  private async checkPassword(session: PortalSession, password: string, client: string): Promise<boolean> {
    const attempt = await this.passwordThrottle.begin(client, session.refCode);
    const account = await findLoginAccount(this.db, session.refCode);
    if (!account?.password_hash || !(await verifyPassword(password, account.password_hash))) return false;
    await attempt.succeeded();
    return true;
  }

  /**
   * The one way an affiliate's password is set (invitation, sign-up, change), in the caller's transaction
   * (docs/api.md#affiliate-portal): every session but `keep` (the one that changed it) ends, and every unused
   * invitation is void, so neither a thief's session nor an invitation issued before the change outlives it.
   * Proved by test/integration/portal-session-security.test.ts.
   */
  private async storePassword(tx: Executor, refCode: string, hash: string, now: number, keep?: string): Promise<void> {
    await upsertPassword(tx, refCode, hash, now);
    await deletePortalSessionsOf(tx, refCode, keep);
    await deleteUnusedInvites(tx, refCode);
  }

  private async startSession(refCode: string): Promise<SignedIn> {
    const now = this.clock.now();
    await deleteExpiredPortalSessions(this.db, now);
    return this.insertSession(this.db, refCode, now);
  }

  private async insertSession(db: Executor, refCode: string, now: number): Promise<SignedIn> {
    const token = generateSessionToken();
    const session: PortalSession = { refCode, csrfToken: generateSessionToken(), idHash: sha256Hex(token) };
    await insertPortalSession(db, { id_hash: session.idHash, ref_code: refCode, csrf_token: session.csrfToken, created_at: now, expires_at: now + PORTAL_SESSION_TTL_MS });
    return { token, session };
  }
}

// scrypt hash of a random password nobody knows; only used to equalise timing.
const DUMMY_HASH = 'scrypt$16384$8$1$c3ZjLWR1bW15LXNhbHQ=$3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w3q2+7w0=';
