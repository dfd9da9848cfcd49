import { z } from 'zod';
import { type ApiOperation, type Auth, errors, isoTime, one, pageOf } from '../http/openapi.js';
import { inboundSchema, messageListQuery } from './mail.routes.js';

export const messageSummaryBody = z.strictObject({
  id: z.string(),
  from: z.string().nullable(),
  from_name: z.string().nullable(),
  subject: z.string().nullable(),
  received_at: isoTime,
  size: z.number().int().meta({ description: 'Bytes' }),
  attachments_count: z.number().int(),
});

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
  text: z.string().nullable(),
  html: z.string().nullable().meta({ description: 'Sanitised: no scripts, handlers, forms, frames or remote images' }),
  attachments: z.array(z.strictObject({ id: z.string(), filename: z.string(), content_type: z.string(), size: z.number().int() })),
});

export const inboundBody = z.strictObject({
  success: z.literal(true),
  message: z.strictObject({ id: z.string(), mailboxes: z.array(z.string()), received_at: isoTime }),
});

const mailbox = z.object({ address: z.string() });
const message = mailbox.extend({ id: z.string() });
const attachment = message.extend({ attachmentId: z.string() });
const tokenInQuery = z.object({ token: z.string().optional().meta({ description: 'The mailbox token, for iframes and EventSource' }) });

/** The reading routes, once with the mailbox token (public) and once with the API key under /api. */
function reading(prefix: '' | '/api', auth: Auth): ApiOperation[] {
  const tag = 'mail';
  const denied = errors(401, 404);
  const base = `${prefix}/mailboxes/{address}/messages`;
  return [
    {
      method: 'get',
      path: base,
      tag,
      summary: 'List messages, newest first',
      auth,
      params: mailbox,
      query: messageListQuery,
      responses: { 200: { description: 'A page', body: pageOf(messageSummaryBody) }, ...errors(400), ...denied },
    },
    {
      method: 'get',
      path: `${base}/{id}`,
      tag,
      summary: 'Read a message',
      auth,
      params: message,
      responses: { 200: { description: 'The message', body: one('message', messageBody) }, ...denied },
    },
    {
      method: 'delete',
      path: `${base}/{id}`,
      tag,
      summary: 'Delete a message from this mailbox',
      auth,
      params: message,
      responses: { 200: { description: 'Deleted', body: z.strictObject({ success: z.literal(true) }) }, ...denied },
    },
    {
      method: 'get',
      path: `${base}/{id}/html`,
      tag,
      summary: 'The sanitised HTML as a document for a sandboxed iframe',
      auth,
      params: message,
      query: prefix === '' ? tokenInQuery : undefined,
      responses: { 200: { description: 'HTML with a strict Content-Security-Policy', mediaType: 'text/html' }, ...denied },
    },
    {
      method: 'get',
      path: `${base}/{id}/attachments/{attachmentId}`,
      tag,
      summary: 'Download an attachment',
      auth,
      params: attachment,
      responses: {
        200: { description: 'The bytes, as a download; only harmless types keep their type', mediaType: 'application/octet-stream', headers: { 'Content-Disposition': 'attachment with the file name' } },
        ...denied,
      },
    },
  ];
}

/** CONTRACT §8. */
export const mailOperations: readonly ApiOperation[] = [
  {
    method: 'post',
    path: '/api/inbound',
    tag: 'mail',
    summary: 'Receive a message (from a mail parsing service)',
    description: 'Stored once in every known mailbox among the recipients in `to`. Up to SVC_INBOUND_MAX_BYTES (10 MiB by default).',
    auth: 'apiKey',
    body: inboundSchema,
    responses: { 201: { description: 'Stored', body: inboundBody }, ...errors(400, 401, 404, 413) },
  },
  ...reading('', 'mailboxToken'),
  {
    method: 'get',
    path: '/mailboxes/{address}/events',
    tag: 'mail',
    summary: 'Server-Sent Events: one `message` event per arrival',
    description: 'Data {id, from, subject, received_at}; a heartbeat comment every 15 s. A reconnect with Last-Event-ID first replays what arrived after that message.',
    auth: 'mailboxToken',
    params: mailbox,
    query: tokenInQuery,
    responses: { 200: { description: 'An event stream', mediaType: 'text/event-stream' }, ...errors(401) },
  },
  ...reading('/api', 'apiKey'),
];
