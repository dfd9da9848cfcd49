
import type { AppContext } from '../../context.js';
import { jsonWithText } from '../../platform/http/json-text-stream.js';
import { errors, pathSegment } from '../../platform/http/openapi.js';
import type { RouteApp } from '../../platform/http/route-schema.js';
import { attachmentDisposition, sendDownload, sourceDisposition } from '../messages/mail-downloads.js';
import { theAccount } from './mailtm-auth.js';
import {
  collection,
  messageBody,
  messageItemBody,
  single,
} from './mailtm.resources.js';
import {
  collectionOf,
  either,
  messageItemShapes,
  messageShapes,
  pageQuery,
  seenBody,
  seenPatchSchema,
  sourceShapes,
} from './mailtm.schemas.js';
import { MAILTM_PAGE_SIZE } from './mailtm.service.js';
import { auth, type MailtmAuthHook, format, idParams, send, tags } from './mailtm-routing.js';

/** The account's messages: list, read, mark seen, delete, source, attachments. */
export function mailtmMessageRoutes(app: RouteApp, ctx: AppContext, authenticated: MailtmAuthHook): void {
  const mailtm = ctx.services.mailtm;

  app.get(
    '/messages',
    {
      schema: {
        tags,
        summary: 'mail.tm: the account\'s messages, newest first, 30 a page',
        description: 'JSON-LD: a Hydra collection with hydra:totalItems (and hydra:view when there is more than one page); JSON: a plain array.',
        auth,
        querystring: pageQuery,
        responses: { 200: { description: 'A page', body: collectionOf(messageItemShapes) }, ...errors(400, 401) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      const account = theAccount(request);
      const { rows, total } = await mailtm.messages(account, request.query.page);
      const members = rows.map((r) => ({ iri: `/messages/${r.id}`, body: messageItemBody(account.id, r) }));
      return send(reply, format(request), 200, collection(format(request), 'Message', '/messages', members, { page: request.query.page, total, size: MAILTM_PAGE_SIZE }));
    },
  );

  app.get(
    '/messages/:id',
    {
      schema: {
        tags,
        summary: 'mail.tm: one message (reading it marks it seen)',
        auth,
        params: idParams,
        responses: { 200: { description: 'The message', body: either(messageShapes) }, ...errors(401, 404) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      const account = theAccount(request);
      const { message, contentIds } = await mailtm.message(account, request.params.id);
      const { mailbox_ttl_hours } = await ctx.services.settings.get();
      return send(reply, format(request), 200, single(format(request), 'Message', `/messages/${message.id}`, messageBody(account.id, message, contentIds, mailbox_ttl_hours)));
    },
  );

  app.patch(
    '/messages/:id',
    {
      schema: {
        tags,
        summary: 'mail.tm: mark a message seen or unseen',
        description: 'Body `{"seen": true|false}` as application/merge-patch+json (application/json and application/ld+json are taken too).',
        auth,
        params: idParams,
        body: seenPatchSchema,
        responses: { 200: { description: 'The new state', body: seenBody }, ...errors(400, 401, 404) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      await mailtm.setSeen(theAccount(request), request.params.id, request.body.seen);
      return send(reply, format(request), 200, { seen: request.body.seen });
    },
  );

  app.delete(
    '/messages/:id',
    {
      schema: { tags, summary: 'mail.tm: delete a message', auth, params: idParams, responses: { 204: { description: 'Deleted' }, ...errors(401, 404) } },
      onRequest: authenticated,
    },
    async (request, reply) => {
      await mailtm.deleteMessage(theAccount(request), request.params.id);
      return reply.code(204).send();
    },
  );

  app.get(
    '/sources/:id',
    {
      schema: {
        tags,
        summary: 'mail.tm: the raw source of a message, as text in `data`',
        auth,
        params: idParams,
        responses: { 200: { description: 'The source', body: either(sourceShapes) }, ...errors(401, 404) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      const raw = await mailtm.source(theAccount(request), request.params.id);
      const id = request.params.id;
      // megabytes of source are escaped a slice per turn, never in one JSON.stringify on the event loop
      return send(reply, format(request), 200, jsonWithText(single(format(request), 'Source', `/sources/${id}`, { id, downloadUrl: `/messages/${id}/download` }), 'data', raw));
    },
  );

  app.get(
    '/messages/:id/download',
    {
      schema: {
        tags,
        summary: 'mail.tm: the raw source of a message (its downloadUrl)',
        auth,
        params: idParams,
        responses: { 200: { description: 'message/rfc822', mediaType: 'message/rfc822', headers: { 'Content-Disposition': 'attachment, named {id}.eml' } }, ...errors(401, 404) },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      const raw = await mailtm.source(theAccount(request), request.params.id);
      return sendDownload(reply, sourceDisposition('attachment', request.params.id), 'message/rfc822', raw);
    },
  );

  app.get(
    '/messages/:id/attachment/:attachmentId',
    {
      schema: {
        tags,
        summary: 'mail.tm: an attachment (its downloadUrl)',
        auth,
        params: idParams.extend({ attachmentId: pathSegment }),
        responses: {
          200: { description: 'The bytes, as a download', mediaType: 'application/octet-stream', headers: { 'Content-Disposition': 'attachment with the file name' } },
          ...errors(401, 404),
        },
      },
      onRequest: authenticated,
    },
    async (request, reply) => {
      const file = await mailtm.attachment(theAccount(request), request.params.id, request.params.attachmentId);
      return sendDownload(reply, attachmentDisposition(file.filename), 'application/octet-stream', file.content);
    },
  );
}
