import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { listQuerySchema } from '../../platform/http/list-query.js';
import { errors, idParam, isoTime, one, pageOf } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { MAIL_TEMPLATES } from './templates.js';

const STATUSES = ['queued', 'sent', 'failed'] as const;

export const outboundMailBody = z.strictObject({
  id: z.string(),
  to: z.string(),
  template: z.enum(MAIL_TEMPLATES),
  subject: z.string(),
  status: z.enum(STATUSES).meta({ description: 'queued (waiting or being retried), sent, or failed after every retry' }),
  attempts: z.number().int().meta({ description: 'Attempts since the mail was (re)queued' }),
  last_error: z.string().nullable().meta({ description: "The SMTP server's last refusal or the connection's error" }),
  created_at: isoTime,
  sent_at: isoTime.nullable(),
});

const listBody = pageOf(outboundMailBody).extend({
  mail_configured: z.boolean().meta({ description: 'false: SVC_SMTP_URL is unset and svc queues and sends no mail' }),
});

/** The admin's mail log and resend. Mounted under /admin/api only. */
export function outboundMailAdminRoutes(app: RouteApp, ctx: AppContext): void {
  const { outboundMail } = ctx.services;

  const list = {
    summary: 'The outbound mail log, newest first',
    description: 'Every mail svc queued: invitations, password resets, notifications to affiliates and to the admin_email setting.',
    querystring: listQuerySchema.extend({ status: z.enum(STATUSES).optional() }),
    responses: { 200: { description: 'A page', body: listBody }, ...errors(400) },
  };
  app.get('/outbound-mail', { schema: list }, async (request) => ({
    success: true as const,
    ...(await outboundMail.list(request.query)),
    mail_configured: outboundMail.configured,
  }));

  const resend = {
    summary: 'Queue a mail again, now, with a fresh retry schedule',
    description: 'Any state; the same Message-ID. Not while it is being sent: 409 invalid_transition.',
    params: z.object({ id: idParam }),
    responses: { 200: { description: 'The mail, queued', body: one('mail', outboundMailBody) }, ...errors(400, 404, 409) },
  };
  app.post('/outbound-mail/:id/resend', { schema: resend }, async (request) => ({ success: true, mail: await outboundMail.resend(request.params.id) }));
}
