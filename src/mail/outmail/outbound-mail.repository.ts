import { sql } from 'kysely';
import { dialectOf, type Executor } from '../../platform/db/database.js';
import type { DeliveryStatus } from '../../platform/db/schema.js';
import { MAIL_TARGET } from '../../platform/webhooks/delivery-target.js';

/** SQL of outbound mail: the rendered mails, read with their `deliveries` row (target `mail`, event_id = mail id). */

export interface NewMail {
  readonly id: string;
  readonly to_address: string;
  readonly template: string;
  readonly subject: string;
  readonly text_body: string;
  readonly html_body: string;
  readonly message_id: string;
  readonly created_at: number;
}

/** The mail and its delivery row, in the caller's transaction (the one of its cause). */
export async function insertMail(tx: Executor, mail: NewMail, deliveryId: string): Promise<void> {
  await tx.insertInto('outbound_mail').values(mail).execute();
  await tx
    .insertInto('deliveries')
    .values({
      id: deliveryId,
      event_id: mail.id,
      event_type: `mail.${mail.template}`,
      target: MAIL_TARGET,
      url: null,
      status: 'pending',
      attempts: 0,
      next_attempt_at: mail.created_at,
      created_at: mail.created_at,
      updated_at: mail.created_at,
    })
    .execute();
}

export interface MailRow {
  readonly id: string;
  readonly to_address: string;
  readonly template: string;
  readonly subject: string;
  readonly created_at: number;
  readonly status: DeliveryStatus | null;
  readonly attempts: number | null;
  readonly last_error: string | null;
  readonly delivered_at: number | null;
  readonly delivery_id: string | null;
}

function withDelivery(db: Executor) {
  return db
    .selectFrom('outbound_mail as m')
    .leftJoin('deliveries as d', (j) => j.onRef('d.event_id', '=', 'm.id').on('d.target', '=', MAIL_TARGET))
    .select(['m.id', 'm.to_address', 'm.template', 'm.subject', 'm.created_at', 'd.status', 'd.attempts', 'd.last_error', 'd.delivered_at', 'd.id as delivery_id']);
}

/** Newest first by id (ids begin with their time). */
export async function listMails(db: Executor, f: { before?: string; status?: DeliveryStatus; limit: number }): Promise<MailRow[]> {
  let q = withDelivery(db);
  if (f.before) q = q.where('m.id', '<', f.before);
  if (f.status) q = q.where('d.status', '=', f.status);
  return q.orderBy('m.id', 'desc').limit(f.limit).execute();
}

export async function findMail(db: Executor, id: string): Promise<MailRow | undefined> {
  return withDelivery(db).where('m.id', '=', id).executeTakeFirst();
}

/** What the mail target sends, as JSON by mail id (the dispatcher's payloads). */
export async function mailPayloads(db: Executor, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await db.selectFrom('outbound_mail').selectAll().where('id', 'in', [...new Set(ids)]).execute();
  return new Map(rows.map((r) => [r.id, JSON.stringify({ to: r.to_address, subject: r.subject, text: r.text_body, html: r.html_body, message_id: r.message_id })]));
}

/** Whether a mail of this template was queued since `since` (the admin's alerts are sent at most once an hour). */
export async function mailQueuedSince(db: Executor, template: string, since: number): Promise<boolean> {
  const row = await db.selectFrom('outbound_mail').select('id').where('template', '=', template).where('created_at', '>=', since).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * How many mails of `templates` went to `address` since `since`, in the caller's transaction. On
 * PostgreSQL it first takes a transaction lock on the address, so two instances counting for one address
 * at once count one after the other (SQLite writes one transaction at a time anyway).
 */
export async function countMailsTo(tx: Executor, address: string, templates: readonly string[], since: number): Promise<number> {
  if (dialectOf(tx) === 'postgres') await sql`select pg_advisory_xact_lock(hashtextextended(${`svc-mail-to:${address}`}, 0))`.execute(tx);
  const row = await tx
    .selectFrom('outbound_mail')
    .select((eb) => eb.fn.countAll<number | string>().as('n'))
    .where('to_address', '=', address)
    .where('template', 'in', [...templates])
    .where('created_at', '>', since)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

/** Mails whose delivery row retention already deleted, created before `cutoff`. */
export async function deleteFinishedMails(db: Executor, cutoff: number): Promise<number> {
  const res = await db
    .deleteFrom('outbound_mail')
    .where('created_at', '<', cutoff)
    .where(({ not, exists, selectFrom }) => not(exists(selectFrom('deliveries as d').select('d.id').whereRef('d.event_id', '=', 'outbound_mail.id').where('d.target', '=', MAIL_TARGET))))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}

/** An affiliate's name, confirmed email and notification choices (no account row: everything on). */
export async function findRecipient(db: Executor, refCode: string) {
  const row = await db
    .selectFrom('affiliates')
    .leftJoin('affiliate_accounts', 'affiliate_accounts.ref_code', 'affiliates.ref_code')
    .select([
      'affiliates.ref_code',
      'affiliates.name',
      'affiliates.email',
      'affiliates.email_confirmed_at',
      'affiliates.status',
      'affiliate_accounts.notify_commissions',
      'affiliate_accounts.notify_payouts',
    ])
    .where('affiliates.ref_code', '=', refCode)
    .executeTakeFirst();
  if (!row) return undefined;
  const { email_confirmed_at, ...rest } = row;
  // an unconfirmed email (docs/api.md#email-confirmation) is no recipient: the affiliate has no email yet
  return { ...rest, email: email_confirmed_at === null ? null : row.email, notify_commissions: row.notify_commissions !== 0, notify_payouts: row.notify_payouts !== 0 };
}

/** The webhook deliveries among `ids` (a mail or an adapter failing is not the webhook failing). */
export async function webhookDeliveries(db: Executor, ids: readonly string[]) {
  if (ids.length === 0) return [];
  return db.selectFrom('deliveries').select(['id', 'event_id', 'event_type', 'last_error']).where('id', 'in', ids).where('target', '=', 'webhook').execute();
}
