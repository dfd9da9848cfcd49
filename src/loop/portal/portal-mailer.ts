import type { Executor } from '../../platform/db/database.js';

// The mail the portal sends, declared by the portal so the affiliate loop does not depend on mail/ (the
// areas depend one way: mail -> loop, test/unit/area-imports.test.ts). The mail area's
// OutboundMailService is one; src/context.ts hands it in.

/** What became of a mail asked for: queued, or why not. */
export type MailOutcome = 'queued' | 'not_configured' | 'no_email' | 'opted_out';

/** A portal link mailed to an affiliate: an invitation, a password reset, an email confirmation. */
export interface PortalLinkMail {
  readonly name: string | null;
  readonly refCode: string;
  readonly link: string;
  readonly expiresAt: string;
}

export interface PortalMailer {
  /** false when svc sends no mail (SVC_SMTP_URL unset). */
  readonly configured: boolean;
  /** Wakes the mail lane after a commit that queued mail. */
  readonly signal: { kick(): void };
  /** Queues a mail in the caller's transaction. */
  queue(tx: Executor, to: string | null, template: 'invitation', values: PortalLinkMail): Promise<MailOutcome>;
  /** Queues a mail an anonymous request caused, within the per-address cap (`capped`: nothing queued, `make` never ran). */
  queueAnonymous(tx: Executor, to: string | null, template: 'password_reset' | 'email_confirmation', make: () => Promise<PortalLinkMail>): Promise<MailOutcome | 'capped'>;
}
