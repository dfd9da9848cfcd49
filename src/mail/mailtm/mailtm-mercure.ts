import type { FastifyReply } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import type { MailtmAccount } from '../../platform/db/schema.js';
import { UnauthorizedError, ValidationError } from '../../platform/errors.js';
import { type MailStream, openMailStream, trackEventStreams } from '../messages/mail-stream.js';
import { errors } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { bearerToken, theAccount } from './mailtm-auth.js';
import { messageItemBody, single } from './mailtm.resources.js';

const topicValue = z.string().max(500);

const mercureQuery = z.object({
  topic: z.union([topicValue, z.array(topicValue).max(10)]).optional().meta({ description: '`/accounts/{id}` of the token\'s account (a full URL ending so is taken too)' }),
  authorization: z.string().max(2000).optional().meta({ description: 'The token, for clients that cannot send headers (Mercure\'s query form)' }),
  lastEventID: z.string().max(100).optional().meta({ description: 'Replay what arrived after this message (as the Last-Event-ID header)' }),
});

/** The topics a subscription asks for must all be the account's own. */
function checkTopics(topic: string | string[] | undefined, account: MailtmAccount): void {
  const topics = topic === undefined ? [] : Array.isArray(topic) ? topic : [topic];
  if (topics.length === 0) throw new ValidationError([{ field: 'topic', message: 'is required: /accounts/{id}' }]);
  const own = `/accounts/${account.id}`;
  if (!topics.every((t) => t === own || t.endsWith(own))) throw new UnauthorizedError('The token does not allow this topic');
}

/**
 * A Mercure-compatible subscription (docs/mailtm.md#the-mailtm-compatible-api):
 * `GET /mailtm/.well-known/mercure?topic=/accounts/{id}` with the bearer token sends each new message of the
 * account as mail.tm's Message object (JSON-LD) in an SSE `message` event whose id is the message id. Same
 * caps as the inbox's stream (README.md#limits: 5 per mailbox, 50 per client, beyond 429), heartbeats,
 * Last-Event-ID replay. Deleting the account ends it (docs/mailtm.md#deleting-an-account-ends-its-streams:
 * MailtmService.deleteAccount; mailtm-limits.test.ts).
 */
export function mercureRoute(app: RouteApp, ctx: AppContext): void {
  const streams = trackEventStreams(app);

  const schema = {
    tags: ['mailtm'],
    summary: 'mail.tm: Mercure-compatible stream of new messages',
    description:
      'Server-Sent Events: each new message of the account as `data:` mail.tm\'s Message object (JSON-LD), `id:` the message id; a heartbeat comment every 15 s. Token as `Authorization: Bearer`, `?authorization=` or the mercureAuthorization cookie. The stream ends when the account is deleted.',
    auth: 'mailtmToken' as const,
    querystring: mercureQuery,
    responses: { 200: { description: 'An event stream', mediaType: 'text/event-stream' }, ...errors(400, 401, 429) },
  };
  app.get(
    '/.well-known/mercure',
    {
      schema,
      onRequest: async (request) => {
        request.mailtmAccount = await ctx.services.mailtm.authenticate(bearerToken(request, true));
      },
    },
    async (request, reply) => {
      const account = theAccount(request);
      checkTopics(request.query.topic, account);
      const mailbox = await ctx.services.mailtm.mailbox(account);
      if (request.method === 'HEAD') return reply.header('cache-control', 'no-store').type('text/event-stream; charset=utf-8').send();
      let closed = false;
      const sent = new Set<string>();
      // Each message is looked up (it is sent whole) in arrival order: one lookup at a time.
      let chain: Promise<void> = Promise.resolve();
      const push = (id: string, res: FastifyReply['raw']) => {
        chain = chain
          .then(async () => {
            if (closed || sent.has(id)) return;
            const item = await ctx.services.mailtm.streamItem(account, id);
            if (closed) return;
            // The account is gone and this instance was not told (another process on one SQLite file): end here.
            if (item === 'account_gone') return stream?.end();
            if (!item) return;
            sent.add(id);
            const data = JSON.stringify(single('jsonld', 'Message', `/messages/${id}`, messageItemBody(account.id, item)));
            res.write(`id: ${id}\ndata: ${data}\n\n`);
          })
          .catch((err) => request.log.warn({ err }, 'mercure: a message could not be sent'));
      };
      const header = request.headers['last-event-id'];
      let stream: MailStream | undefined;
      stream = await openMailStream(ctx, request, reply, {
        streams,
        mailbox,
        lastEventId: typeof header === 'string' ? header : (request.query.lastEventID ?? ''),
        deliver: (n, res) => push(n.id, res),
        onClose: () => {
          closed = true;
        },
      });
      // Deleted after the token was checked but before the stream listened: its end was not heard.
      if (!(await ctx.services.mailtm.accountExists(account))) stream.end();
    },
  );
}
