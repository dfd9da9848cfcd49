import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { toIso } from '../clock.js';
import type { AppContext } from '../context.js';
import type { Mailbox } from '../db/schema.js';
import { parseBody } from '../validation.js';
import { MAIL_HTML_CSP } from './mail-html.js';
import type { MailNotice } from './mail-events.js';

const optionalText = z.string().nullish();

/** Seed §2: only `to` is required; extra fields from mail parsing services are ignored. */
export const inboundSchema = z.object({
  to: z.string().trim().min(1, 'is required').max(10_000),
  from: optionalText,
  from_name: optionalText,
  subject: optionalText,
  text: optionalText,
  html: optionalText,
  attachments: z
    .array(
      z.object({
        filename: optionalText,
        content_type: optionalText,
        content_base64: z.string(),
      }),
    )
    .max(1000)
    .nullish(),
});

export const messageListQuery = z.object({
  limit: z.coerce.number().int().min(1).max(500).default(50),
  cursor: z.string().max(100).optional(),
});

interface MailboxParams {
  address: string;
}
interface MessageParams extends MailboxParams {
  id: string;
}
interface AttachmentParams extends MessageParams {
  attachmentId: string;
}

type ResolveMailbox = (request: FastifyRequest, allowQueryToken: boolean) => Promise<Mailbox>;

// Only types a browser will not run as a document; everything else downloads as opaque bytes.
const SAFE_DOWNLOAD_TYPE =
  /^(image\/(png|jpeg|gif|webp|bmp)|application\/(pdf|zip|gzip|octet-stream|msword|rtf|vnd\.[a-z0-9.+-]+)|text\/(plain|csv|calendar)|audio\/[a-z0-9.+-]+|video\/[a-z0-9.+-]+)$/;

const HEARTBEAT_MS = 15_000;

function bearer(request: FastifyRequest, allowQueryToken: boolean): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  // EventSource and iframes cannot send headers; only those two routes take the token in the query.
  const q = (request.query as { token?: unknown } | undefined)?.token;
  return allowQueryToken && typeof q === 'string' ? q : undefined;
}

/** `Content-Disposition` with an ASCII fallback and the exact name as RFC 5987 UTF-8. */
function attachmentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}

function readingRoutes(app: FastifyInstance, ctx: AppContext, resolve: ResolveMailbox): void {
  const mail = ctx.services.mail;

  app.get<{ Params: MailboxParams }>('/mailboxes/:address/messages', async (request) => {
    const mailbox = await resolve(request, false);
    const q = parseBody(messageListQuery, request.query);
    const page = await mail.list(mailbox, q.limit, q.cursor);
    return { success: true, ...page };
  });

  app.get<{ Params: MessageParams }>('/mailboxes/:address/messages/:id', async (request) => {
    const mailbox = await resolve(request, false);
    return { success: true, message: await mail.read(mailbox, request.params.id) };
  });

  app.get<{ Params: MessageParams }>('/mailboxes/:address/messages/:id/html', async (request, reply) => {
    const mailbox = await resolve(request, true);
    const doc = await mail.htmlDocument(mailbox, request.params.id);
    return reply
      .header('content-security-policy', MAIL_HTML_CSP)
      .header('x-content-type-options', 'nosniff')
      .header('referrer-policy', 'no-referrer')
      .header('cache-control', 'private, no-store')
      .type('text/html; charset=utf-8')
      .send(doc);
  });

  app.get<{ Params: AttachmentParams }>('/mailboxes/:address/messages/:id/attachments/:attachmentId', async (request, reply) => {
    const mailbox = await resolve(request, false);
    const file = await mail.attachment(mailbox, request.params.id, request.params.attachmentId);
    return reply
      .header('content-disposition', attachmentDisposition(file.filename))
      .header('x-content-type-options', 'nosniff')
      .header('content-security-policy', "sandbox; default-src 'none'")
      .header('cache-control', 'private, no-store')
      .type(SAFE_DOWNLOAD_TYPE.test(file.contentType) ? file.contentType : 'application/octet-stream')
      .send(file.content);
  });

  app.delete<{ Params: MessageParams }>('/mailboxes/:address/messages/:id', async (request) => {
    const mailbox = await resolve(request, false);
    await mail.remove(mailbox, request.params.id);
    return { success: true };
  });
}

/** Public reading with the mailbox token, and the SSE stream of arrivals. */
export function mailPublicRoutes(app: FastifyInstance, ctx: AppContext): void {
  const resolve: ResolveMailbox = (request, allowQuery) =>
    ctx.services.mail.authorizeToken((request.params as MailboxParams).address, bearer(request, allowQuery));
  readingRoutes(app, ctx, resolve);

  const streams = new Set<FastifyReply>();
  // Open streams would hold app.close() forever; end them when the server starts closing.
  app.addHook('preClose', (done) => {
    // Destroyed rather than ended: a stream never completes, and waiting on its socket would hold the close.
    for (const reply of streams) reply.raw.socket?.destroy();
    streams.clear();
    done();
  });

  app.get<{ Params: MailboxParams }>('/mailboxes/:address/events', async (request, reply) => {
    const mailbox = await resolve(request, true);
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-content-type-options': 'nosniff',
      'x-accel-buffering': 'no',
      connection: 'keep-alive',
    });
    res.write('retry: 3000\n: connected\n\n');
    streams.add(reply);
    const write = (n: MailNotice) => {
      const data = JSON.stringify({ id: n.id, from: n.from, subject: n.subject, received_at: toIso(n.received_at) });
      res.write(`event: message\nid: ${n.id}\ndata: ${data}\n\n`);
    };
    // A reconnecting EventSource names the last message it saw: what arrived since is sent first.
    // Live notices wait meanwhile (subscribed before the query, so nothing falls in between) and
    // any the replay already carried are not sent twice.
    const rawLastId = request.headers['last-event-id'];
    const lastEventId = typeof rawLastId === 'string' ? rawLastId.trim() : '';
    let held: MailNotice[] | null = lastEventId ? [] : null;
    // Kept for the stream's life: another instance's arrival can reach us (poll fallback) after the replay.
    const replayed = new Set<string>();
    const send = (n: MailNotice) => {
      if (held) held.push(n);
      else if (!replayed.has(n.id)) write(n);
    };
    const unsubscribe = ctx.services.mail.subscribe(mailbox.address, send);
    const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), HEARTBEAT_MS);
    heartbeat.unref();
    const socket = request.raw.socket;
    res.on('close', () => {
      // An event stream never completes, so its socket cannot serve another request: let it go.
      socket.destroy();
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(reply);
    });
    if (lastEventId && held) {
      try {
        for (const n of await ctx.services.mail.arrivedAfter(mailbox, lastEventId.slice(0, 100))) {
          replayed.add(n.id);
          write(n);
        }
      } catch (err) {
        request.log.warn({ err }, 'SSE replay after Last-Event-ID failed; live events continue');
      }
      for (const n of held) if (!replayed.has(n.id)) write(n);
      held = null;
    }
  });
}

/** `POST /api/inbound` and the same reading routes with the API key (or an admin session). */
export function mailApiRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.post('/inbound', { bodyLimit: ctx.config.inboundMaxBytes }, async (request, reply) => {
    const payload = parseBody(inboundSchema, request.body);
    const message = await ctx.services.mail.receiveInbound(payload);
    return reply.code(201).send({ success: true, message });
  });
  readingRoutes(app, ctx, (request) => ctx.services.mail.getMailbox((request.params as MailboxParams).address));
}
