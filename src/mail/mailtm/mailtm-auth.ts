import type { FastifyRequest } from 'fastify';
import type { MailtmAccount } from '../../platform/db/schema.js';

declare module 'fastify' {
  interface FastifyRequest {
    /** The mail.tm account of the bearer token, resolved (401 otherwise) in onRequest, before the body is read (docs/architecture.md#every-route). */
    mailtmAccount?: MailtmAccount;
  }
}

/** `Authorization: Bearer <token>`; the Mercure hub also takes `?authorization=` or the mercureAuthorization cookie (EventSource cannot send headers). */
export function bearerToken(request: FastifyRequest, alsoQueryAndCookie = false): string | undefined {
  const header = request.headers.authorization;
  const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (match) return match[1];
  if (!alsoQueryAndCookie) return undefined;
  const q = (request.query as { authorization?: unknown } | undefined)?.authorization;
  if (typeof q === 'string' && q.length > 0) return q.replace(/^Bearer\s+/i, '');
  return request.cookies.mercureAuthorization || undefined;
}

export function theAccount(request: FastifyRequest): MailtmAccount {
  if (!request.mailtmAccount) throw new Error('the account is resolved in onRequest');
  return request.mailtmAccount;
}
