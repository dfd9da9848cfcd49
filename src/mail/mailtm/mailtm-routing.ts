import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { AppContext } from '../../context.js';
import { type ApiResponse, errorBody, pathSegment } from '../../platform/http/openapi.js';
import { bearerToken } from './mailtm-auth.js';
import { contentTypeOf, formatOf, type MailtmFormat } from './mailtm.resources.js';

/* What every mail.tm route shares: its tag, its auth, its id parameter, its two formats. */

export const tags = ['mailtm'];
export const auth = 'mailtmToken' as const;
export const unprocessable: Record<number, ApiResponse> = {
  422: { description: 'invalid_request: a value mail.tm would refuse (address not on a domain of ours or malformed, already used, password too short); details name the field', body: errorBody },
};
export const idParams = z.object({ id: pathSegment });

export function send(reply: FastifyReply, format: MailtmFormat, status: number, body: unknown) {
  return reply.code(status).type(contentTypeOf(format)).send(body);
}

/** mail.tm's format of the answer: JSON-LD unless the client accepts plain JSON. */
export const format = (request: FastifyRequest) => formatOf(request.headers.accept);

export type MailtmAuthHook = (request: FastifyRequest) => Promise<void>;

/** onRequest: the account of the bearer token (401 otherwise), before the body is read. */
export function authenticatedBy(ctx: AppContext): MailtmAuthHook {
  const mailtm = ctx.services.mailtm;
  return async (request: FastifyRequest) => {
    request.mailtmAccount = await mailtm.authenticate(bearerToken(request));
  };
}
