import { z } from 'zod';
import { isoTime } from '../../platform/http/openapi.js';
import { MAIL_LIMITS } from './mail-limits.js';

/** The inbound payload and the answers of the mail routes (mail.routes.ts declares them on each route). */

const optionalText = (max: number) => z.string().max(max).nullish();

/** Seed §2: only `to` is required; extra fields from mail parsing services are ignored. Bounds: MAIL_LIMITS (CONTRACT §11). */
export const inboundSchema = z.object({
  to: z.string().trim().min(1, 'is required').max(MAIL_LIMITS.to),
  from: optionalText(MAIL_LIMITS.from),
  from_name: optionalText(MAIL_LIMITS.fromName),
  subject: optionalText(MAIL_LIMITS.subject),
  text: optionalText(MAIL_LIMITS.body),
  html: optionalText(MAIL_LIMITS.body),
  attachments: z
    .array(
      z.object({
        filename: optionalText(MAIL_LIMITS.filename),
        content_type: optionalText(MAIL_LIMITS.contentType),
        content_base64: z.string().max(MAIL_LIMITS.body),
      }),
    )
    .max(MAIL_LIMITS.attachments)
    .nullish(),
});

export const messageSummaryBody = z.strictObject({
  id: z.string(),
  from: z.string().nullable(),
  from_name: z.string().nullable(),
  subject: z.string().nullable(),
  received_at: isoTime,
  size: z.number().int().meta({ description: 'Bytes' }),
  attachments_count: z.number().int(),
  seen: z.boolean().meta({ description: 'False until the message is read (GET of the message) or marked seen (PATCH)' }),
  code: z.string().nullable().meta({ description: 'The verification code found in the subject or text ("Your code is 482913"), or null' }),
});

/** One header as it appears in the source: the name as written, the value unfolded with encoded words decoded. */
export const mailHeaderBody = z.strictObject({ name: z.string(), value: z.string() });

export const seenPatchSchema = z.strictObject({ seen: z.boolean() });

export const messageBody = z.strictObject({
  id: z.string(),
  mailbox: z.string(),
  from: z.string().nullable(),
  from_name: z.string().nullable(),
  to: z.string().nullable(),
  subject: z.string().nullable(),
  received_at: isoTime,
  size: z.number().int(),
  attachments_count: z.number().int(),
  seen: z.boolean().meta({ description: 'True once read: reading the message marks it read in this mailbox' }),
  code: z.string().nullable().meta({ description: 'The verification code found in the subject or text ("Your code is 482913"), or null' }),
  links: z.array(z.string()).meta({ description: 'The distinct http(s) URLs of its HTML links, then of its text, in order, at most 20' }),
  verification_link: z.string().nullable().meta({
    description: 'The link a person would click to confirm (verify, confirm, activate, magic link, sign in, reset the password; in many languages), or null',
  }),
  text: z.string().nullable(),
  html: z.string().nullable().meta({ description: 'Sanitised once, when the message was stored: the layout (inline styles, style sheets) stays; no scripts, handlers, forms, frames or remote resources' }),
  remote_images: z.number().int().meta({
    description: 'How many remote images the HTML holds back (each keeps its URL in `data-svc-remote-src` instead of `src`); the HTML document route shows them with `remote_images=true`',
  }),
  html_dropped: z.boolean().meta({
    description: 'True when the HTML could not be sanitised within the time limit (SVC_MAIL_HTML_TIMEOUT_MS) or nests deeper than 1000 levels: `html` is null and the message keeps its text',
  }),
  attachments: z.array(z.strictObject({ id: z.string(), filename: z.string(), content_type: z.string(), size: z.number().int() })),
  headers: z.array(mailHeaderBody).meta({
    description: 'The headers of the source, in order (at most 500; values unfolded, encoded words decoded, at most 16 KiB each); empty for messages stored before sources were kept',
  }),
});

export const inboundBody = z.strictObject({
  success: z.literal(true),
  message: z.strictObject({ id: z.string(), mailboxes: z.array(z.string()), received_at: isoTime }),
});
