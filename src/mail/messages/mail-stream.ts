import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../../context.js';
import type { Mailbox } from '../../platform/db/schema.js';
import { clientKey } from '../../platform/http/client-address.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import type { MailNotice } from './mail-events.js';

/**
 * The open event streams of one route plugin. Open streams would hold app.close() forever, so they are
 * destroyed (not ended: a stream never completes, and waiting on its socket would hold the close) when
 * the server starts closing.
 */
export function trackEventStreams(app: RouteApp): Set<FastifyReply> {
  const streams = new Set<FastifyReply>();
  app.addHook('preClose', (done) => {
    for (const reply of streams) reply.raw.socket?.destroy();
    streams.clear();
    done();
  });
  return streams;
}

export interface MailStreamOptions {
  /** Where the stream is kept while open (trackEventStreams). */
  readonly streams: Set<FastifyReply>;
  readonly mailbox: Mailbox;
  /** The last message the client saw (Last-Event-ID), or ''. */
  readonly lastEventId: string;
  /** Writes one new message to the stream; called once per message, in arrival order. */
  readonly deliver: (notice: MailNotice, res: FastifyReply['raw']) => void;
  /** Called once when the stream closes or ends: nothing may be written after it. */
  readonly onClose?: () => void;
}

/** An open stream: `end()` finishes it for the client (who sees the response end) and frees its slots. */
export interface MailStream {
  end(): void;
}

/**
 * Opens a mailbox's live event stream on a request whose access has been checked, for the inbox's
 * stream and the mail.tm Mercure stream alike: the stream slots of README.md#limits (per mailbox and per client IP,
 * else 429), SSE headers, heartbeats (which also keep the connection from counting as idle), and a
 * Last-Event-ID replay: what arrived after that message is delivered first, while live notices wait
 * (subscribed before the query, so nothing falls in between), and any the replay already carried are
 * not delivered twice. The stream ends when the mailbox's streams are ended (MailService.endingStreams:
 * docs/mailtm.md#deleting-an-account-ends-its-streams, the account is deleted) or when the caller calls
 * end(); nothing is written after that.
 */
export async function openMailStream(ctx: AppContext, request: FastifyRequest, reply: FastifyReply, opts: MailStreamOptions): Promise<MailStream> {
  const { mailbox } = opts;
  // Shared by every instance (a lease in the database); a refusal throws before anything is written.
  const release = await ctx.liveStreams.acquire(mailbox.address, clientKey(request.ip));
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
  opts.streams.add(reply);
  const lastEventId = opts.lastEventId.trim().slice(0, 100);
  let held: MailNotice[] | null = lastEventId ? [] : null;
  let open = true;
  const deliver = (n: MailNotice) => {
    if (open) opts.deliver(n, res);
  };
  // Kept for the stream's life: another instance's arrival can reach us (poll fallback) after the replay.
  const replayed = new Set<string>();
  const unsubscribe = ctx.services.mail.subscribe(mailbox.address, {
    mail: (n) => {
      if (held) held.push(n);
      else if (!replayed.has(n.id)) deliver(n);
    },
    end: () => end(),
  });
  const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.config.http.streamHeartbeatMs);
  heartbeat.unref();
  const socket = request.raw.socket;
  /** Nothing more is written: no heartbeat, no notice, no delivery in flight (onClose). */
  const stop = (): boolean => {
    if (!open) return false;
    open = false;
    clearInterval(heartbeat);
    unsubscribe();
    opts.onClose?.();
    return true;
  };
  const close = () => {
    stop();
    // An event stream never completes, so its socket cannot serve another request: let it go.
    socket.destroy();
    opts.streams.delete(reply);
    release();
  };
  const end = () => {
    // The last chunk first, so the client sees the response end rather than a connection reset.
    if (stop()) res.end(close);
  };
  res.on('close', close);
  // A client that hung up while its access was checked has no 'close' left to come: its slots would leak.
  if (socket.destroyed) close();
  if (held) {
    try {
      for (const n of await ctx.services.mail.arrivedAfter(mailbox, lastEventId)) {
        replayed.add(n.id);
        deliver(n);
      }
    } catch (err) {
      request.log.warn({ err }, 'SSE replay after Last-Event-ID failed; live events continue');
    }
    for (const n of held) if (!replayed.has(n.id)) deliver(n);
    held = null;
  }
  return { end };
}
