import { z } from 'zod';
import { isoTime } from '../../platform/http/openapi.js';

/**
 * The resources of the mail.tm-compatible API with mail.tm's field names (CONTRACT §14). Each comes as
 * plain JSON (`Accept: application/json`) or as JSON-LD (the default, as on mail.tm): the same fields
 * plus `@id` and `@type`, and `@context` on a resource answered on its own; lists are then Hydra
 * collections instead of plain arrays.
 */

const ld = { '@id': z.string(), '@type': z.string() };
const ldTop = { '@context': z.string(), ...ld };

function shapes<S extends z.ZodRawShape>(shape: S) {
  return {
    json: z.strictObject(shape),
    member: z.strictObject({ ...ld, ...shape }),
    ld: z.strictObject({ ...ldTop, ...shape }),
  };
}

/** A resource answered on its own: JSON-LD or plain JSON, by Accept. */
export function either(s: { json: z.ZodType; ld: z.ZodType }) {
  return z.union([s.ld, s.json]);
}

/** A list: a Hydra collection (JSON-LD) or a plain array (JSON). */
export function collectionOf(s: { json: z.ZodType; member: z.ZodType }) {
  return z.union([
    z.strictObject({
      '@context': z.string(),
      '@id': z.string(),
      '@type': z.literal('hydra:Collection'),
      'hydra:member': z.array(s.member),
      'hydra:totalItems': z.number().int(),
      'hydra:view': z
        .strictObject({
          '@id': z.string(),
          '@type': z.literal('hydra:PartialCollectionView'),
          'hydra:first': z.string().optional(),
          'hydra:last': z.string().optional(),
          'hydra:previous': z.string().optional(),
          'hydra:next': z.string().optional(),
        })
        .optional(),
    }),
    z.array(s.json),
  ]);
}

const address = z.strictObject({ address: z.string(), name: z.string() });

export const domainShapes = shapes({
  id: z.string(),
  domain: z.string(),
  isActive: z.boolean(),
  isPrivate: z.boolean(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

export const accountShapes = shapes({
  id: z.string(),
  address: z.string(),
  quota: z.number().int().meta({ description: 'Nominal, as on mail.tm (40 MiB); svc limits a mailbox by its number of messages (mailbox_max_messages)' }),
  used: z.number().int().meta({ description: 'Bytes of the messages in the mailbox' }),
  isDisabled: z.boolean(),
  isDeleted: z.boolean(),
  createdAt: isoTime,
  updatedAt: isoTime,
});

const messageCommon = {
  id: z.string(),
  accountId: z.string().meta({ description: 'The account, as `/accounts/{id}`' }),
  msgid: z.string().meta({ description: 'The Message-ID header' }),
  from: address,
  to: z.array(address),
  subject: z.string(),
  seen: z.boolean(),
  isDeleted: z.boolean(),
  hasAttachments: z.boolean(),
  size: z.number().int(),
  downloadUrl: z.string().meta({ description: 'The raw source (`/messages/{id}/download`), relative to the base URL' }),
  createdAt: isoTime,
  updatedAt: isoTime,
};

export const messageItemShapes = shapes({ ...messageCommon, intro: z.string().meta({ description: 'The start of the text' }) });

export const attachmentBody = z.strictObject({
  id: z.string(),
  filename: z.string(),
  contentType: z.string(),
  disposition: z.enum(['attachment', 'inline']),
  transferEncoding: z.string(),
  related: z.boolean(),
  size: z.number().int(),
  downloadUrl: z.string().meta({ description: '`/messages/{id}/attachment/{attachmentId}`, relative to the base URL' }),
});

export const messageShapes = shapes({
  ...messageCommon,
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  flagged: z.boolean(),
  verifications: z.array(z.string()),
  retention: z.boolean(),
  retentionDate: isoTime,
  text: z.string(),
  html: z.array(z.string()).meta({ description: 'The sanitised HTML (none when the message has no HTML)' }),
  attachments: z.array(attachmentBody),
  sourceUrl: z.string(),
});

export const sourceShapes = shapes({ id: z.string(), downloadUrl: z.string(), data: z.string().meta({ description: 'The raw source as text (UTF-8)' }) });

export const tokenBody = z.strictObject({ id: z.string(), token: z.string() });
export const seenBody = z.strictObject({ seen: z.boolean() });

/** Bodies as mail.tm clients send them; string bounds as everywhere (CONTRACT §11). */
export const credentialsSchema = z.object({
  address: z.string().max(320),
  password: z.string().max(200),
});
export const seenPatchSchema = z.object({ seen: z.boolean() });
export const pageQuery = z.object({
  page: z.coerce.number().int().min(1).max(100_000).default(1),
});
export const refQuery = z.object({ ref: z.string().max(200).optional().meta({ description: 'Attributes the mailbox like POST /mailboxes ?ref=' }) });
