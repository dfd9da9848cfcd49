import { z } from 'zod';
import { type ApiOperation, errors, isoTime, one } from '../http/openapi.js';
import { apiMailboxSchema, publicMailboxSchema } from './mailbox.service.js';

export const mailboxBody = z.strictObject({
  address: z.string(),
  ref_code: z.string().nullable().meta({ description: 'The affiliate the mailbox is bound to' }),
  token: z.string().meta({ description: 'Bearer token for reading the mailbox; shown once' }),
  created_at: isoTime,
});

const created = { description: 'Created; an explicit ref also sets the svc_ref cookie', body: one('mailbox', mailboxBody) };

export const publicConfigBody = z.strictObject({
  success: z.literal(true),
  domains: z.array(z.string()),
  mailbox_ttl_hours: z.number().int(),
});

/** CONTRACT §4 mailboxes. */
export const mailboxOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/mailboxes',
    tag: 'mailboxes',
    summary: 'Create a mailbox (landing page)',
    description: 'Attribution: explicit ref, else the svc_ref cookie, else none. Rate limited per client IP.',
    auth: 'none',
    body: publicMailboxSchema,
    responses: { 201: created, ...errors(400, 409, 429) },
  },
  {
    method: 'get',
    path: '/public/config',
    tag: 'mailboxes',
    summary: 'The mail domains a mailbox can be created on, and how long messages are kept',
    auth: 'none',
    responses: { 200: { description: 'The public settings', body: publicConfigBody } },
  },
  {
    method: 'post',
    path: '/api/mailboxes',
    tag: 'mailboxes',
    summary: 'Create a mailbox',
    description: 'As POST /mailboxes, with ref_code instead of ref and no rate limit.',
    auth: 'apiKey',
    body: apiMailboxSchema,
    responses: { 201: created, ...errors(400, 401, 409) },
  },
];
