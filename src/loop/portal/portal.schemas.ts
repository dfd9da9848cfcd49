import { z } from 'zod';
import { stripInvisible } from '../../platform/plain-text.js';
import { payoutDetailsBody, payoutDetailsField } from '../payouts/payout-details.js';

// The portal's own affiliate at the edge: the change it accepts, the body it answers with and its type.

export const updateMeSchema = z.strictObject({
  name: z.string().overwrite(stripInvisible).trim().max(200).optional(),
  payout_details: payoutDetailsField.nullable().optional(),
  notify: z
    .strictObject({ commissions: z.boolean().optional(), payouts: z.boolean().optional() })
    .optional()
    .meta({ description: 'Mails when a commission is approved / a withdrawal is paid (both on by default); invitations and password resets are always sent' }),
  current_password: z
    .string()
    .max(1024)
    .optional()
    .meta({ description: 'The affiliate\'s current password: required with payout_details (missing or wrong: 403 password_required), not looked at otherwise' }),
});
export type UpdateMeInput = z.infer<typeof updateMeSchema>;

export const meBody = z.strictObject({
  ref_code: z.string(),
  name: z.string().nullable(),
  email: z.string().nullable(),
  email_confirmed: z.boolean().meta({ description: 'false: given at sign-up and not confirmed yet from the link mailed to it (POST /portal/api/confirm-email/resend mails a new one); until then sign in with the ref code' }),
  status: z.enum(['active', 'disabled', 'pending']),
  commission_rate: z.number().meta({ description: 'Percent: the rate that applies (the affiliate\'s own, else the global rate)' }),
  link: z.string().meta({ description: 'The promotion link, {base_url}/go/{ref_code}' }),
  payout_details: payoutDetailsBody.nullable().meta({ description: 'Where the money goes (docs/api.md#payouts); free text saved before reads as {method: "other", note}' }),
  currency: z.string().meta({ description: 'ISO 4217 code of the program currency' }),
  notify: z.strictObject({ commissions: z.boolean(), payouts: z.boolean() }).meta({ description: 'Which notification mails the affiliate gets (PATCH /portal/api/me turns them off)' }),
  mail_configured: z.boolean().meta({ description: 'false: this svc sends no mail at all (SVC_SMTP_URL is not set)' }),
});

/** The signed-in affiliate as the portal shows it; the type is the body's, so the two cannot drift. */
export type PortalMe = z.infer<typeof meBody>;
