import { attachmentDisposition, SAFE_DOWNLOAD_TYPE, sendDownload, sourceDisposition } from './mail-downloads.js';
import type { FastifyRequest } from 'fastify';
import { z } from 'zod';
import { toIso } from '../../platform/clock.js';
import type { AppContext } from '../../context.js';
import type { Mailbox } from '../../platform/db/schema.js';
import { clientKey } from '../../platform/http/client-address.js';
import { openMailStream, trackEventStreams } from './mail-stream.js';
import { holdOpenFor } from '../../platform/http/idle-timeout.js';
import { type Auth, errors, one, pageOf, pathSegment } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { MAIL_HTML_CSP, MAIL_HTML_CSP_REMOTE_IMAGES } from './mail-html.js';
import { inboundBody, inboundSchema, messageBody, messageSummaryBody, seenPatchSchema } from './mail.schemas.js';
import { MAX_WAIT_SECONDS, WAITS_PER_MAILBOX } from './message-waits.js';

export const messageListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(100).optional(),
  q: z.string().max(200).optional().meta({
    description: 'Only messages whose subject, sender or text hold every word of it, in any order, any case (a word also matches as the start of a longer one)',
  }),
});

const waitQuery = z.object({
  timeout: z.coerce.number().min(0).max(MAX_WAIT_SECONDS).default(30).meta({ description: `Seconds to wait (at most ${MAX_WAIT_SECONDS}; fractions allowed)` }),
  after: z.string().max(100).optional().meta({ description: 'A message id: only messages that arrived after it' }),
  from: z.string().min(1).max(320).optional().meta({ description: 'Part of the sender address or name, any case' }),
  subject: z.string().min(1).max(200).optional().meta({ description: 'Part of the subject, any case' }),
  has_code: z.enum(['true', 'false']).optional().meta({ description: 'true: only messages with a verification code; false: only without' }),
});

declare module 'fastify' {
  interface FastifyRequest {
    /** The mailbox a reading route is about, resolved (token or key checked) before its input is validated. */
    mailbox?: Mailbox;
  }
}

const mailboxParams = z.object({ address: z.string().max(320) });
const messageParams = mailboxParams.extend({ id: pathSegment });
const attachmentParams = messageParams.extend({ attachmentId: pathSegment });
const tokenInQuery = z.object({ token: z.string().max(200).optional().meta({ description: 'The mailbox token, for iframes and EventSource' }) });
const remoteImagesQuery = z.object({
  remote_images: z
    .enum(['true', 'false'])
    .optional()
    .meta({ description: 'true: this document shows the remote images of the message (the reader allowed them for this message); blocked by default' }),
});

type ResolveMailbox = (request: FastifyRequest, allowQueryToken: boolean) => Promise<Mailbox>;

/**
 * A reading route resolves its mailbox in onRequest: a wrong token or unknown mailbox is answered
 * (401/404) before the query or path is checked and before a body is read or parsed
 * (docs/architecture.md#every-route).
 */
function mailboxOf(resolve: ResolveMailbox, allowQueryToken: boolean) {
  return async (request: FastifyRequest) => {
    request.mailbox = await resolve(request, allowQueryToken);
  };
}

function theMailbox(request: FastifyRequest): Mailbox {
  if (!request.mailbox) throw new Error('the mailbox is resolved in onRequest');
  return request.mailbox;
}

function bearer(request: FastifyRequest, allowQueryToken: boolean): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  // EventSource and iframes cannot send headers; only those two routes take the token in the query.
  const q = (request.query as { token?: unknown } | undefined)?.token;
  return allowQueryToken && typeof q === 'string' ? q : undefined;
}

function readingRoutes(app: RouteApp, ctx: AppContext, resolve: ResolveMailbox, auth: Auth): void {
  const reader = ctx.services.mailReader;
  const tags = ['mail'];
  const denied = auth === 'apiKey' ? errors(404) : errors(401, 404);
  const resolved = mailboxOf(resolve, false);

  const list = {
    tags,
    summary: 'List messages, newest first',
    auth,
    params: mailboxParams,
    querystring: messageListQuery,
    responses: { 200: { description: 'A page', body: pageOf(messageSummaryBody) }, ...errors(400), ...denied },
  };
  app.get('/mailboxes/:address/messages', { schema: list, onRequest: resolved }, async (request) => {
    const page = await reader.list(theMailbox(request), request.query.limit, request.query.cursor, request.query.q);
    return { success: true, ...page };
  });

  const waits = ctx.services.messageWaits;
  app.addHook('preClose', (done) => {
    waits.endAll();
    done();
  });
  const wait = {
    tags,
    summary: 'Wait for a message',
    description: `Answers at once with the newest message matching the filters that arrived after \`after\` (any message without it), else as soon as one arrives (on any instance), read like GET of the message (it is marked read); \`message: null\` when \`timeout\` seconds pass first. At most ${WAITS_PER_MAILBOX} waits per mailbox at once, and each counts in its client's budget of long-lived requests (README.md#limits); 429 beyond.`,
    auth,
    params: mailboxParams,
    querystring: waitQuery,
    responses: { 200: { description: 'The message, or null', body: z.strictObject({ success: z.literal(true), message: messageBody.nullable() }) }, ...errors(400, 429), ...denied },
  };
  app.get('/mailboxes/:address/messages/wait', { schema: wait, onRequest: resolved }, async (request, reply) => {
    const { timeout, after, from, subject, has_code } = request.query;
    // The client went away: the wait ends, and with it its lease and its subscription.
    const gone = new AbortController();
    const onClose = () => {
      if (!reply.raw.writableFinished) gone.abort();
    };
    reply.raw.once('close', onClose);
    if (request.raw.socket?.destroyed) gone.abort();
    // A wait of up to 60 s says nothing meanwhile: the server's idle timeout must not close it first.
    const restoreIdleTimeout = holdOpenFor(reply.raw, timeout * 1000);
    try {
      const filter = { after: after ?? null, from, subject, hasCode: has_code === undefined ? undefined : has_code === 'true' };
      const message = await waits.wait(theMailbox(request), filter, timeout * 1000, gone.signal, clientKey(request.ip));
      return { success: true as const, message };
    } finally {
      restoreIdleTimeout();
      reply.raw.off('close', onClose);
    }
  });

  const read = {
    tags,
    summary: 'Read a message',
    auth,
    params: messageParams,
    responses: { 200: { description: 'The message', body: one('message', messageBody) }, ...errors(400), ...denied },
  };
  app.get('/mailboxes/:address/messages/:id', { schema: read, onRequest: resolved }, async (request) => {
    return { success: true, message: await reader.read(theMailbox(request), request.params.id) };
  });

  const markSeen = {
    tags,
    summary: 'Mark a message read or unread',
    description: 'In this mailbox only (each recipient mailbox has its own `seen`). Answers the message as it now is.',
    auth,
    params: messageParams,
    body: seenPatchSchema,
    responses: { 200: { description: 'The message', body: one('message', messageBody) }, ...errors(400), ...denied },
  };
  app.patch('/mailboxes/:address/messages/:id', { schema: markSeen, onRequest: resolved }, async (request) => {
    return { success: true, message: await reader.setSeen(theMailbox(request), request.params.id, request.body.seen) };
  });

  const source = {
    tags,
    summary: 'The raw source (RFC 822) of a message',
    description:
      'As received over SMTP, byte for byte, stored once per message whatever the number of mailboxes; for POST /api/inbound, composed (nodemailer MailComposer) from the parts stored once per message and the HTML as given: the same bytes on every read, with a Message-ID of `<{id}@{domain}>`.',
    auth,
    params: messageParams,
    responses: {
      200: { description: 'The message as `message/rfc822`', mediaType: 'message/rfc822', headers: { 'Content-Disposition': 'inline, named {id}.eml' } },
      ...errors(400, 503),
      ...denied,
    },
  };
  app.get('/mailboxes/:address/messages/:id/source', { schema: source, onRequest: resolved }, async (request, reply) => {
    const raw = await reader.source(theMailbox(request), request.params.id);
    return sendDownload(reply, sourceDisposition('inline', request.params.id), 'message/rfc822', raw);
  });

  const html = {
    tags,
    summary: 'The sanitised HTML as a document for a sandboxed iframe',
    description:
      'Served with a sandboxing Content-Security-Policy: nothing runs, nothing loads but inline styles and the message\'s own (data:) images. With `remote_images=true` its remote images load too (the policy then allows images, and only images, from http(s)).',
    auth,
    params: messageParams,
    querystring: auth === 'mailboxToken' ? tokenInQuery.extend(remoteImagesQuery.shape) : remoteImagesQuery,
    responses: { 200: { description: 'HTML with a strict Content-Security-Policy', mediaType: 'text/html' }, ...errors(400, 503), ...denied },
  };
  app.get('/mailboxes/:address/messages/:id/html', { schema: html, onRequest: mailboxOf(resolve, true) }, async (request, reply) => {
    const showRemote = request.query.remote_images === 'true';
    const doc = await reader.htmlDocument(theMailbox(request), request.params.id, showRemote);
    return reply
      .header('content-security-policy', showRemote ? MAIL_HTML_CSP_REMOTE_IMAGES : MAIL_HTML_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(doc);
  });

  const download = {
    tags,
    summary: 'Download an attachment',
    auth,
    params: attachmentParams,
    responses: {
      200: { description: 'The bytes, as a download; only harmless types keep their type', mediaType: 'application/octet-stream', headers: { 'Content-Disposition': 'attachment with the file name' } },
      ...errors(400),
      ...denied,
    },
  };
  app.get('/mailboxes/:address/messages/:id/attachments/:attachmentId', { schema: download, onRequest: resolved }, async (request, reply) => {
    const file = await reader.attachment(theMailbox(request), request.params.id, request.params.attachmentId);
    const type = SAFE_DOWNLOAD_TYPE.test(file.contentType) ? file.contentType : 'application/octet-stream';
    return sendDownload(reply, attachmentDisposition(file.filename), type, file.content);
  });

  const remove = {
    tags,
    summary: 'Delete a message from this mailbox',
    auth,
    params: messageParams,
    responses: { 200: { description: 'Deleted', body: z.strictObject({ success: z.literal(true) }) }, ...errors(400), ...denied },
  };
  app.delete('/mailboxes/:address/messages/:id', { schema: remove, onRequest: resolved }, async (request) => {
    await reader.remove(theMailbox(request), request.params.id);
    return { success: true };
  });
}

/** Public reading with the mailbox token, and the SSE stream of arrivals. */
export function mailPublicRoutes(app: RouteApp, ctx: AppContext): void {
  const resolve: ResolveMailbox = async (request, allowQuery) => {
    const address = (request.params as { address: string }).address;
    const token = bearer(request, allowQuery);
    try {
      return await ctx.services.mailReader.authorizeToken(address, token);
    } catch (err) {
      // An account of the mail.tm-compatible API is a mailbox: its token reads it here too
      // (docs/mailtm.md#the-mailtm-compatible-api).
      const viaMailtm = await ctx.services.mailtm.mailboxForToken(address, token);
      if (viaMailtm) return viaMailtm;
      throw err;
    }
  };
  readingRoutes(app, ctx, resolve, 'mailboxToken');

  const streams = trackEventStreams(app);

  const events = {
    tags: ['mail'],
    summary: 'Server-Sent Events: one `message` event per arrival',
    description: 'Data {id, from, subject, received_at, seen, code} (`seen` is false: the message just arrived; `code`: its verification code or null); a heartbeat comment every 15 s. A reconnect with Last-Event-ID first replays what arrived after that message.',
    auth: 'mailboxToken' as const,
    params: mailboxParams,
    querystring: tokenInQuery,
    responses: { 200: { description: 'An event stream', mediaType: 'text/event-stream' }, ...errors(401, 429) },
  };
  app.get('/mailboxes/:address/events', { schema: events, onRequest: mailboxOf(resolve, true) }, async (request, reply) => {
    const mailbox = theMailbox(request);
    // HEAD gets the stream's headers and no stream: Node sends no headers for a HEAD answer before it
    // ends, so a hijacked one would hang, holding its slots, until the client gave up.
    if (request.method === 'HEAD') return reply.header('cache-control', 'no-store').type('text/event-stream; charset=utf-8').send();
    await openMailStream(ctx, request, reply, {
      streams,
      mailbox,
      lastEventId: typeof request.headers['last-event-id'] === 'string' ? request.headers['last-event-id'] : '',
      deliver: (n, res) => {
        const data = JSON.stringify({ id: n.id, from: n.from, subject: n.subject, received_at: toIso(n.received_at), seen: false, code: n.code ?? null });
        res.write(`event: message\nid: ${n.id}\ndata: ${data}\n\n`);
      },
    });
  });
}

/** `POST /api/inbound` and the same reading routes with the API key (or an admin session). */
export function mailApiRoutes(app: RouteApp, ctx: AppContext): void {
  const inbound = {
    tags: ['mail'],
    summary: 'Receive a message (from a mail parsing service)',
    description:
      'Stored in every known mailbox among the recipients in `to` (its content and attachments once, shared by those mailboxes). Up to SVC_INBOUND_MAX_BYTES (10 MiB by default) and 100 attachments (more: 400 naming `attachments`); each string field has the maxLength shown. The HTML is stored as given and sanitised once, by the first read of the message, within SVC_MAIL_HTML_TIMEOUT_MS; when it cannot be, the message keeps its text and reads with `html_dropped: true`. A body of 256 KiB or more is parsed in the content pool, off the event loop. Each mailbox keeps its newest `mailbox_max_messages` (setting, default 500); older ones are deleted. A mail.tm account also keeps its messages within its byte quota: the oldest go first, and a message larger than the quota is not stored there (`mailboxes` lists the mailboxes that took it; none could: 413).',
    body: inboundSchema,
    responses: { 201: { description: 'Stored', body: inboundBody }, ...errors(400, 404, 413, 503) },
  };
  app.post('/inbound', { bodyLimit: ctx.config.inboundMaxBytes, schema: inbound }, async (request, reply) => {
    const message = await ctx.services.mail.receiveInbound(request.body);
    return reply.code(201).send({ success: true, message });
  });
  readingRoutes(app, ctx, (request) => ctx.services.mailReader.getMailbox((request.params as { address: string }).address), 'apiKey');
}
