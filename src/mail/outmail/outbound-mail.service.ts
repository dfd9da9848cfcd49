import { type Clock, toIso } from '../../platform/clock.js';
import type { OutboundMailConfig } from '../../config.js';
import { type Db, type Executor, inTransaction } from '../../platform/db/database.js';
import type { DeliveryStatus, EventRow } from '../../platform/db/schema.js';
import { keysetPage, decodeKey } from '../../platform/db/keyset.js';
import { ConflictError, NotFoundError } from '../../platform/errors.js';
import type { AnyEvent } from '../../platform/events/catalogue.js';
import type { OutboxSignal } from '../../platform/events/outbox.js';
import { newId, randomToken } from '../../platform/ids.js';
import { storedSetting as readSetting } from '../../platform/settings/settings.service.js';
import { requeueDelivery as resetDelivery } from '../../platform/webhooks/delivery-admin.service.js';
import { countMailsTo, deleteFinishedMails, findMail, findRecipient, insertMail, listMails, type MailRow, mailQueuedSince, webhookDeliveries } from './outbound-mail.repository.js';
import { type MailTemplate, renderMail, type TemplateValues } from './templates.js';
import type { MailOutcome } from '../../loop/portal/portal-mailer.js';

// What happened to a mail a request would send (docs/api.md, "Outbound mail"): declared by the portal,
// which this service serves (the areas depend one way, mail -> loop).
export type { MailOutcome };

export type OutboundMailStatus = 'queued' | 'sent' | 'failed';

export interface OutboundMailJson {
  readonly id: string;
  readonly to: string;
  readonly template: string;
  readonly subject: string;
  readonly status: OutboundMailStatus;
  readonly attempts: number;
  readonly last_error: string | null;
  readonly created_at: string;
  readonly sent_at: string | null;
}

const STATUS_OF: Record<DeliveryStatus, OutboundMailStatus> = { pending: 'queued', delivered: 'sent', failed: 'failed' };
const DELIVERY_STATUS: Record<OutboundMailStatus, DeliveryStatus> = { queued: 'pending', sent: 'delivered', failed: 'failed' };

function mailJson(r: MailRow): OutboundMailJson {
  return {
    id: r.id,
    to: r.to_address,
    template: r.template,
    subject: r.subject,
    // a mail whose delivery row retention deleted was finished; only sent ones are kept that long
    status: r.status ? STATUS_OF[r.status] : 'sent',
    attempts: r.attempts ?? 0,
    last_error: r.last_error,
    created_at: toIso(r.created_at),
    sent_at: r.delivered_at === null ? null : toIso(r.delivered_at),
  };
}

/**
 * Mails anyone can cause without an account's password (README.md#outbound-mail): a sign-up's confirmation
 * and a forgotten password's reset. At most `max` of them go to one address in any `windowMs`, however
 * many accounts name it, counted over every instance from the mails stored.
 */
export const ANONYMOUS_MAIL_TEMPLATES = ['email_confirmation', 'password_reset'] as const satisfies readonly MailTemplate[];
export type AnonymousMailTemplate = (typeof ANONYMOUS_MAIL_TEMPLATES)[number];
export const ANONYMOUS_MAIL_CAP = Object.freeze({ max: 5, windowMs: 60 * 60 * 1000 });

/** The admin's alerts (webhook failing) are sent at most once in this long. */
export const ALERT_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Mail svc sends to people. A mail is rendered and written with its delivery row in the transaction of
 * its cause (queue), then sent by the mail lane of the delivery engine (retries, lease, attempt log,
 * Message-ID fixed at queueing). Mails caused by events (commission approved, withdrawal paid, affiliate
 * awaiting review) are queued in the transaction that fans those events out, so each is queued exactly
 * once. Without SVC_SMTP_URL nothing is queued and every caller learns `not_configured`.
 */
export class OutboundMailService {
  private readonly domain: string;

  constructor(
    private readonly db: Db,
    private readonly clock: Clock,
    private readonly baseUrl: string,
    private readonly transport: OutboundMailConfig | undefined,
    /** Wakes the mail lane after a commit that queued mail. */
    readonly signal: OutboxSignal,
  ) {
    this.domain = transport ? (/@([^>\s]+)>?$/.exec(transport.from)?.[1] ?? 'svc.invalid') : 'svc.invalid';
  }

  get configured(): boolean {
    return this.transport !== undefined;
  }

  /** Renders and queues one mail in the caller's transaction; kick `signal` after the commit. */
  async queue<T extends MailTemplate>(tx: Executor, to: string | null, template: T, values: TemplateValues[T]): Promise<MailOutcome> {
    if (!this.transport) return 'not_configured';
    if (!to) return 'no_email';
    const now = this.clock.now();
    const rendered = renderMail(template, values);
    const id = newId('mail', now);
    await insertMail(
      tx,
      { id, to_address: to, template, subject: rendered.subject, text_body: rendered.text, html_body: rendered.html, message_id: `<${id}.${randomToken(8)}@${this.domain}>`, created_at: now },
      newId('dlv', now),
    );
    return 'queued';
  }

  /**
   * Queues a mail that an anonymous request caused, unless ANONYMOUS_MAIL_CAP mails of that kind already
   * went to the address (lower case) in the last hour: then nothing is queued and `make` never runs, so
   * no token is issued for a mail that is not sent. `capped` is for the caller's log only; the request
   * answers as if it were queued (no account's existence shows). Proved by test/integration/mail-recipient-cap.test.ts.
   */
  async queueAnonymous<T extends AnonymousMailTemplate>(
    tx: Executor,
    to: string | null,
    template: T,
    make: () => Promise<TemplateValues[T]>,
  ): Promise<MailOutcome | 'capped'> {
    if (!this.transport) return 'not_configured';
    if (!to) return 'no_email';
    const address = to.trim().toLowerCase();
    const since = this.clock.now() - ANONYMOUS_MAIL_CAP.windowMs;
    if ((await countMailsTo(tx, address, ANONYMOUS_MAIL_TEMPLATES, since)) >= ANONYMOUS_MAIL_CAP.max) return 'capped';
    return this.queue(tx, address, template, await make());
  }

  link(path: string): string {
    return `${this.baseUrl}${path}`;
  }

  /** The mails the fanned-out events cause, in the fan-out's transaction. */
  async onFanOut(tx: Executor, events: readonly EventRow[]): Promise<void> {
    if (!this.transport) return;
    for (const row of events) {
      if (row.type !== 'commission.approved' && row.type !== 'withdrawal.paid' && row.type !== 'affiliate.created') continue;
      const e = JSON.parse(row.payload) as AnyEvent;
      if (e.event === 'commission.approved') {
        const c = e.data.commission;
        if (c.kind !== 'sale') continue;
        const who = await findRecipient(tx, c.ref_code);
        if (!who?.notify_commissions) continue;
        await this.queue(tx, who.email, 'commission_approved', {
          name: who.name,
          refCode: who.ref_code,
          orderId: c.order_id,
          commission: c.commission.toFixed(2),
          settingsLink: this.link('/portal/settings'),
          portalLink: this.link('/portal/commissions'),
        });
      } else if (e.event === 'withdrawal.paid') {
        const w = e.data.withdrawal;
        const who = await findRecipient(tx, w.ref_code);
        if (!who?.notify_payouts) continue;
        await this.queue(tx, who.email, 'withdrawal_paid', {
          name: who.name,
          refCode: who.ref_code,
          amount: w.amount.toFixed(2),
          withdrawalId: w.id,
          settingsLink: this.link('/portal/settings'),
          portalLink: this.link('/portal/withdrawals'),
        });
      } else if (e.event === 'affiliate.created' && e.data.affiliate.status === 'pending') {
        const a = e.data.affiliate;
        await this.queue(tx, await adminEmail(tx), 'affiliate_review', {
          refCode: a.ref_code,
          name: a.name,
          email: a.email,
          link: this.link('/admin/affiliates'),
          settingsLink: this.link('/admin/settings'),
        });
      }
    }
  }

  /** The admin's "webhook failing" mail, in the transaction that marks webhook deliveries failed; at most one an hour. */
  async onDeliveriesFailed(tx: Executor, deliveryIds: readonly string[], now: number): Promise<void> {
    if (!this.transport) return;
    const failed = await webhookDeliveries(tx, deliveryIds);
    const first = failed[0];
    if (!first) return;
    if (await mailQueuedSince(tx, 'webhook_failing', now - ALERT_INTERVAL_MS)) return;
    await this.queue(tx, await adminEmail(tx), 'webhook_failing', {
      eventType: first.event_type,
      eventId: first.event_id,
      lastError: first.last_error,
      link: this.link('/admin/webhooks'),
      settingsLink: this.link('/admin/settings'),
    });
  }

  /** The mail log, newest first. */
  async list(filter: { status?: OutboundMailStatus; limit: number; cursor?: string }) {
    const before = filter.cursor === undefined ? undefined : decodeKey(filter.cursor, ['string'] as const, 'outbound-mail')[0];
    const rows = await listMails(this.db, { before, status: filter.status ? DELIVERY_STATUS[filter.status] : undefined, limit: filter.limit + 1 });
    return keysetPage(rows, filter.limit, (r) => [r.id], mailJson, 'outbound-mail');
  }

  /** Queues a mail again, due now, with a fresh retry schedule and the same Message-ID; not while it is being sent. */
  async resend(id: string): Promise<OutboundMailJson> {
    const mail = await findMail(this.db, id);
    if (!mail) throw new NotFoundError('not_found', `No outbound mail ${id}`);
    if (!mail.delivery_id || !(await resetDelivery(this.db, mail.delivery_id, this.clock.now()))) {
      throw new ConflictError('invalid_transition', mail.delivery_id ? 'This mail is being sent right now; resend it once this attempt is recorded' : 'This mail is too old to resend');
    }
    this.signal.kick();
    return mailJson((await findMail(this.db, id)) as MailRow);
  }

  /** Deletes the mails whose delivery rows retention removed (after SVC_DELIVERY_RETENTION_DAYS). */
  async purgeFinished(days: number): Promise<number> {
    if (days <= 0) return 0;
    return inTransaction(this.db, (tx) => deleteFinishedMails(tx, this.clock.now() - days * 86_400_000));
  }
}

async function adminEmail(db: Executor): Promise<string | null> {
  const v = await readSetting(db, 'admin_email');
  return typeof v === 'string' && v !== '' ? v : null;
}
