import type { AffiliateService } from '../affiliates/affiliate.service.js';
import { generateSessionToken, sha256Hex } from '../../platform/auth/secrets.js';
import { type Clock, toIso } from '../../platform/clock.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import { ConflictError, RateLimitedError, ValidationError } from '../../platform/errors.js';
import { clientKey } from '../../platform/http/client-address.js';
import type { RateWindows } from '../../platform/limits/rate-windows.js';
import type { Logger } from '../../platform/logger.js';
import type { MailOutcome, PortalMailer } from './portal-mailer.js';
import { consumeConfirmToken, findLoginAccount, findLoginAccountsByEmail, insertInvite } from './portal.repository.js';
import type { PortalSession } from './portal-session.js';

/** A password reset link is single use and valid 1 hour (docs/api.md, "Outbound mail"). */
export const RESET_TTL_MS = 60 * 60 * 1000;
/** A link confirming an email is single use and valid 24 hours (docs/api.md#email-confirmation). */
export const CONFIRM_TTL_MS = 24 * 60 * 60 * 1000;
/** Reset requests: per client IP and per login, counted whether or not the login exists. */
export const RESET_LIMITS = Object.freeze({ ip: { max: 10, windowMs: 15 * 60 * 1000 }, login: { max: 3, windowMs: 60 * 60 * 1000 } });

/**
 * The links the portal mails to an affiliate without a session: password resets and email confirmations
 * (docs/api.md#affiliate-portal, #email-confirmation). PortalAuthService owns one and answers through it.
 */
export class PortalMailLinks {
  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly affiliates: AffiliateService,
    private readonly outboundMail: PortalMailer,
    private readonly rateWindows: RateWindows,
    private readonly logger: Logger,
  ) {}

  private readonly resetsInFlight = new Set<Promise<void>>();

  /**
   * Forgot password: the same answer and the same work in the request whether or not `login` (a
   * ref_code or an email) exists: the two throttle counts, then the lookup and the reset mail run after
   * the answer. Each active affiliate it names gets a single-use link, valid 1 hour (an email shared by
   * several affiliates: each gets its own). Proved by test/integration/outbound-mail.test.ts.
   */
  async forgotPassword(login: string, client: string): Promise<MailOutcome> {
    const key = login.trim();
    await this.countReset('portal-reset-ip', clientKey(client), RESET_LIMITS.ip);
    await this.countReset('portal-reset-login', key.toLowerCase(), RESET_LIMITS.login);
    if (!this.outboundMail.configured) return 'not_configured';
    // after the answer has gone: the lookup and the writes never count in the request's time
    const work: Promise<void> = new Promise<void>((resolve) => setTimeout(resolve, 0))
      .then(() => this.issueResets(key))
      .catch((err: unknown) => this.logger.error({ err }, 'password reset mail could not be queued'))
      .finally(() => this.resetsInFlight.delete(work));
    this.resetsInFlight.add(work);
    return 'queued';
  }

  /** Waits for the reset mails being queued after their answers (tests; shutdown). */
  async settled(): Promise<void> {
    while (this.resetsInFlight.size > 0) await Promise.allSettled([...this.resetsInFlight]);
  }

  private async countReset(scope: string, key: string, limit: { max: number; windowMs: number }): Promise<void> {
    const counted = await this.rateWindows.hit(scope, key, limit);
    if (counted.count > limit.max) {
      throw new RateLimitedError(Math.max(1, Math.ceil((counted.resetsAt - this.clock.now()) / 1000)));
    }
  }

  private async issueResets(login: string): Promise<void> {
    const accounts = await this.accountsFor(login);
    let queued = false;
    for (const account of accounts) {
      // a reset goes only to a confirmed email (docs/api.md#email-confirmation), by ref code as by email
      if (account.status !== 'active' || account.email_confirmed_at === null) continue;
      const outcome = await inTransaction(this.db, (tx) =>
        this.outboundMail.queueAnonymous(tx, account.email, 'password_reset', async () => {
          const now = this.clock.now();
          const token = generateSessionToken();
          const expiresAt = now + RESET_TTL_MS;
          await insertInvite(tx, { token_hash: sha256Hex(token), ref_code: account.ref_code, created_at: now, expires_at: expiresAt, kind: 'reset' });
          return { name: account.name, refCode: account.ref_code, link: `${this.baseUrl}/portal/reset#token=${token}`, expiresAt: toIso(expiresAt) };
        }),
      );
      this.logCapped(outcome, 'password_reset', account.ref_code);
      queued ||= outcome === 'queued';
    }
    if (queued) this.outboundMail.signal.kick();
  }

  /** A mail the per-address cap held back: counted in the log, never in the answer. */
  private logCapped(outcome: string, template: string, refCode: string): void {
    if (outcome === 'capped') this.logger.warn({ template, ref_code: refCode, capped: true }, 'mail not queued: its address already had 5 mails from sign-ups and password resets in the last hour');
  }

  /** The accounts a login names: the affiliate with that ref_code, else every affiliate with that email CONFIRMED. */
  async accountsFor(login: string) {
    if (!login.includes('@')) {
      const one = await findLoginAccount(this.db, login);
      return one ? [one] : [];
    }
    return findLoginAccountsByEmail(this.db, login.toLowerCase());
  }

  /** A single-use link confirming `email`, valid 24 h, mailed to it within the per-address cap. */
  queueConfirmation(tx: Executor, refCode: string, name: string | null, email: string | null): Promise<MailOutcome | 'capped'> {
    return this.outboundMail.queueAnonymous(tx, email, 'email_confirmation', async () => {
      const now = this.clock.now();
      const token = generateSessionToken();
      const expiresAt = now + CONFIRM_TTL_MS;
      await insertInvite(tx, { token_hash: sha256Hex(token), ref_code: refCode, created_at: now, expires_at: expiresAt, kind: 'confirm', email: email ?? '' });
      return { name, refCode, link: `${this.baseUrl}/portal/confirm-email#token=${token}`, expiresAt: toIso(expiresAt) };
    });
  }

  afterConfirmation(outcome: MailOutcome | 'capped', refCode: string): void {
    this.logCapped(outcome, 'email_confirmation', refCode);
    if (outcome === 'queued') this.outboundMail.signal.kick();
  }

  /**
   * Mails the signed-in affiliate's email a new confirmation link (within the same per-address cap as
   * sign-ups and resets: beyond it the answer is the same and no mail goes). Already confirmed: 409
   * email_already_confirmed.
   */
  async resendConfirmation(session: PortalSession): Promise<'queued' | 'not_configured' | 'no_email'> {
    const affiliate = await this.affiliates.get(session.refCode);
    if (!affiliate.email) return 'no_email';
    if (affiliate.email_confirmed_at !== null) throw new ConflictError('email_already_confirmed', 'Your email address is already confirmed');
    const outcome = await inTransaction(this.db, (tx) => this.queueConfirmation(tx, affiliate.ref_code, affiliate.name, affiliate.email));
    this.afterConfirmation(outcome, affiliate.ref_code);
    return outcome === 'not_configured' || outcome === 'no_email' ? outcome : 'queued';
  }

  /**
   * Confirms the email a link was mailed to (docs/api.md#email-confirmation). Unknown, used, expired, or for
   * an address that is no longer the affiliate's: 400 naming `token`. Another affiliate already has the
   * address confirmed: 409 email_taken, and nothing changes (the link stays unused). Needs no session.
   */
  async confirmEmail(token: string): Promise<{ refCode: string; email: string }> {
    const tokenHash = sha256Hex(token);
    const now = this.clock.now();
    const confirmed = await inTransaction(this.db, async (tx) => {
      const link = await consumeConfirmToken(tx, tokenHash, now);
      if (link === undefined) return undefined;
      // email_taken throws here, and rolls the use of the link back with it
      return (await this.affiliates.confirmEmail(tx, link.ref_code, link.email, now)) ? { refCode: link.ref_code, email: link.email } : undefined;
    });
    if (confirmed === undefined) {
      throw new ValidationError([{ field: 'token', message: 'is not a valid confirmation link (unknown, already used, expired or for an address since changed)' }], 'The confirmation link is not valid');
    }
    return confirmed;
  }
}
